/**
 * corro's Tables 1–3 on this library's linear features: CRF / mean-field / Bcrf training × Viterbi
 * / mean-field / Bcrf decoding (k = 5 and 10), on UD English EWT (UPOS accuracy, train → dev) and
 * CoNLL-2003 (conlleval F1, train → testa), supervised and partially supervised (Huang et al.
 * 2019: four training subsets, each annotated with one entity type only); the training- and
 * decoding-time ratios against forward-backward and Viterbi measured in the same run; and IBP's
 * convergence (largest marginal-constraint violation per half-step). The pipeline behind
 * `pnpm bench bcrf`.
 */
import {
  type BcrfDecodeOptions,
  BcrfWorkspace,
  bcrfInference,
  emptyChainInput,
  loadChainScores,
  type TrainingObjectiveName,
  trainingObjective,
} from "@lagrange/bcrf";
import {
  type AttributeSequence,
  type CrfModel,
  getPreset,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import type { Decoder } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import { evaluateChunks, evaluateTokens, type SchemeName } from "@lagrange/datasets";
import {
  cachedModel,
  cacheModel,
  chainTagger,
  median,
  modelCacheKey,
  modelDecodingConstraints,
  sentenceAttributes,
  standardDecoders,
  timeTaggers,
  trainOnCorpus,
} from "@lagrange/recipes";
import { openBenchSplits } from "../bench-splits.js";
import { bcrfCrossover, type CrossoverResult } from "./crossover.js";

/**
 * The suite's datasets: registry names, and `conll2003-bioes`, CoNLL-2003 relabelled from IOB1 to
 * BIOES — the paper's BIES-style setting, where the scheme's mask forbids most label pairs and
 * −∞ transitions matter (IOB1 forbids only B-X after anything but X).
 */
export const BCRF_DATASETS = ["ud-en-ewt", "conll2003", "conll2003-bioes"] as const;
export type BcrfDatasetName = (typeof BCRF_DATASETS)[number];

const SETTINGS: Record<
  BcrfDatasetName,
  { preset: string; metric: "accuracy" | "f1"; registry: string; relabel?: SchemeName }
> = {
  "ud-en-ewt": { preset: "pos", metric: "accuracy", registry: "ud-en-ewt" },
  conll2003: { preset: "ner", metric: "f1", registry: "conll2003" },
  "conll2003-bioes": { preset: "ner", metric: "f1", registry: "conll2003", relabel: "BIOES" },
};

export interface BcrfBenchmarkOptions {
  readonly datasets?: readonly BcrfDatasetName[];
  /** L-BFGS iterations of every model (default 100). */
  readonly trainIterations?: number;
  /** IBP half-steps / unrolled MF updates per training loss (default 10, the paper's). */
  readonly trainingInferenceIterations?: number;
  /** Decoding iteration counts of the approximate decoders (default 5 and 10). */
  readonly decodeIterations?: readonly number[];
  readonly threads?: number;
  /** Run the partially supervised CoNLL-2003 experiment (default true). */
  readonly partial?: boolean;
  /** Train on the first n training sentences only (a quick run). */
  readonly maxTrainSentences?: number;
  /** Evaluate on the first n dev sentences only. */
  readonly maxDevSentences?: number;
  /** Loss evaluations timed per objective for the training-time ratio (default 3). */
  readonly timingRepeats?: number;
  /** Sequence lengths of the threaded-Bcrf vs Viterbi crossover (default 20 … 100,000; [] skips it). */
  readonly crossoverLengths?: readonly number[];
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** One cell of the Table 1 analogue. */
export interface BcrfCell {
  readonly training: string;
  /** viterbi, mean-field-k, bcrf-k, bcrf-mbr-k. */
  readonly decoding: string;
  /** Token accuracy (EWT) or conlleval F1 (CoNLL), in %. */
  readonly score: number;
  /** Sentences whose labels break the scheme's transition mask (invalid BIO). */
  readonly invalid: number;
  /** Decoding the evaluation split from precomputed scores once, after a warm-up, seconds. */
  readonly decodeSeconds: number;
}

export interface TrainingTiming {
  readonly objective: string;
  /** One full loss + gradient evaluation over the training split, seconds (median). */
  readonly secondsPerEvaluation: number;
  /** ÷ the CRF's (forward-backward) in the same run. */
  readonly ratioToCrf: number;
}

export interface DecodingTiming {
  readonly decoding: string;
  /** The decoder's own work (chain scores → labels), seconds for the split. */
  readonly inferenceSeconds: number;
  /** `lagrange tag`'s whole path (features, scores, decoding), seconds for the split. */
  readonly endToEndSeconds: number;
  readonly inferenceRatio: number;
  readonly endToEndRatio: number;
}

export interface ConvergencePoint {
  readonly iteration: number;
  /** Mean and largest (over sentences) violation of the marginal constraints after the half-step. */
  readonly mean: number;
  readonly max: number;
}

export interface BcrfDatasetResult {
  readonly dataset: BcrfDatasetName;
  readonly metric: "accuracy" | "f1";
  readonly trainSentences: number;
  readonly evalSentences: number;
  readonly labels: number;
  readonly supervised: readonly BcrfCell[];
  readonly partial?: readonly BcrfCell[];
  readonly training: readonly TrainingTiming[];
  readonly trainingSeconds: Readonly<Record<string, number | null>>;
  readonly decoding: readonly DecodingTiming[];
  /** τ = 0.1 (decoding) and τ = 1 (training), on the Bcrf-trained model's scores. */
  readonly convergence: { readonly tau: number; readonly points: readonly ConvergencePoint[] }[];
}

export interface BcrfBenchmarkResult {
  readonly settings: {
    readonly trainIterations: number;
    readonly trainingInferenceIterations: number;
    readonly decodeIterations: readonly number[];
    readonly threads: number;
    readonly maxTrainSentences: number | null;
    readonly maxDevSentences: number | null;
  };
  readonly datasets: readonly BcrfDatasetResult[];
  /** Threaded Bcrf (k = 5, the training threads) vs sequential Viterbi on random chains, L = 17. */
  readonly crossover: CrossoverResult | null;
  readonly unavailable: readonly { readonly dataset: string; readonly reason: string }[];
}

/** Everything about one split the runs share. */
interface Split {
  readonly corpus: Corpus;
  readonly attributes: AttributeSequence[];
  readonly gold: string[][];
}

export async function bcrfBenchmark(
  options: BcrfBenchmarkOptions = {},
): Promise<BcrfBenchmarkResult> {
  const status = options.onStatus ?? (() => {});
  const trainIterations = options.trainIterations ?? 100;
  const inner = options.trainingInferenceIterations ?? 10;
  const decodeIterations = options.decodeIterations ?? [5, 10];
  const threads = options.threads ?? 2;
  const datasets: BcrfDatasetResult[] = [];
  const unavailable: { dataset: string; reason: string }[] = [];
  for (const name of options.datasets ?? BCRF_DATASETS) {
    const splits = await openBenchSplits(
      SETTINGS[name].registry,
      {
        relabel: SETTINGS[name].relabel,
        maxTrainSentences: options.maxTrainSentences,
        maxDevSentences: options.maxDevSentences,
      },
      (reason) => unavailable.push({ dataset: name, reason }),
    );
    if (splits === null) continue;
    const { train, dev } = splits;
    const { preset: presetName, metric } = SETTINGS[name];
    const preset = getPreset(presetName);
    const split = (corpus: Corpus): Split => ({
      corpus,
      attributes: corpus.sentences.map((s) => sentenceAttributes(preset, s)),
      gold: corpus.sentences.map((s) => s.labels ?? []),
    });
    const trainSplit = split(train);
    const devSplit = split(dev);
    status(
      `${name}: ${train.sentences.length} training, ${dev.sentences.length} evaluation sentences`,
    );

    const models = new Map<string, CrfModel>();
    const trainingSeconds: Record<string, number | null> = {};
    for (const objective of ["crf", "mean-field", "bcrf"] as const) {
      const { model, seconds } = await trainModel(name, objective, trainSplit, {
        presetName,
        trainIterations,
        inner,
        threads,
        partial: false,
        options,
      });
      models.set(objective, model);
      trainingSeconds[objective] = seconds;
    }
    const labels = models.get("crf")!.labels.names();
    const evaluate = metricOf(metric);
    const registry = standardDecoders();
    const decoders: { name: string; decoder: Decoder; options: BcrfDecodeOptions }[] = [
      { name: "viterbi", decoder: registry.create("viterbi"), options: {} },
    ];
    for (const k of decodeIterations) {
      decoders.push({
        name: `mean-field-${k}`,
        decoder: registry.create("mean-field"),
        options: { iterations: k },
      });
      decoders.push({
        name: `bcrf-${k}`,
        decoder: registry.create("bcrf"),
        options: { iterations: k },
      });
      decoders.push({
        name: `bcrf-mbr-${k}`,
        decoder: registry.create("bcrf"),
        options: { iterations: k, output: "mbr" },
      });
    }
    const table = (trained: Map<string, CrfModel>): BcrfCell[] => {
      const cells: BcrfCell[] = [];
      for (const [training, model] of trained) {
        status(`${name}: decoding with the ${training}-trained model`);
        // A model file stores the scheme, not its mask: decode under the scheme's constraints.
        const constraints = modelDecodingConstraints(model);
        const scores = devSplit.attributes.map((a) => model.chainScores(a, { constraints }));
        for (const d of decoders) {
          // Warm the decoder up (JIT, buffers) on a prefix before timing the split.
          for (const s of scores.slice(0, 100)) d.decoder.decode({ scores: s }, d.options);
          const started = performance.now();
          const decoded = scores.map((s) => d.decoder.decode({ scores: s }, d.options));
          const seconds = (performance.now() - started) / 1000;
          const names = model.labels.names();
          const predicted = decoded.map((r) => Array.from(r.labels, (id) => names[id]!));
          cells.push({
            training,
            decoding: d.name,
            score: evaluate(devSplit.gold, predicted),
            invalid: decoded.filter((r) => r.primal === Number.NEGATIVE_INFINITY).length,
            decodeSeconds: seconds,
          });
        }
      }
      return cells;
    };
    const supervised = table(models);

    let partial: BcrfCell[] | undefined;
    if (name === "conll2003" && options.partial !== false) {
      const partialSplit = partiallyAnnotated(trainSplit);
      const partialModels = new Map<string, CrfModel>();
      for (const objective of ["crf", "bcrf"] as const) {
        const { model, seconds } = await trainModel(name, objective, partialSplit, {
          presetName,
          trainIterations,
          inner,
          threads,
          partial: true,
          options,
        });
        partialModels.set(`${objective}-partial`, model);
        trainingSeconds[`${objective}-partial`] = seconds;
      }
      partial = table(partialModels);
    }

    status(`${name}: timing the training objectives`);
    const training = timeObjectives(trainSplit, inner, options.timingRepeats ?? 3, labels);
    status(`${name}: timing the decoders`);
    const decoding = await timeDecoders(models.get("bcrf")!, devSplit, decoders, options.signal);
    const convergence = [0.1, 1].map((tau) => ({
      tau,
      points: convergenceCurve(models.get("bcrf")!, devSplit, tau, 40),
    }));
    datasets.push({
      dataset: name,
      metric,
      trainSentences: train.sentences.length,
      evalSentences: dev.sentences.length,
      labels: labels.length,
      supervised,
      ...(partial === undefined ? {} : { partial }),
      training,
      trainingSeconds,
      decoding,
      convergence,
    });
  }
  const lengths = options.crossoverLengths ?? [20, 100, 1000, 10_000, 100_000];
  let crossover: CrossoverResult | null = null;
  if (lengths.length > 0) {
    status(`crossover: threaded Bcrf vs Viterbi at n = ${lengths.join(", ")}`);
    crossover = await bcrfCrossover({ lengths, threads: Math.max(2, threads) });
  }
  return {
    settings: {
      trainIterations,
      trainingInferenceIterations: inner,
      decodeIterations,
      threads,
      maxTrainSentences: options.maxTrainSentences ?? null,
      maxDevSentences: options.maxDevSentences ?? null,
    },
    datasets,
    crossover,
    unavailable,
  };
}

function metricOf(metric: "accuracy" | "f1") {
  return (gold: string[][], predicted: string[][]) =>
    metric === "accuracy"
      ? 100 * evaluateTokens(gold, predicted).accuracy
      : 100 * evaluateChunks(gold, predicted).f1;
}

/**
 * Huang et al. (2019) as corro: the training sentences cut into four contiguous subsets, subset
 * k annotated with entity type k only — its mentions keep their gold B-/I- labels, every other
 * token may be anything but a type-k label (it is O or another type, unannotated).
 */
function partiallyAnnotated(split: Split): Split {
  const types = [
    ...new Set(split.gold.flat().flatMap((l) => (l === "O" ? [] : [l.slice(2)]))),
  ].sort();
  const labelNames = [...new Set(split.gold.flat())].sort();
  const sentences = split.corpus.sentences;
  const per = Math.ceil(sentences.length / types.length);
  const gold = split.gold.map((labels, s) => {
    const type = types[Math.min(types.length - 1, Math.floor(s / per))]!;
    const others = `{${labelNames.filter((l) => l.slice(2) !== type).join(",")}}`;
    return labels.map((l) => (l !== "O" && l.slice(2) === type ? l : others));
  });
  return {
    corpus: {
      ...split.corpus,
      sentences: sentences.map((s, i) => ({ ...s, labels: gold[i]! })),
    },
    attributes: split.attributes,
    gold,
  };
}

async function trainModel(
  dataset: string,
  objective: TrainingObjectiveName,
  split: Split,
  o: {
    presetName: string;
    trainIterations: number;
    inner: number;
    threads: number;
    partial: boolean;
    options: BcrfBenchmarkOptions;
  },
): Promise<{ model: CrfModel; seconds: number | null }> {
  const status = o.options.onStatus ?? (() => {});
  const name = `bcrf-${dataset}-${objective}${o.partial ? "-partial" : ""}`;
  const key = modelCacheKey(
    split.attributes.map((attributes, i) => ({ attributes, labels: split.gold[i]! })),
    {
      preset: o.presetName,
      objective,
      iterations: o.trainIterations,
      inner: o.inner,
      partial: o.partial,
    },
  );
  if (o.options.cacheDir !== undefined) {
    const model = await cachedModel(o.options.cacheDir, name, key);
    if (model !== undefined) {
      status(`${name}: from the cache (${key})`);
      return { model, seconds: null };
    }
  }
  status(`${name}: training (${o.trainIterations} L-BFGS iterations, ${o.threads} threads)…`);
  const trained = await trainOnCorpus(split.corpus, {
    preset: o.presetName,
    attributes: split.attributes,
    algorithm: "lbfgs",
    maxIterations: o.trainIterations,
    threads: o.threads,
    partialLabels: o.partial,
    ...withObjective(trainingObjective(objective, { iterations: o.inner })),
    ...(o.options.signal === undefined ? {} : { signal: o.options.signal }),
  });
  if (o.options.cacheDir !== undefined)
    await cacheModel(o.options.cacheDir, name, key, trained.model);
  status(`${name}: trained in ${trained.seconds.toFixed(1)} s (${trained.iterations} iterations)`);
  return { model: trained.model, seconds: trained.seconds };
}

function withObjective<T>(objective: T | undefined): { objective?: T } {
  return objective === undefined ? {} : { objective };
}

/**
 * Seconds per full loss + gradient evaluation over the training split, one thread, per
 * objective; the CRF's forward-backward is the baseline of the ratio.
 */
function timeObjectives(
  split: Split,
  inner: number,
  repeats: number,
  labels: readonly string[],
): TrainingTiming[] {
  const data = prepareTrainingData(
    split.attributes.map((attributes, i) => ({ attributes, labels: split.gold[i]! })),
    { labels },
  );
  const { encoder } = data;
  const weights = new Float64Array(encoder.numWeights);
  const gradient = new Float64Array(encoder.numWeights);
  // Weights from a few steps of nothing: small random ones, so every objective sees the same.
  let seed = 12345;
  for (let k = 0; k < weights.length; k++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    weights[k] = (seed / 2 ** 31 - 0.5) * 0.2;
  }
  const out: TrainingTiming[] = [];
  let crf = 0;
  for (const objective of ["crf", "mean-field", "bcrf"] as const) {
    encoder.setObjective(trainingObjective(objective, { iterations: inner }) ?? null);
    const times: number[] = [];
    for (let r = 0; r < repeats; r++) {
      gradient.fill(0);
      const started = performance.now();
      encoder.rangeLoss(0, encoder.numInstances, weights, gradient);
      times.push((performance.now() - started) / 1000);
    }
    const seconds = median(times);
    if (objective === "crf") crf = seconds;
    out.push({ objective, secondsPerEvaluation: seconds, ratioToCrf: seconds / crf });
  }
  return out;
}

/**
 * The decoders on the Bcrf-trained model through the one timing harness: `lagrange tag`'s path
 * (features → scores → decoder), warm-up first, runs alternating, Viterbi as the baseline.
 */
async function timeDecoders(
  model: CrfModel,
  split: Split,
  decoders: readonly { name: string; decoder: Decoder; options: BcrfDecodeOptions }[],
  signal: AbortSignal | undefined,
): Promise<DecodingTiming[]> {
  const timed = decoders.filter((d) => !d.name.includes("-mbr-"));
  const taggers = timed.map((d) =>
    chainTagger(model, { decoder: d.decoder, decodeOptions: d.options }),
  );
  const timings = await timeTaggers(taggers, split.corpus.sentences, {
    runs: 3,
    ...(signal === undefined ? {} : { signal }),
  });
  return timings.map((t, k) => ({
    decoding: timed[k]!.name,
    inferenceSeconds: t.decodingMs / 1000,
    endToEndSeconds: t.taggingMs / 1000,
    inferenceRatio: t.decodingRatio,
    endToEndRatio: t.taggingRatio,
  }));
}

/** Violation after each half-step, over the evaluation sentences of length ≥ 3. */
function convergenceCurve(
  model: CrfModel,
  split: Split,
  tau: number,
  halfSteps: number,
): ConvergencePoint[] {
  const sum = new Float64Array(halfSteps + 1);
  const max = new Float64Array(halfSteps + 1);
  const count = new Float64Array(halfSteps + 1);
  const ws = new BcrfWorkspace();
  const scorer = model.scorer(modelDecodingConstraints(model));
  const input = emptyChainInput();
  for (const attributes of split.attributes) {
    const s = scorer.score(attributes);
    if (s.n < 3) continue;
    loadChainScores(s, input);
    // The violation reported at half-step i is that of iterate i − 1 (what the step started from).
    bcrfInference(
      input,
      {
        iterations: halfSteps + 1,
        temperature: tau,
        onIteration(i, v) {
          if (i < 2 || !Number.isFinite(v)) return;
          sum[i - 1]! += v;
          max[i - 1] = Math.max(max[i - 1]!, v);
          count[i - 1]! += 1;
        },
      },
      ws,
    );
  }
  const points: ConvergencePoint[] = [];
  for (let i = 1; i <= halfSteps; i++) {
    if (count[i] === 0) continue;
    points.push({ iteration: i, mean: sum[i]! / count[i]!, max: max[i]! });
  }
  return points;
}
