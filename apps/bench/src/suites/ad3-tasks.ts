import { join } from "node:path";
import { COUNT_FAMILIES } from "@lagrange/constraint-templates";
import {
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type Decoding,
  type IterationStats,
  LagrangeError,
} from "@lagrange/core";
import type {
  DualDecompositionDecodeOptions,
  DualDecompositionOptions,
} from "@lagrange/core/dual-decomposition";
import { type Corpus, evaluateChunks } from "@lagrange/datasets";
import { openBenchSplits } from "@lagrange/experiments";
import type { IlpDecodeOptions } from "@lagrange/ilp";
import { consistencyFeatureNames } from "@lagrange/mincut";
import {
  type DecoderTiming,
  decodeTest,
  experimentTagger,
  type GeneralCrf,
  type GeneralTagging,
  learnConsistency,
  learnPenaltySet,
  prepareCitationExperiment,
  prepareGeneralCrf,
  selectCandidates,
  standardDecoders,
  tagGeneral,
  timeTaggers,
  trainOrLoadModel,
} from "@lagrange/recipes";
import {
  BENCH_CACHE_DIR,
  markdownTable,
  targetsTable,
  timingTable,
  writeReport,
} from "../report.js";
import { lineChartSvg } from "../svg.js";

/**
 * The second section of `pnpm bench ad3`: on the project's own tasks, the master's AD3 step
 * against its subgradient step — same decoders (so the same slaves), same models, same run.
 */

/** `umass`: Soft-DD on UMass citations; the others: general-CRF groups of a registry corpus. */
export const AD3_TASKS = ["umass", "wnut16", "wnut17", "conll2003"] as const;
export type Ad3TaskName = (typeof AD3_TASKS)[number];

/** How a general-CRF corpus is grouped and how much jackknifing its perceptron gets by default. */
const GROUP_TASKS: Record<
  Exclude<Ad3TaskName, "umass">,
  { readonly groups: "tweets" | "documents"; readonly folds: number }
> = {
  wnut16: { groups: "tweets", folds: 4 },
  wnut17: { groups: "tweets", folds: 4 },
  // Two folds, not four: each fold is another CRF on CoNLL's 14k sentences, and one fold (no
  // jackknife) would teach the perceptron from scores that make almost no errors.
  conll2003: { groups: "documents", folds: 2 },
};

export type DualDecompositionStep = NonNullable<DualDecompositionOptions["step"]>;

const DECOMPOSITIONS = ["two-slave", "naive-dd"] as const;
export type Decomposition = (typeof DECOMPOSITIONS)[number];

