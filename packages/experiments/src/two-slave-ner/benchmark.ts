import type { Decoder } from "@lagrange/core";
import { type Corpus, evaluateChunks } from "@lagrange/datasets";
import type { IlpDecodeOptions } from "@lagrange/ilp";
import { consistencyFeatureNames } from "@lagrange/mincut";
import {
  GENERAL_CRF_DEFAULTS,
  type GeneralCrf,
  type GeneralTagging,
  learnConsistency,
  prepareGeneralCrf,
  standardDecoders,
  tagGeneral,
  trainOrLoadModel,
} from "@lagrange/recipes";
import { openBenchSplits } from "../bench-splits.js";
import { type Significance, significanceOf } from "../two-phase/metrics.js";

/** The datasets of the suite: registry names, trained on `train`, evaluated on `dev`. */
export const TWO_SLAVE_NER_DATASETS = ["wnut16", "wnut17", "twitter-ritter2011"] as const;

export interface TwoSlaveNerOptions {
  readonly datasets?: readonly string[];
  /** L-BFGS iterations of every chain CRF (default 100). */
  readonly crfIterations?: number;
  readonly threads?: number;
  /** Jackknife folds for the perceptron's training scores (default 4). */
  readonly folds?: number;
  /** Perceptron epochs (default 10, as the paper). */
  readonly epochs?: number;
  readonly learningRate?: number;
  /** Time limit of the exact ILP per group, training and test (default 10 s). */
  readonly exactTimeLimitMs?: number;
  /** Iteration caps of the Figure 2 curves (default 1, 2, 3, 5, 10, 20, 50, 100, 200). */
  readonly curveIterations?: readonly number[];
  /** Train on the first n training sentences only (a quick run). */
  readonly maxTrainSentences?: number;
  /** Evaluate on the first n dev sentences only (a quick run). */
  readonly maxDevSentences?: number;
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

export interface NerScores {
  /** conlleval chunk F1 over all entities, in %. */
  readonly fMicro: number;
  /** Mean of the per-type chunk F1 over the types in the gold data, in %. */
  readonly fMacro: number;
  readonly precision: number;
  readonly recall: number;
}

/** One row of the Table 2 analogue. */
export interface Table2Row {
  readonly system: string;
  /** Decoder used in training and test (viterbi for the linear chain). */
  readonly decoder: string;
  readonly scores: NerScores;
  /** CRF training (shared by all rows) + perceptron, seconds. */
  readonly trainSeconds: number;
  /** Decoding the dev split (scores → labels, all groups), seconds. */
  readonly testSeconds: number;
  readonly weights: Readonly<Record<string, number>> | null;
  /** Among dev groups with factors: share decoded with a certificate (ILP: solved to optimality). */
  readonly certifiedRate: number | null;
  /** ILP rows: groups solved within the time limit, of those with factors (test). */
  readonly exactFinished: { readonly finished: number; readonly total: number } | null;
  /** Against the linear chain: paired bootstrap over sentences, F micro in points. */
  readonly significance: Significance | null;
}

/** One point of a Figure 2 curve: a decoder run with an iteration cap over the dev groups. */
export interface CurvePoint {
  readonly maxIterations: number;
  readonly decodeSeconds: number;
  readonly fMicro: number;
  /** Mean over the groups with factors of the best dual objective (lower = tighter). */
  readonly meanDual: number;
  /** Share of the groups with factors decoded with a certificate. */
  readonly certifiedRate: number;
  readonly meanIterations: number;
}

export interface TwoSlaveNerDataset {
  readonly id: string;
  readonly sizes: {
    readonly train: number;
    readonly dev: number;
    readonly devTokens: number;
  };
  readonly groups: {
    readonly train: {
      readonly groups: number;
      readonly linked: number;
      readonly withFactors: number;
    };
    readonly dev: {
      readonly groups: number;
      readonly linked: number;
      readonly withFactors: number;
      readonly factors: number;
      readonly largestPositions: number;
    };
  };
  readonly crfSeconds: number;
  readonly table2: readonly Table2Row[];
  /** The model the curves decode with (the paper uses its ILP-trained one). */
  readonly curveModel: string;
  readonly curves: {
    readonly "two-slave": readonly CurvePoint[];
    readonly "naive-dd": readonly CurvePoint[];
  };
  /** Mean exact optimum over the groups with factors under the curve model (the curves' floor). */
  readonly exactMeanOptimum: number | null;
  /** Exact decoding time over the dev split ÷ 2-slave's (200 iterations cap). */
  readonly exactOverTwoSlave: number | null;
}

export interface TwoSlaveNerBenchmark {
  readonly setup: {
    readonly crfIterations: number;
    readonly folds: number;
    readonly epochs: number;
    readonly learningRate: number;
    readonly exactTimeLimitMs: number;
    readonly preset: string;
  };
  readonly datasets: readonly TwoSlaveNerDataset[];
  readonly unavailable: readonly { readonly id: string; readonly reason: string }[];
}

const PRESET = "ner-words";

function scoresOf(gold: readonly string[][], predicted: readonly string[][]): NerScores {
  const e = evaluateChunks(gold, predicted);
  const types = Object.values(e.perType).filter((t) => t.gold > 0);
  const fMacro = types.length === 0 ? 0 : types.reduce((a, t) => a + t.f1, 0) / types.length;
  return {
    fMicro: 100 * e.f1,
    fMacro: 100 * fMacro,
    precision: 100 * e.precision,
    recall: 100 * e.recall,
  };
}

function withFactors(tagging: GeneralTagging) {
  return tagging.groups.filter((g) => g.factors > 0);
}

/**
 * qian-liu2014 Table 2 and Figure 2 on Twitter NER: a linear-chain CRF against general CRFs
 * (skip-chain and phrase-consistency patterns over tweet clusters) trained by averaged perceptron
 * and decoded by 2-slave DD, naive DD and the exact ILP; then the convergence curves of the two
 * DD decoders against decoding time on one model.
 */
export async function twoSlaveNerBenchmark(
  options: TwoSlaveNerOptions = {},
): Promise<TwoSlaveNerBenchmark> {
  const status = options.onStatus ?? (() => {});
  const crfIterations = options.crfIterations ?? 100;
  const folds = options.folds ?? GENERAL_CRF_DEFAULTS.folds;
  const epochs = options.epochs ?? GENERAL_CRF_DEFAULTS.epochs;
  const learningRate = options.learningRate ?? 0.01;
  const exactTimeLimitMs = options.exactTimeLimitMs ?? 10_000;
  const caps = options.curveIterations ?? [1, 2, 3, 5, 10, 20, 50, 100, 200];
  const registry = standardDecoders();
  await registry.prepare("exact");
  const datasets: TwoSlaveNerDataset[] = [];
  const unavailable: { id: string; reason: string }[] = [];
  for (const id of options.datasets ?? TWO_SLAVE_NER_DATASETS) {
    const splits = await openBenchSplits(id, options, (reason) => unavailable.push({ id, reason }));
    if (splits === null) continue;
    const { train, dev } = splits;
    status(`${id}: ${train.sentences.length} training tweets, ${dev.sentences.length} dev tweets`);
    datasets.push(
      await runDataset(id, train, dev, {
        ...options,
        crfIterations,
        folds,
        epochs,
        learningRate,
        exactTimeLimitMs,
        caps,
        registry,
        status,
      }),
    );
  }
  return {
    setup: { crfIterations, folds, epochs, learningRate, exactTimeLimitMs, preset: PRESET },
    datasets,
    unavailable,
  };
}

async function runDataset(
  id: string,
  train: Corpus,
  dev: Corpus,
  o: TwoSlaveNerOptions & {
    readonly crfIterations: number;
    readonly folds: number;
    readonly epochs: number;
    readonly learningRate: number;
    readonly exactTimeLimitMs: number;
    readonly caps: readonly number[];
    readonly registry: ReturnType<typeof standardDecoders>;
    readonly status: (message: string) => void;
  },
): Promise<TwoSlaveNerDataset> {
  const { registry, status, signal } = o;
  const trainModel = async (corpus: Corpus, labels: readonly string[], fold: number) =>
    (
      await trainOrLoadModel(corpus, {
        name: `two-slave-ner-${id}${fold === 0 ? "" : `-fold${fold}`}`,
        preset: PRESET,
        iterations: o.crfIterations,
        ...(o.threads === undefined ? {} : { threads: o.threads }),
        ...(labels.length === 0 ? {} : { labels }),
        ...(o.cacheDir === undefined ? {} : { cacheDir: o.cacheDir }),
        onStatus: status,
        ...(signal === undefined ? {} : { signal }),
      })
    ).model;
  const settings = { groups: "tweets" as const };
  const prepared = await prepareGeneralCrf(train, {
    crf: { preset: PRESET },
    settings,
    trainModel,
    folds: o.folds,
    ...(signal === undefined ? {} : { signal }),
  });
  const crfSeconds = prepared.crfMs / 1000;
  const gold = dev.sentences.map((s) => s.labels ?? []);
  const names = consistencyFeatureNames();
  const decodeWith = (
    crf: GeneralCrf,
    decoder: Decoder,
    extra: { chainOnly?: boolean; maxIterations?: number; timeLimitMs?: number } = {},
  ) =>
    tagGeneral(crf, dev.sentences, decoder, {
      ...(extra.chainOnly === undefined ? {} : { chainOnly: extra.chainOnly }),
      decodeOptions: {
        ...(extra.maxIterations === undefined ? {} : { maxIterations: extra.maxIterations }),
        ...(extra.timeLimitMs === undefined ? {} : { timeLimitMs: extra.timeLimitMs }),
      } satisfies IlpDecodeOptions,
      ...(signal === undefined ? {} : { signal }),
    });

  // Linear chain: the base CRF alone.
  const chainCrf: GeneralCrf = {
    model: prepared.base,
    consistency: { ...prepared.consistencyBase, weights: new Float64Array(names.length) },
    settings,
  };
  const chainTagging = await decodeWith(chainCrf, registry.create("viterbi"), { chainOnly: true });
  const table2: Table2Row[] = [
    {
      system: "Linear chain CRF",
      decoder: "viterbi",
      scores: scoresOf(gold, chainTagging.labels),
      trainSeconds: crfSeconds,
      testSeconds: chainTagging.decodingMs / 1000,
      weights: null,
      certifiedRate: null,
      exactFinished: null,
      significance: null,
    },
  ];
  const devStats = {
    groups: chainTagging.groups.length,
    linked: chainTagging.groups.filter((g) => g.members.length > 1).length,
    withFactors: withFactors(chainTagging).length,
    factors: chainTagging.groups.reduce((a, g) => a + g.factors, 0),
    largestPositions: Math.max(0, ...chainTagging.groups.map((g) => g.positions)),
  };

  const systems = [
    { system: "General CRF (2-slave DD)", decoder: "two-slave" },
    { system: "General CRF (naive DD)", decoder: "naive-dd" },
    { system: "General CRF (ILP)", decoder: "exact" },
  ] as const;
  const exactLimit: IlpDecodeOptions = { timeLimitMs: o.exactTimeLimitMs };
  const models = new Map<string, GeneralCrf>();
  let exactTagging: GeneralTagging | null = null;
  for (const { system, decoder } of systems) {
    status(`${id}: perceptron through ${decoder} (${o.epochs} epochs)…`);
    const exact = decoder === "exact";
    const trained = await learnConsistency(prepared, {
      decoder: registry.create(decoder),
      epochs: o.epochs,
      learningRate: o.learningRate,
      // The paper's setup: the perceptron on every group, no held-out choice of epochs or scale.
      select: false,
      ...(exact ? { decodeOptions: exactLimit } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    models.set(decoder, trained);
    const tagging = await decodeWith(
      trained,
      registry.create(decoder),
      exact ? { timeLimitMs: o.exactTimeLimitMs } : {},
    );
    if (exact) exactTagging = tagging;
    const linked = withFactors(tagging);
    const scores = scoresOf(gold, tagging.labels);
    status(
      `${id}: ${system}: F micro ${scores.fMicro.toFixed(2)}, weights ${Array.from(trained.consistency.weights, (w) => w.toFixed(3)).join(" ")}`,
    );
    table2.push({
      system,
      decoder,
      scores,
      trainSeconds: crfSeconds + trained.perceptronMs / 1000,
      testSeconds: tagging.decodingMs / 1000,
      weights: Object.fromEntries(names.map((n, f) => [n, trained.consistency.weights[f]!])),
      certifiedRate:
        linked.length === 0
          ? null
          : linked.filter((g) => g.decoding.certified).length / linked.length,
      exactFinished: exact
        ? {
            finished: linked.filter((g) => g.decoding.status === "optimal").length,
            total: linked.length,
          }
        : null,
      significance: significanceOf(gold, tagging.labels, chainTagging.labels, "chunks", {
        samples: 1000,
        seed: 1,
        ...(signal === undefined ? {} : { signal }),
      }).f1,
    });
  }

  // Figure 2: both DD decoders on one model (the ILP-trained one, as the paper), per iteration cap.
  const curveModel = models.get("exact")!;
  const curves = { "two-slave": [] as CurvePoint[], "naive-dd": [] as CurvePoint[] };
  for (const decoder of ["two-slave", "naive-dd"] as const) {
    for (const cap of o.caps) {
      const tagging = await decodeWith(curveModel, registry.create(decoder), {
        maxIterations: cap,
      });
      const linked = withFactors(tagging);
      curves[decoder].push({
        maxIterations: cap,
        decodeSeconds: tagging.decodingMs / 1000,
        fMicro: scoresOf(gold, tagging.labels).fMicro,
        meanDual:
          linked.length === 0
            ? 0
            : linked.reduce((a, g) => a + (g.decoding.dual ?? g.decoding.primal), 0) /
              linked.length,
        certifiedRate:
          linked.length === 0
            ? 1
            : linked.filter((g) => g.decoding.certified).length / linked.length,
        meanIterations:
          linked.length === 0
            ? 0
            : linked.reduce((a, g) => a + g.decoding.iterations, 0) / linked.length,
      });
    }
  }
  const exactForCurve: GeneralTagging | null = exactTagging;
  const exactLinked = exactForCurve === null ? [] : withFactors(exactForCurve);
  const exactMeanOptimum =
    exactLinked.length === 0
      ? null
      : exactLinked.reduce((a, g) => a + g.decoding.primal, 0) / exactLinked.length;
  const twoSlaveFull = curves["two-slave"].at(-1);
  return {
    id,
    sizes: {
      train: train.sentences.length,
      dev: dev.sentences.length,
      devTokens: dev.sentences.reduce((a, s) => a + s.tokens.length, 0),
    },
    groups: { train: prepared.groupStats, dev: devStats },
    crfSeconds,
    table2,
    curveModel: "General CRF (ILP)",
    curves,
    exactMeanOptimum,
    exactOverTwoSlave:
      exactForCurve === null || twoSlaveFull === undefined || twoSlaveFull.decodeSeconds === 0
        ? null
        : exactForCurve.decodingMs / 1000 / twoSlaveFull.decodeSeconds,
  };
}