export interface Ad3TaskOptions {
  /** Default: every task of {@link AD3_TASKS}; one that cannot be reached is listed as skipped. */
  readonly tasks?: readonly Ad3TaskName[];
  /** Decode only the first n test citations / dev sentences (a smoke run). */
  readonly limit?: number;
  /** General CRFs: train on the first n training sentences only (a smoke run). */
  readonly maxTrainSentences?: number;
  /** General CRFs: L-BFGS iterations of every chain CRF (default 100, as two-slave-ner). */
  readonly crfIterations?: number;
  /** General CRFs: jackknife folds (default 4 on tweets, 2 on CoNLL-2003 documents). */
  readonly folds?: number;
  /** General CRFs: perceptron epochs (default 10, as two-slave-ner). */
  readonly epochs?: number;
  /** General CRFs: the decoder the perceptron trains through (default `two-slave`). */
  readonly trainDecoder?: string;
  /** Iteration cap of the subgradient step (default 200: today's). */
  readonly subgradientIterations?: number;
  /** Iteration cap of the AD3 step (default 1000). */
  readonly ad3Iterations?: number;
  /** Time limit of the exact ILP per group (default 10 000 ms). */
  readonly exactTimeLimitMs?: number;
  /** Skip the exact decoders (ILP and AD3 + branch and bound) on the groups. */
  readonly noExact?: boolean;
  /**
   * Timed runs of the citation timing harness (default 5; soft-dd-citations takes 15, but a pass
   * of the AD3 step is far longer than a Viterbi pass there).
   */
  readonly timingRuns?: number;
  readonly threads?: number;
  /** Where trained models are cached (default `<repo>/.lagrange-cache/bench`). */
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** The CLI flags of the tasks section, as commander parses them (`pnpm bench ad3`). */
export interface Ad3TaskFlags {
  readonly tasks?: readonly string[];
  readonly limit?: number;
  readonly maxTrain?: number;
  readonly crfIterations?: number;
  readonly folds?: number;
  readonly epochs?: number;
  readonly trainDecoder?: string;
  readonly subgradientIterations?: number;
  readonly ad3Iterations?: number;
  readonly exactLimit?: number;
  readonly skipExact?: boolean;
  readonly timingRuns?: number;
  readonly threads?: number;
}

/** The section's options from its CLI flags (absent flags: the section's defaults). */
export function ad3TaskOptionsFromFlags(f: Ad3TaskFlags): Ad3TaskOptions {
  const tasks = f.tasks?.map((name) => {
    if (!(AD3_TASKS as readonly string[]).includes(name)) {
      throw new LagrangeError(
        "usage",
        `unknown task "${name}"; expected a comma-separated list of ${AD3_TASKS.join(", ")}`,
      );
    }
    return name as Ad3TaskName;
  });
  const given = <T>(value: T | undefined, key: keyof Ad3TaskOptions) =>
    value === undefined ? {} : { [key]: value };
  return {
    ...given(tasks, "tasks"),
    ...given(f.limit, "limit"),
    ...given(f.maxTrain, "maxTrainSentences"),
    ...given(f.crfIterations, "crfIterations"),
    ...given(f.folds, "folds"),
    ...given(f.epochs, "epochs"),
    ...given(f.trainDecoder, "trainDecoder"),
    ...given(f.subgradientIterations, "subgradientIterations"),
    ...given(f.ad3Iterations, "ad3Iterations"),
    ...given(f.exactLimit, "exactTimeLimitMs"),
    ...(f.skipExact === true ? { noExact: true } : {}),
    ...given(f.timingRuns, "timingRuns"),
    ...given(f.threads, "threads"),
  };
}

/** One decode seen iteration by iteration (the master's `onIteration`, timestamped). */
export interface DecodeTrace {
  /** Per iteration: milliseconds from the start of the decode call to the end of the iteration. */
  readonly ms: readonly number[];
  /** Per iteration: the lowest dual so far. */
  readonly bestDual: readonly number[];
  /** The whole decode call, ms. */
  readonly totalMs: number;
  readonly iterations: number;
  readonly certified: boolean;
  /** The decoding's final bound (its dual, else its primal). */
  readonly finalDual: number;
  /** Counted in the rates (a group with consistency factors; every citation). */
  readonly counted: boolean;
}

/** One point of a curve: every decode capped at `maxIterations`, read off the traces. */
export interface TracePoint {
  readonly maxIterations: number;
  /** Decoding time of all decodes (counted or not) under the cap, seconds. */
  readonly seconds: number;
  /** Share of the counted decodes certified by the cap. */
  readonly certifiedRate: number;
  /** Mean over the counted decodes of the best dual by the cap (lower is tighter). */
  readonly meanDual: number;
}

/** One step's pass over a task's test decodes. */
export interface StepRun {
  readonly step: DualDecompositionStep;
  readonly maxIterations: number;
  /** The traced pass's decoding time, seconds (onIteration's cost included: a timestamp per iteration). */
  readonly seconds: number;
  /** Of it, the counted decodes' (the rest: decodes one slave settles at once). */
  readonly countedSeconds: number;
  /** That time over Viterbi's on the same decodes, same run. */
  readonly overViterbi: number;
  /** conlleval chunk F micro (groups) or field F1 (citations), %. */
  readonly f: number;
  readonly certifiedRate: number;
  readonly meanIterations: number;
  readonly meanDual: number;
  /** Decoding time of the counted decodes over their iterations, ms. */
  readonly msPerIteration: number;
  /** Counted decodes still uncertified at the end, and their mean iterations. */
  readonly uncertified: number;
  readonly uncertifiedMeanIterations: number;
  readonly curve: readonly TracePoint[];
}

export interface DecompositionResult {
  readonly decoder: Decomposition;
  readonly subgradient: StepRun;
  readonly ad3: StepRun;
  /** AD3's certified share within the time the whole subgradient pass took (its curve, read there). */
  readonly ad3CertifiedAtSubgradientTime: number;
  /** AD3's time to reach the subgradient pass's final certified share, seconds (null: never). */
  readonly ad3SecondsToSubgradientRate: number | null;
}

export interface ExactResult {
  readonly decoder: string;
  readonly seconds: number;
  readonly f: number;
  /** Counted groups solved to optimality (ILP: within its time limit; AD3: certified). */
  readonly solvedRate: number;
  /** Its time over the two-slave AD3 pass's. */
  readonly overAd3: number;
}

export interface GroupTaskResult {
  readonly kind: "groups";
  readonly id: string;
  readonly grouping: "tweets" | "documents";
  readonly sizes: {
    readonly train: number;
    readonly dev: number;
    readonly devTokens: number;
    readonly groups: number;
    readonly withFactors: number;
    readonly largestPositions: number;
  };
  readonly model: {
    readonly trainDecoder: string;
    readonly crfIterations: number;
    readonly folds: number;
    readonly epochs: number;
    readonly weights: Readonly<Record<string, number>>;
    readonly crfSeconds: number;
    readonly perceptronSeconds: number;
  };
  readonly viterbi: { readonly seconds: number; readonly f: number };
  readonly decompositions: readonly DecompositionResult[];
  readonly exact: readonly ExactResult[];
}

export interface CitationTaskResult {
  readonly kind: "citations";
  readonly id: "umass";
  readonly data: string;
  readonly generated: boolean;
  readonly testCitations: number;
  readonly constraints: number;
  readonly viterbiF1: number;
  readonly subgradient: StepRun;
  readonly ad3: StepRun;
  /** The timing harness (warm medians, alternating runs): Viterbi, Soft-DD subgradient, Soft-DD AD3. */
  readonly timing: readonly DecoderTiming[];
}

export type Ad3TaskEntry = CitationTaskResult | GroupTaskResult;

export interface Ad3TaskResult {
  readonly settings: {
    readonly subgradientIterations: number;
    readonly ad3Iterations: number;
    readonly limit: number | null;
    readonly exactTimeLimitMs: number;
  };
  readonly tasks: readonly Ad3TaskEntry[];
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  readonly targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[];
}

// ---------------------------------------------------------------------------------------------
// Traces (pure: tested in ad3-tasks.test.ts).

/**
 * A decoder that records each decode's iterations (time since the call began, best dual so far)
 * through the decode options' `onIteration`; `counted` says whether a problem enters the rates.
 */
export function tracingDecoder(
  inner: Decoder,
  counted: (problem: DecodeProblem) => boolean = () => true,
  clock: () => number = () => performance.now(),
): { readonly decoder: Decoder; readonly traces: DecodeTrace[] } {
  const traces: DecodeTrace[] = [];
  const decoder: Decoder = {
    name: inner.name,
    decode(problem: DecodeProblem, options?: DecodeOptions): Decoding {
      const ms: number[] = [];
      const bestDual: number[] = [];
      let best = Number.POSITIVE_INFINITY;
      const outer = options?.onIteration;
      const start = clock();
      const onIteration = (stats: IterationStats) => {
        if (stats.dual < best) best = stats.dual;
        bestDual.push(best);
        ms.push(clock() - start);
        return outer?.(stats);
      };
      const decoding = inner.decode(problem, { ...options, onIteration });
      const totalMs = clock() - start;
      traces.push({
        ms,
        bestDual,
        totalMs,
        iterations: decoding.iterations,
        certified: decoding.certified,
        finalDual: decoding.dual ?? decoding.primal,
        counted: counted(problem),
      });
      return decoding;
    },
  };
  return { decoder, traces };
}

/**
 * Every decode of `traces` as if capped at `cap` iterations: a decode that stopped by then counts
 * whole; one that ran on counts its first `cap` iterations, uncertified (a decode stops at the
 * iteration that certifies, so a certificate after the cap is one the capped run would not have).
 */
export function pointAt(traces: readonly DecodeTrace[], cap: number): TracePoint {
  let ms = 0;
  let certified = 0;
  let dual = 0;
  let counted = 0;
  for (const t of traces) {
    const whole = cap >= t.iterations || t.ms.length === 0;
    const k = Math.min(cap, t.ms.length) - 1;
    ms += whole ? t.totalMs : t.ms[k]!;
    if (!t.counted) continue;
    counted++;
    if (whole && t.certified) certified++;
    dual += whole ? t.finalDual : t.bestDual[k]!;
  }
  return {
    maxIterations: cap,
    seconds: ms / 1000,
    certifiedRate: counted === 0 ? 1 : certified / counted,
    meanDual: counted === 0 ? 0 : dual / counted,
  };
}

/** The caps a curve is drawn at: 1, 2, 3, 5, 10, 20, 50, … up to the longest decode, and it. */
export function curveCaps(traces: readonly DecodeTrace[]): number[] {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  const caps: number[] = [];
  for (let decade = 1; decade <= longest; decade *= 10) {
    for (const m of decade === 1 ? [1, 2, 3, 5] : [1, 2, 5]) {
      if (m * decade < longest) caps.push(m * decade);
    }
  }
  caps.push(longest);
  return caps;
}

export function curveOf(traces: readonly DecodeTrace[]): TracePoint[] {
  return curveCaps(traces).map((cap) => pointAt(traces, cap));
}

/**
 * The certified share the traced decodes reach within `seconds` of decoding in all: at the largest
 * cap whose total time fits (0 when even one iteration each does not).
 */
export function certifiedWithin(traces: readonly DecodeTrace[], seconds: number): number {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  let rate = 0;
  for (let cap = 1; cap <= longest; cap++) {
    const p = pointAt(traces, cap);
    if (p.seconds > seconds) break;
    rate = p.certifiedRate;
  }
  return rate;
}

/** The least total decoding time at which the traces reach a certified share (null: never). */
export function secondsToRate(traces: readonly DecodeTrace[], rate: number): number | null {
  const longest = Math.max(1, ...traces.map((t) => t.iterations));
  for (let cap = 1; cap <= longest; cap++) {
    const p = pointAt(traces, cap);
    if (p.certifiedRate >= rate - 1e-12) return p.seconds;
  }
  return null;
}

/** A step's figures from its traces (F and Viterbi's time given). */
export function stepRun(
  step: DualDecompositionStep,
  maxIterations: number,
  traces: readonly DecodeTrace[],
  f: number,
  viterbiSeconds: number,
): StepRun {
  const counted = traces.filter((t) => t.counted);
  const n = Math.max(1, counted.length);
  const iterations = counted.reduce((a, t) => a + t.iterations, 0);
  const uncertified = counted.filter((t) => !t.certified);
  const seconds = traces.reduce((a, t) => a + t.totalMs, 0) / 1000;
  return {
    step,
    maxIterations,
    seconds,
    countedSeconds: counted.reduce((a, t) => a + t.totalMs, 0) / 1000,
    overViterbi: viterbiSeconds > 0 ? seconds / viterbiSeconds : Number.NaN,
    f,
    certifiedRate:
      counted.length === 0 ? 1 : (counted.length - uncertified.length) / counted.length,
    meanIterations: iterations / n,
    meanDual: counted.reduce((a, t) => a + t.finalDual, 0) / n,
    msPerIteration: iterations === 0 ? 0 : counted.reduce((a, t) => a + t.totalMs, 0) / iterations,
    uncertified: uncertified.length,
    uncertifiedMeanIterations:
      uncertified.length === 0
        ? 0
        : uncertified.reduce((a, t) => a + t.iterations, 0) / uncertified.length,
    curve: curveOf(traces),
  };
}

// ---------------------------------------------------------------------------------------------
// The tasks.

type Status = (message: string) => void;

interface Resolved extends Ad3TaskOptions {
  readonly subgradientIterations: number;
  readonly ad3Iterations: number;
  readonly exactTimeLimitMs: number;
  readonly status: Status;
  readonly cacheDir: string;
}

/** Decode options of one step (the cap; the rest is the decoder's policy, the same for both). */
function stepOptions(o: Resolved, step: DualDecompositionStep): DualDecompositionDecodeOptions {
  return {
    step,
    maxIterations: step === "ad3" ? o.ad3Iterations : o.subgradientIterations,
    ...(o.signal === undefined ? {} : { signal: o.signal }),
  };
}

async function citationTask(o: Resolved): Promise<CitationTaskResult> {
  const { status } = o;
  const signal = o.signal === undefined ? {} : { signal: o.signal };
  // The pipeline of `pnpm bench soft-dd-citations`: its cached CRF, its constraint selection and
  // penalties (all families, segment unit, importance ≥ 2.75, averaged perceptron, 5 epochs).
  const prepared = await prepareCitationExperiment({
    cacheDir: o.cacheDir,
    ...(o.threads === undefined ? {} : { threads: o.threads }),
    onStatus: status,
    ...signal,
  });
  const limit = o.limit ?? prepared.testSentences.length;
  const experiment = {
    ...prepared,
    test: prepared.test.slice(0, limit),
    testSentences: prepared.testSentences.slice(0, limit),
    testAttributes: prepared.testAttributes.slice(0, limit),
    testGold: prepared.testGold.slice(0, limit),
  };
  const selection = await selectCandidates(experiment.base.model, experiment.learn, {
    families: COUNT_FAMILIES,
    countUnit: "segment",
    threshold: 2.75,
    ...signal,
  });
  status(`umass: learning penalties for ${selection.kept.length} constraints…`);
  const { entries } = await learnPenaltySet(selection.kept, experiment.learn, {
    algorithm: "averaged-perceptron",
    epochs: 5,
    ...signal,
  });

  const viterbi = tracingDecoder(experiment.registry.create("viterbi"), () => true);
  const viterbiDecoded = await decodeTest(experiment, viterbi.decoder, undefined, signal);
  const viterbiSeconds = viterbi.traces.reduce((a, t) => a + t.totalMs, 0) / 1000;
  const runs = {} as Record<DualDecompositionStep, StepRun>;
  for (const step of ["subgradient", "ad3"] as const) {
    status(`umass: Soft-DD, ${step} step, ${experiment.testSentences.length} citations…`);
    const traced = tracingDecoder(experiment.registry.create("soft-dd"), () => true);
    const decoded = await decodeTest(experiment, traced.decoder, entries, stepOptions(o, step));
    runs[step] = stepRun(
      step,
      stepOptions(o, step).maxIterations!,
      traced.traces,
      decoded.scores.f1,
      viterbiSeconds,
    );
  }
  status("umass: timing harness (Viterbi, Soft-DD subgradient, Soft-DD AD3)…");
  const tagger = (step: DualDecompositionStep) => {
    const inner = experiment.registry.create("soft-dd");
    // The harness reports taggers by decoder name: both would be "soft-dd".
    const named: Decoder = {
      name: `soft-dd (${step})`,
      decode: (problem, options) => inner.decode(problem, options),
    };
    return experimentTagger(experiment, named, entries, stepOptions(o, step));
  };
  const timing = await timeTaggers(
    [experimentTagger(experiment, "viterbi"), tagger("subgradient"), tagger("ad3")],
    experiment.testSentences,
    { runs: o.timingRuns ?? 5, ...signal },
  );
  return {
    kind: "citations",
    id: "umass",
    data: experiment.source,
    generated: experiment.generated,
    testCitations: experiment.testSentences.length,
    constraints: entries.length,
    viterbiF1: viterbiDecoded.scores.f1,
    subgradient: runs.subgradient,
    ad3: runs.ad3,
    timing,
  };
}

const fMicro = (gold: readonly string[][], predicted: readonly string[][]) =>
  100 * evaluateChunks(gold, predicted).f1;

async function groupTask(
  id: Exclude<Ad3TaskName, "umass">,
  train: Corpus,
  dev: Corpus,
  o: Resolved,
): Promise<GroupTaskResult> {
  const { status, signal } = o;
  const spec = GROUP_TASKS[id];
  const folds = o.folds ?? spec.folds;
  const crfIterations = o.crfIterations ?? 100;
  const epochs = o.epochs ?? 10;
  const trainDecoder = o.trainDecoder ?? "two-slave";
  const registry = standardDecoders();
  const settings = { groups: spec.groups };
  const preset = "ner-words";
  // Cached under the two-slave-ner suite's names on tweets: the same chain CRFs when the same
  // corpus and settings trained them there.
  const cacheName = spec.groups === "tweets" ? `two-slave-ner-${id}` : `ad3-tasks-${id}`;
  const prepared = await prepareGeneralCrf(train, {
    crf: { preset },
    settings,
    folds,
    trainModel: async (corpus, labels, fold) =>
      (
        await trainOrLoadModel(corpus, {
          name: `${cacheName}${fold === 0 ? "" : `-fold${fold}`}`,
          preset,
          iterations: crfIterations,
          ...(o.threads === undefined ? {} : { threads: o.threads }),
          ...(labels.length === 0 ? {} : { labels }),
          cacheDir: o.cacheDir,
          onStatus: status,
          ...(signal === undefined ? {} : { signal }),
        })
      ).model,
    ...(signal === undefined ? {} : { signal }),
  });
  status(`${id}: perceptron through ${trainDecoder} (${epochs} epochs)…`);
  if (trainDecoder === "exact") await registry.prepare("exact");
  const exactLimit: IlpDecodeOptions = { timeLimitMs: o.exactTimeLimitMs };
  const trained = await learnConsistency(prepared, {
    decoder: registry.create(trainDecoder),
    epochs,
    learningRate: 0.01,
    select: false,
    ...(trainDecoder === "exact" ? { decodeOptions: exactLimit } : {}),
    ...(signal === undefined ? {} : { signal }),
  });
  const crf: GeneralCrf = trained;
  const gold = dev.sentences.map((s) => s.labels ?? []);
  const decode = (
    decoder: Decoder,
    options: DecodeOptions & { timeLimitMs?: number },
    chainOnly = false,
  ) =>
    tagGeneral(crf, dev.sentences, decoder, {
      decodeOptions: options,
      ...(chainOnly ? { chainOnly } : {}),
      ...(signal === undefined ? {} : { signal }),
    });

  const viterbi = await decode(registry.create("viterbi"), {}, true);
  const viterbiSeconds = viterbi.decodingMs / 1000;
  const linked = (t: GeneralTagging) => t.groups.filter((g) => g.factors > 0);
  const decompositions: DecompositionResult[] = [];
  const ad3Seconds: Partial<Record<Decomposition, number>> = {};
  for (const decoder of DECOMPOSITIONS) {
    const runs = {} as Record<DualDecompositionStep, { run: StepRun; traces: DecodeTrace[] }>;
    for (const step of ["subgradient", "ad3"] as const) {
      status(`${id}: ${decoder}, ${step} step…`);
      const traced = tracingDecoder(registry.create(decoder));
      const tagging = await decode(traced.decoder, stepOptions(o, step));
      // One decode per group, in order: the rates count the groups with consistency factors, as
      // two-slave-ner's do.
      const traces = traced.traces.map((t, g) => ({
        ...t,
        counted: tagging.groups[g]!.factors > 0,
      }));
      runs[step] = {
        traces,
        run: stepRun(
          step,
          stepOptions(o, step).maxIterations!,
          traces,
          fMicro(gold, tagging.labels),
          viterbiSeconds,
        ),
      };
    }
    const sg = runs.subgradient.run;
    ad3Seconds[decoder] = runs.ad3.run.seconds;
    decompositions.push({
      decoder,
      subgradient: sg,
      ad3: runs.ad3.run,
      ad3CertifiedAtSubgradientTime: certifiedWithin(runs.ad3.traces, sg.seconds),
      ad3SecondsToSubgradientRate: secondsToRate(runs.ad3.traces, sg.certifiedRate),
    });
  }

  const exact: ExactResult[] = [];
  if (o.noExact !== true) {
    const reference = ad3Seconds["two-slave"] ?? Number.NaN;
    status(`${id}: exact ILP (HiGHS, ${o.exactTimeLimitMs} ms per group)…`);
    await registry.prepare("exact");
    const ilp = await decode(registry.create("exact"), { timeLimitMs: o.exactTimeLimitMs });
    const ilpLinked = linked(ilp);
    exact.push({
      decoder: "exact ILP (HiGHS)",
      seconds: ilp.decodingMs / 1000,
      f: fMicro(gold, ilp.labels),
      solvedRate:
        ilpLinked.length === 0
          ? 1
          : ilpLinked.filter((g) => g.decoding.status === "optimal").length / ilpLinked.length,
      overAd3: ilp.decodingMs / 1000 / reference,
    });
    status(`${id}: two-slave, AD3 + branch and bound (${o.exactTimeLimitMs} ms per group)…`);
    // The same per-group time limit as the ILP's.
    const branchAndBound: DualDecompositionDecodeOptions = {
      ...stepOptions(o, "ad3"),
      exact: true,
      timeLimitMs: o.exactTimeLimitMs,
    };
    const bb = await decode(registry.create("two-slave"), branchAndBound);
    const bbLinked = linked(bb);
    exact.push({
      decoder: "two-slave, AD3 + branch and bound",
      seconds: bb.decodingMs / 1000,
      f: fMicro(gold, bb.labels),
      solvedRate:
        bbLinked.length === 0
          ? 1
          : bbLinked.filter((g) => g.decoding.certified).length / bbLinked.length,
      overAd3: bb.decodingMs / 1000 / reference,
    });
  }
  const names = consistencyFeatureNames();
  return {
    kind: "groups",
    id,
    grouping: spec.groups,
    sizes: {
      train: train.sentences.length,
      dev: dev.sentences.length,
      devTokens: dev.sentences.reduce((a, s) => a + s.tokens.length, 0),
      groups: viterbi.groups.length,
      withFactors: linked(viterbi).length,
      largestPositions: Math.max(0, ...viterbi.groups.map((g) => g.positions)),
    },
    model: {
      trainDecoder,
      crfIterations,
      folds,
      epochs,
      weights: Object.fromEntries(
        Array.from(trained.consistency.weights, (w, f) => [names[f] ?? String(f), w] as const),
      ),
      crfSeconds: prepared.crfMs / 1000,
      perceptronSeconds: trained.perceptronMs / 1000,
    },
    viterbi: { seconds: viterbiSeconds, f: fMicro(gold, viterbi.labels) },
    decompositions,
    exact,
  };
}

/** The section: every task reachable, AD3 step against subgradient step. */
export async function ad3TaskSection(options: Ad3TaskOptions = {}): Promise<Ad3TaskResult> {
  const o: Resolved = {
    ...options,
    subgradientIterations: options.subgradientIterations ?? 200,
    ad3Iterations: options.ad3Iterations ?? 1000,
    exactTimeLimitMs: options.exactTimeLimitMs ?? 10_000,
    status: options.onStatus ?? (() => undefined),
    cacheDir: options.cacheDir ?? BENCH_CACHE_DIR,
  };
  const tasks: Ad3TaskEntry[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const unavailable = (id: string, error: unknown): boolean => {
    if (!(error instanceof LagrangeError && error.code === "unavailable")) return false;
    skipped.push({ id, reason: error.message });
    return true;
  };
  for (const id of options.tasks ?? AD3_TASKS) {
    if (id === "umass") {
      try {
        tasks.push(await citationTask(o));
      } catch (error) {
        if (!unavailable(id, error)) throw error;
      }
      continue;
    }
    const splits = await openBenchSplits(
      id,
      { maxTrainSentences: options.maxTrainSentences, maxDevSentences: options.limit },
      (reason) => skipped.push({ id, reason }),
    );
    if (splits === null) continue;
    const { train, dev } = splits;
    o.status(`${id}: ${train.sentences.length} training, ${dev.sentences.length} dev sentences`);
    tasks.push(await groupTask(id, train, dev, o));
  }
  return {
    settings: {
      subgradientIterations: o.subgradientIterations,
      ad3Iterations: o.ad3Iterations,
      limit: options.limit ?? null,
      exactTimeLimitMs: o.exactTimeLimitMs,
    },
    tasks,
    skipped,
    targets: ad3TaskTargets(tasks),
  };
}

/** The issue's targets on the tasks, against what was measured (null: that task was not run). */
export function ad3TaskTargets(tasks: readonly Ad3TaskEntry[]): Ad3TaskResult["targets"] {
  const umass = tasks.find((t): t is CitationTaskResult => t.kind === "citations");
  const wnut = tasks.find((t): t is GroupTaskResult => t.kind === "groups" && t.id === "wnut16");
  const ad3Timing = umass?.timing[2];
  const twoSlave = wnut?.decompositions.find((d) => d.decoder === "two-slave");
  const ilp = wnut?.exact.find((e) => e.decoder.startsWith("exact ILP"));
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  return [
    {
      name: "UMass Soft-DD, AD3 step: ≥ 99.5 % certified",
      value: umass === undefined ? "not run" : pct(umass.ad3.certifiedRate),
      met: umass === undefined ? null : umass.ad3.certifiedRate >= 0.995,
    },
    {
      name: "UMass Soft-DD, AD3 step: decoding ≤ 1.3× Viterbi (timing harness)",
      value: ad3Timing === undefined ? "not run" : `${ad3Timing.decodingRatio.toFixed(2)}×`,
      met: ad3Timing === undefined ? null : ad3Timing.decodingRatio <= 1.3,
    },
    {
      name: "UMass Soft-DD, AD3 step: field F1 unchanged (within 0.1 of the subgradient step's)",
      value:
        umass === undefined
          ? "not run"
          : `${umass.ad3.f.toFixed(2)} vs ${umass.subgradient.f.toFixed(2)}`,
      met: umass === undefined ? null : Math.abs(umass.ad3.f - umass.subgradient.f) <= 0.1,
    },
    ...(wnut?.decompositions ?? []).map((d) => ({
      name: `WNUT-16 ${d.decoder}, AD3 step: ≥ 99 % of groups certified within the time of ${d.subgradient.maxIterations} subgradient iterations`,
      value: `${pct(d.ad3CertifiedAtSubgradientTime)} (subgradient ${pct(d.subgradient.certifiedRate)}; AD3 uncapped ${pct(d.ad3.certifiedRate)})`,
      met: d.ad3CertifiedAtSubgradientTime >= 0.99,
    })),
    {
      name: "WNUT-16: exact ILP ≥ 40× slower than two-slave AD3 at equal F",
      value:
        ilp === undefined || twoSlave === undefined
          ? "not run"
          : `${ilp.overAd3.toFixed(1)}× (F ${ilp.f.toFixed(2)} vs ${twoSlave.ad3.f.toFixed(2)})`,
      met:
        ilp === undefined || twoSlave === undefined
          ? null
          : ilp.overAd3 >= 40 && Math.abs(ilp.f - twoSlave.ad3.f) < 0.5,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Report.

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const f2 = (x: number) => x.toFixed(2);

function stepRow(label: string, r: StepRun): (string | number)[] {
  return [
    label,
    r.maxIterations,
    f2(r.f),
    pct(r.certifiedRate),
    r.meanIterations.toFixed(2),
    r.meanDual.toFixed(3),
    r.seconds.toFixed(3),
    `${r.overViterbi.toFixed(2)}×`,
    r.msPerIteration.toFixed(3),
    r.uncertified === 0 ? "0" : `${r.uncertified} (${r.uncertifiedMeanIterations.toFixed(0)} it.)`,
  ];
}

const STEP_HEADER = [
  "decoder, step",
  "cap",
  "F",
  "certified",
  "mean it.",
  "mean dual",
  "decode s",
  "× Viterbi",
  "ms / it.",
  "uncertified (mean it.)",
];

function citationMarkdown(t: CitationTaskResult): string {
  return [
    `### UMass citations, Soft-DD (${t.generated ? "GENERATED citations — not UMass" : t.data})`,
    "",
    `${t.testCitations} test citations, ${t.constraints} learned constraints (the soft-dd-citations pipeline: all families, segment unit, imp ≥ 2.75, averaged perceptron). Viterbi field F1 ${f2(t.viterbiF1)}. Rates over every citation; F = field F1; decode s = the traced pass (a timestamp per iteration).`,
    "",
    markdownTable(STEP_HEADER, [
      stepRow("Soft-DD, subgradient", t.subgradient),
      stepRow("Soft-DD, AD3", t.ad3),
    ]),
    "Decode time (the timing harness: warm, alternating runs, medians; decoding = scores → labels):",
    "",
    timingTable(t.timing),
  ].join("\n");
}

function groupMarkdown(t: GroupTaskResult): string {
  const s = t.sizes;
  const m = t.model;
  const rows = t.decompositions.flatMap((d) => [
    stepRow(`${d.decoder}, subgradient`, d.subgradient),
    stepRow(`${d.decoder}, AD3`, d.ad3),
  ]);
  const budget = t.decompositions.map(
    (d) =>
      `${d.decoder}: AD3 certifies ${pct(d.ad3CertifiedAtSubgradientTime)} of groups within the ${d.subgradient.seconds.toFixed(2)} s the subgradient pass took (which certified ${pct(d.subgradient.certifiedRate)}); AD3 reaches that rate after ${d.ad3SecondsToSubgradientRate === null ? "— (never)" : `${d.ad3SecondsToSubgradientRate.toFixed(2)} s`}`,
  );
  return [
    `### ${t.id}: general-CRF ${t.grouping === "tweets" ? "tweet groups" : "documents"}`,
    "",
    `Train ${s.train} sentences → dev ${s.dev} (${s.devTokens} tokens), ${s.groups} groups, ${s.withFactors} with consistency factors (largest ${s.largestPositions} positions). Model: chain CRF (ner-words, ${m.crfIterations} L-BFGS iterations, ${m.folds} jackknife folds, ${m.crfSeconds.toFixed(0)} s) + consistency weights by averaged perceptron through ${m.trainDecoder} (${m.epochs} epochs, ${m.perceptronSeconds.toFixed(0)} s). Viterbi (chain only): F micro ${f2(t.viterbi.f)}, ${t.viterbi.seconds.toFixed(3)} s. Rates and duals over the groups with factors.`,
    "",
    markdownTable(STEP_HEADER, rows),
    `${budget.join(". ")}.`,
    "",
    ...(t.exact.length === 0
      ? []
      : [
          "Exact decoding:",
          "",
          markdownTable(
            ["decoder", "decode s", "F micro", "solved", "× two-slave AD3"],
            t.exact.map((e) => [
              e.decoder,
              e.seconds.toFixed(2),
              f2(e.f),
              pct(e.solvedRate),
              `${e.overAd3.toFixed(1)}×`,
            ]),
          ),
        ]),
    `Curves (SVG beside the JSON): ${t.id}-ad3-certified.svg, ${t.id}-ad3-dual.svg.`,
    "",
  ].join("\n");
}

export function ad3TaskMarkdown(r: Ad3TaskResult): string {
  const s = r.settings;
  return [
    "## The project's tasks: AD3 step vs subgradient step",
    "",
    `Same decoders (so the same slaves), same models, same run; only the master's step differs. Caps: subgradient ${s.subgradientIterations} iterations (today's), AD3 ${s.ad3Iterations}; the decoders' own stall rules apply to both.${s.limit === null ? "" : ` Smoke sample: the first ${s.limit} test citations / dev sentences.`}`,
    "",
    ...(r.skipped.length === 0
      ? []
      : [`Skipped: ${r.skipped.map((x) => `${x.id} (${x.reason})`).join("; ")}.`, ""]),
    ...r.tasks.map((t) => (t.kind === "citations" ? citationMarkdown(t) : groupMarkdown(t))),
    "**Targets (tasks)**",
    "",
    targetsTable(r.targets),
  ].join("\n");
}

/** Certified share and mean dual against decoding time, per task, as SVG files in `folder`. */
export async function writeAd3TaskFigures(r: Ad3TaskResult, folder: string): Promise<string[]> {
  const written: string[] = [];
  for (const t of r.tasks) {
    const runs: [string, StepRun][] =
      t.kind === "citations"
        ? [
            ["Soft-DD subgradient", t.subgradient],
            ["Soft-DD AD3", t.ad3],
          ]
        : t.decompositions.flatMap((d): [string, StepRun][] => [
            [`${d.decoder} subgradient`, d.subgradient],
            [`${d.decoder} AD3`, d.ad3],
          ]);
    const figures = [
      {
        file: `${t.id}-ad3-certified.svg`,
        title: `${t.id}: certificates against decoding time`,
        y: "% certified",
        v: (p: TracePoint) => 100 * p.certifiedRate,
      },
      {
        file: `${t.id}-ad3-dual.svg`,
        title: `${t.id}: mean best dual against decoding time`,
        y: "mean dual (lower is tighter)",
        v: (p: TracePoint) => p.meanDual,
      },
    ];
    for (const f of figures) {
      const path = join(folder, f.file);
      await writeReport(
        path,
        lineChartSvg({
          title: f.title,
          xLabel: "decoding time (s)",
          yLabel: f.y,
          series: runs.map(([name, run]) => ({
            name,
            points: run.curve.map((p) => [p.seconds, f.v(p)] as const),
          })),
        }),
      );
      written.push(path);
    }
  }
  return written;
}
