/**
 * `pnpm bench accuracy` (issue 27, deliverable 6): per dataset, the task's models row by row —
 * the base feature preset, + Brown clusters, + lexicons (gazetteers and jackknifed mined ones),
 * then the two non-local steps over the last of those: two-stage votes (Krishnan & Manning 2006)
 * and the general CRF over documents or tweet groups — each trained through the library's one
 * training path (`trainingFeatures` then `trainOnCorpus`, as `lagrange train` does) on train less
 * a held-out fold, and scored on that fold and on the dev split through the path of `lagrange
 * tag` (`openTagger` on the model's bytes), with percentile-bootstrap intervals over sentences.
 */
import { type CrfModel, modelToBytes, type TrainingProgress } from "@lagrange/chain-crf";
import { LagrangeError, seededRandom, throwIfAborted } from "@lagrange/core";
import {
  type Corpus,
  f1FromCounts,
  LabellingScorer,
  type LabelScheme,
  type PairedBootstrapResult,
  pairedBootstrap,
  scoreLabelling,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import {
  type ClusterLanguage,
  definedFields,
  type FeatureRequest,
  type GroupingKind,
  getTaskPreset,
  isTagFailure,
  isTaskPreset,
  jackknifeFolds,
  languageClusters,
  openTagger,
  openTrainer,
  type ResourceOptions,
  type TaskPreset,
  type Trainer,
  type TrainingFeatures,
  trainingFeatures,
} from "@lagrange/recipes";
import { markdownTable } from "../report.js";

/**
 * The rows, in order: each chain row adds to the one before; the two non-local rows each build on
 * the last chain row that ran (lexicons, where the task has them).
 */
export const ACCURACY_ROWS = ["baseline", "clusters", "lexicons", "two-stage", "general"] as const;
export type AccuracyRowName = (typeof ACCURACY_ROWS)[number];

/** What each row adds, for the report. */
const ROW_TITLES: Readonly<Record<AccuracyRowName, string>> = {
  baseline: "baseline (base feature preset)",
  clusters: "+ Brown clusters",
  lexicons: "+ lexicons (gazetteers, mined)",
  "two-stage": "+ two-stage votes",
  general: "+ general CRF (DD)",
};

/** A dataset of the bench: where its splits are and which task it is. */
export interface AccuracyDataset {
  readonly name: string;
  /** `openCorpus` specs: a registry `name:split` or a file. */
  readonly train: string;
  /** Null where the dataset has no dev split (CoNLL-2000); never a test split. */
  readonly dev: string | null;
  /** A task preset (`ner-en`, …) or a feature preset (`chunking`). */
  readonly task: string;
  /** With a feature preset: the language whose Brown clusters the clusters row adds. */
  readonly clusters?: ClusterLanguage;
  /** How the general CRF groups sentences; null: no general-CRF row (not a span task). */
  readonly groups: GroupingKind | null;
}

export const ACCURACY_DATASETS: readonly AccuracyDataset[] = [
  {
    name: "conll2003",
    train: "conll2003:train",
    dev: "conll2003:dev",
    task: "ner-en",
    groups: "documents",
  },
  {
    name: "conll2002-es",
    train: "conll2002-es:train",
    dev: "conll2002-es:dev",
    task: "ner-es",
    groups: "documents",
  },
  {
    name: "conll2002-nl",
    train: "conll2002-nl:train",
    dev: "conll2002-nl:dev",
    task: "ner-nl",
    groups: "documents",
  },
  {
    name: "wnut16",
    train: "wnut16:train",
    dev: "wnut16:dev",
    task: "ner-tweets",
    groups: "tweets",
  },
  {
    name: "wnut17",
    train: "wnut17:train",
    dev: "wnut17:dev",
    task: "ner-tweets",
    groups: "tweets",
  },
  {
    name: "ud-en-ewt",
    train: "ud-en-ewt:train",
    dev: "ud-en-ewt:dev",
    task: "pos-en",
    groups: null,
  },
  {
    name: "conll2000",
    train: "conll2000:train",
    dev: null,
    task: "chunking",
    clusters: "en",
    groups: null,
  },
];

/** The held-out cut: fold {@link HELD_OUT_FOLD} of {@link HELD_OUT_FOLDS} (recipes' jackknifeFolds). */
export const HELD_OUT_FOLDS = 10;
export const HELD_OUT_FOLD = 9;

/** `--quick`: training sentences and L-BFGS iterations. */
export const QUICK = { trainSentences: 2000, maxIterations: 30 } as const;

export interface AccuracyOptions {
  /** Names of {@link ACCURACY_DATASETS}, or datasets given in full (files: the tests). */
  readonly datasets?: readonly (string | AccuracyDataset)[];
  readonly rows?: readonly AccuracyRowName[];
  /** Default: the task preset's (CoNLL-2000: 200); quick 30. */
  readonly maxIterations?: number;
  /** Training threads (default 2). */
  readonly threads?: number;
  readonly quick?: boolean;
  /** Keep the first n training sentences (quick: 2,000), before the held-out cut. */
  readonly maxTrainSentences?: number;
  /** A folder with `clusters-<language>.paths` and `<lexicon>.txt` files (trainingFeatures'). */
  readonly resourcesDir?: string;
  /** Bootstrap resamples (default 1,000) and seed (default 1). */
  readonly bootstrapSamples?: number;
  readonly seed?: number;
  readonly signal?: AbortSignal;
  readonly onStatus?: (message: string) => void;
}

/** A score with its percentile-bootstrap interval, in percent. */
export interface ScoredSplit {
  readonly split: string;
  readonly sentences: number;
  /** Chunk F1 (conlleval under the scheme) or token accuracy, %. */
  readonly score: number;
  readonly interval: readonly [number, number];
  /** Score minus that of the row this one builds on (`builtOn`), in points; null for the first. */
  readonly delta: number | null;
}

export interface AccuracyRow {
  readonly row: AccuracyRowName;
  /** The row whose model this one adds to (deltas are against it); null for the first row. */
  readonly builtOn: AccuracyRowName | null;
  /** What the features were (the request given to trainingFeatures), for the report. */
  readonly features: string;
  readonly heldOut: ScoredSplit;
  readonly dev: ScoredSplit | null;
  /** Feature resolution (clusters, lexicon mining) + training, seconds. */
  readonly trainSeconds: number;
  readonly iterations: number;
  readonly stopReason: string;
  readonly numFeatures: number;
  /** The general CRF: perceptron epochs' mistakes, certified share, its held-out choice. */
  readonly general?: {
    readonly groups: GroupingKind;
    readonly mistakes: readonly number[];
    readonly certified: number;
    readonly linkedGroups: number;
    /** What training chose on its own held-out cut (recipes' ConsistencySelection), if it did. */
    readonly selection?: {
      readonly epochs: number;
      readonly scale: number;
      readonly chainScore: number;
      readonly generalScore: number;
    };
  };
  /** Two-stage: first-stage folds and the training tokens with a vote of each kind. */
  readonly twoStage?: {
    readonly folds: number;
    readonly firstStageSeconds: number;
    readonly voted: { readonly dtok: number; readonly dent: number; readonly ctok: number };
  };
}

export interface PairedComparison {
  readonly from: AccuracyRowName;
  readonly to: AccuracyRowName;
  readonly split: string;
  readonly delta: number;
  /** 95 % interval of the resampled deltas, points. */
  readonly interval: readonly [number, number];
  readonly pValue: number;
  readonly samples: number;
}

export interface AccuracyDatasetResult {
  readonly dataset: string;
  readonly task: string;
  readonly metric: "chunk-f1" | "accuracy";
  readonly scheme: LabelScheme;
  readonly trainSentences: number;
  readonly heldOutSentences: number;
  readonly devSentences: number | null;
  readonly maxIterations: number;
  readonly rows: readonly AccuracyRow[];
  /** Rows asked for but not run, and why. */
  readonly skipped: readonly { readonly row: string; readonly why: string }[];
  /** baseline → lexicons and each non-local row against its base: paired bootstrap over sentences. */
  readonly comparisons: readonly PairedComparison[];
  readonly notes: readonly string[];
}

export interface AccuracyResult {
  readonly suite: "accuracy";
  readonly node: string;
  readonly settings: {
    readonly quick: boolean;
    readonly threads: number;
    readonly maxIterations: number | null;
    readonly maxTrainSentences: number | null;
    readonly bootstrapSamples: number;
    readonly seed: number;
    readonly heldOut: string;
  };
  readonly datasets: readonly AccuracyDatasetResult[];
  readonly unavailable: readonly { readonly dataset: string; readonly reason: string }[];
}

// ---------------------------------------------------------------------------------------------
// Scores per sentence, bootstrap

/** Per-sentence sufficient statistics of a labelling's score, row-major sentences × width. */
export interface SentenceStats {
  readonly units: number;
  readonly width: number;
  readonly stats: Float64Array;
  /** The corpus score (a fraction) from column sums. */
  readonly metric: (sums: Float64Array) => number;
}

/** Token accuracy from summed (correct, tokens). */
export function accuracyFromCounts(sums: Float64Array): number {
  const tokens = sums[1]!;
  return tokens > 0 ? sums[0]! / tokens : 0;
}

/**
 * Per-sentence statistics through datasets' one scorer (a scorer per sentence): chunk counts
 * (correct, predicted, gold) under the scheme, or (correct, tokens) for plain tags. Their sums give
 * the corpus score, since the scorer's chunk state ends at every sentence.
 */
export function sentenceStats(
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
  scheme: LabelScheme,
): SentenceStats {
  const accuracy = scheme === "none";
  const width = accuracy ? 2 : 3;
  const stats = new Float64Array(gold.length * width);
  for (let s = 0; s < gold.length; s++) {
    const scorer = new LabellingScorer(scheme);
    scorer.add(gold[s]!, predicted[s]!);
    const score = scorer.score();
    if (score.kind === "accuracy") {
      stats[s * 2] = score.correct;
      stats[s * 2 + 1] = score.tokens;
    } else {
      const e = score.evaluation;
      stats[s * 3] = e.correctChunks;
      stats[s * 3 + 1] = e.predictedChunks;
      stats[s * 3 + 2] = e.goldChunks;
    }
  }
  return { units: gold.length, width, stats, metric: accuracy ? accuracyFromCounts : f1FromCounts };
}

/**
 * The percentile bootstrap over units: `samples` resamples of the units with replacement (seeded),
 * the metric of each, and the 2.5 % and 97.5 % quantiles (drawn and read off as datasets'
 * pairedBootstrap does, so that the two agree).
 */
export function bootstrapInterval(
  input: SentenceStats,
  options: {
    readonly samples?: number;
    readonly seed?: number;
    readonly signal?: AbortSignal;
  } = {},
): [number, number] {
  const { units, width, stats, metric } = input;
  if (units < 1) throw new RangeError("bootstrapInterval: need at least one unit");
  const samples = options.samples ?? 1000;
  const random = seededRandom(options.seed ?? 1);
  const sums = new Float64Array(width);
  const values = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    if ((s & 63) === 0) throwIfAborted(options.signal);
    sums.fill(0);
    for (let draw = 0; draw < units; draw++) {
      const u = Math.floor(random() * units);
      for (let k = 0; k < width; k++) sums[k]! += stats[u * width + k]!;
    }
    values[s] = metric(sums);
  }
  values.sort();
  const quantile = (q: number) => values[Math.min(samples - 1, Math.floor(q * samples))]!;
  return [quantile(0.025), quantile(0.975)];
}

// ---------------------------------------------------------------------------------------------
// The suite

const pct = (x: number) => 100 * x;

type ChainRowName = "baseline" | "clusters" | "lexicons";

/** A row's features as trainingFeatures is asked for them, or why the row does not apply. */
async function rowRequest(
  row: ChainRowName,
  d: AccuracyDataset,
  task: TaskPreset | undefined,
  resources: ResourceOptions,
): Promise<{ request: FeatureRequest; text: string } | { why: string }> {
  if (row === "baseline") {
    const base = task?.base ?? d.task;
    return { request: { preset: base }, text: `preset ${base}` };
  }
  if (row === "clusters") {
    if (task !== undefined) {
      if (task.clusters === null) return { why: `task preset ${task.name} has no clusters` };
      return {
        request: { preset: task.name, use: { gazetteers: false, mined: false } },
        text: `${task.name} without gazetteers and mined lexicons`,
      };
    }
    if (d.clusters === undefined) return { why: `preset ${d.task} names no cluster language` };
    const clusters = await languageClusters(d.clusters, resources);
    return {
      request: { preset: d.task, clusterFiles: [clusters.file] },
      text: `preset ${d.task} + clusters-${d.clusters} (${clusters.words.length} words)`,
    };
  }
  if (task === undefined) return { why: `preset ${d.task} has no lexicons` };
  if (task.gazetteers.length === 0 && !task.mined) {
    return { why: `task preset ${task.name} has no gazetteers nor mined lexicons` };
  }
  return { request: { preset: task.name }, text: `${task.name} (all of it)` };
}

interface RowRun {
  readonly row: AccuracyRow;
  /** What trainingFeatures found or built (cluster files, gazetteers, mined lexicons). */
  readonly notes?: readonly string[];
  readonly heldOutStats: SentenceStats;
  readonly devStats: SentenceStats | null;
  /** The chain model and its features (the general CRF builds on the last one). */
  readonly chain?: {
    readonly model: CrfModel;
    readonly request: FeatureRequest;
    readonly features: TrainingFeatures;
    readonly text: string;
    /** Feature resolution, and that plus training. */
    readonly featureSeconds: number;
    readonly seconds: number;
  };
}

interface DatasetContext {
  readonly d: AccuracyDataset;
  readonly task: TaskPreset | undefined;
  readonly cut: Corpus;
  readonly heldOut: Corpus;
  readonly dev: Corpus | null;
  readonly scheme: LabelScheme;
  readonly maxIterations: number;
  readonly threads: number;
  readonly resources: ResourceOptions;
  readonly options: AccuracyOptions;
  readonly status: (message: string) => void;
}

/** The trainer of some features, as `lagrange train` opens it (the task preset's defaults). */
function trainerOf(c: DatasetContext, features: TrainingFeatures): Trainer {
  return openTrainer(
    {
      algorithm: "lbfgs",
      maxIterations: c.maxIterations,
      threads: c.threads,
      scheme: c.scheme,
      ...definedFields({ taskPreset: c.task?.name }),
    },
    { features, ...definedFields({ signal: c.options.signal }) },
  );
}

/** Every tenth iteration of a CRF's training, as a status line. */
function iterationStatus(c: DatasetContext, label: string) {
  return (p: TrainingProgress) => {
    if (p.iteration % 10 === 0) {
      c.status(`${label}: iteration ${p.iteration}, loss ${p.loss.toFixed(1)}`);
    }
  };
}

/** Tags a corpus with a model's bytes through `lagrange tag`'s path (openTagger), whatever its kind. */
async function tagWith(
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  signal: AbortSignal | undefined,
): Promise<string[][]> {
  const tagger = await openTagger(
    { model: bytes, modelName: name },
    signal === undefined ? {} : { signal },
  );
  const data = tagger.input(corpus, "required");
  const tagged = await tagger.tag(data.sentences, {
    stopAtFailure: true,
    ...(signal === undefined ? {} : { signal }),
  });
  return tagged.items.map((item) => {
    if (isTagFailure(item)) throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
    return [...item.labels];
  });
}

function goldOf(corpus: Corpus): string[][] {
  return corpus.sentences.map((s) => s.labels ?? []);
}

/** Scores a model's tagging of a split: the score, per-sentence statistics, the interval. */
async function scoreSplit(
  c: DatasetContext,
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  split: string,
): Promise<{ scored: Omit<ScoredSplit, "delta">; stats: SentenceStats }> {
  const predicted = await tagWith(bytes, name, corpus, c.options.signal);
  const gold = goldOf(corpus);
  const whole = scoreLabelling(gold, predicted, c.scheme);
  const score = whole.kind === "accuracy" ? whole.accuracy : whole.evaluation.f1;
  const stats = sentenceStats(gold, predicted, c.scheme);
  const [lo, hi] = bootstrapInterval(stats, {
    samples: c.options.bootstrapSamples ?? 1000,
    seed: c.options.seed ?? 1,
    ...(c.options.signal === undefined ? {} : { signal: c.options.signal }),
  });
  return {
    scored: {
      split,
      sentences: corpus.sentences.length,
      score: pct(score),
      interval: [pct(lo), pct(hi)],
    },
    stats,
  };
}

async function scoreRow(
  c: DatasetContext,
  bytes: Uint8Array,
  label: string,
): Promise<{
  heldOut: Omit<ScoredSplit, "delta">;
  dev: Omit<ScoredSplit, "delta"> | null;
  heldOutStats: SentenceStats;
  devStats: SentenceStats | null;
}> {
  c.status(`${label}: tagging the held-out fold and dev`);
  const h = await scoreSplit(c, bytes, label, c.heldOut, "held-out");
  const v = c.dev === null ? null : await scoreSplit(c, bytes, label, c.dev, "dev");
  return {
    heldOut: h.scored,
    dev: v?.scored ?? null,
    heldOutStats: h.stats,
    devStats: v?.stats ?? null,
  };
}

async function chainRow(
  c: DatasetContext,
  row: ChainRowName,
  builtOn: AccuracyRowName | null,
  request: FeatureRequest,
  text: string,
): Promise<RowRun> {
  const label = `${c.d.name} ${row}`;
  const started = performance.now();
  c.status(`${label}: features (${text})`);
  const features = await trainingFeatures(request, c.cut, c.scheme, c.resources);
  const featureSeconds = (performance.now() - started) / 1000;
  for (const note of features.notes) c.status(`${label}: ${note}`);
  c.status(`${label}: training on ${c.cut.sentences.length} sentences`);
  const trained = await trainerOf(c, features).train(c.cut, iterationStatus(c, label));
  const seconds = (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  return {
    row: {
      row,
      builtOn,
      features: text,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: trained.iterations,
      stopReason: String(trained.stopReason),
      numFeatures: trained.numFeatures,
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
    notes: features.notes,
    chain: { model: trained.model, request, features, text, featureSeconds, seconds },
  };
}

/** Two-stage votes over the last chain row's features (the recipe's own folds and first stages). */
async function twoStageRow(
  c: DatasetContext,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} two-stage`;
  const started = performance.now();
  c.status(`${label}: first stages jackknifed over ${last.text}, then the second stage`);
  const trained = await trainerOf(c, last.features).trainTwoStage(c.cut, {
    onProgress: iterationStatus(c, label),
    onStage: (s) =>
      c.status(
        `${label}: ${s.stage === "first" ? `first stage, fold ${s.fold + 1}/${s.folds}` : s.stage === "first-full" ? "first stage on all the cut" : "second stage"}`,
      ),
  });
  const seconds = last.featureSeconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  return {
    row: {
      row: "two-stage",
      builtOn: lastRow,
      features: `${last.text} + first-stage votes (document and corpus majorities)`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: trained.iterations,
      stopReason: String(trained.stopReason),
      numFeatures: trained.numFeatures,
      twoStage: {
        folds: trained.folds,
        firstStageSeconds: trained.firstStageSeconds,
        voted: trained.voted,
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/** The general CRF over the last chain row's features (its model reused as the base chain). */
async function generalRow(
  c: DatasetContext,
  groups: GroupingKind,
  lastRow: AccuracyRowName,
  last: NonNullable<RowRun["chain"]>,
): Promise<RowRun> {
  const label = `${c.d.name} general`;
  const started = performance.now();
  c.status(
    `${label}: ${groups} groups over ${last.text}; jackknifed chain CRFs, then the perceptron`,
  );
  const trained = await trainerOf(c, last.features).trainGeneral(c.cut, {
    settings: { groups },
    baseModel: last.model,
    // Each jackknife fold's chain CRF gets its own features (lexicons mined from its own
    // sentences): the base's jackknife indexes the whole cut, not a fold's subset.
    featuresOf: (corpus) => trainingFeatures(last.request, corpus, c.scheme, c.resources),
    onChainProgress: (p, fold) => iterationStatus(c, `${label} fold ${fold}`)(p),
    onProgress: (p) => {
      if (p.stage === "crf") c.status(`${label}: chain CRF fold ${p.fold}/${p.folds} done`);
      else if (p.stage === "perceptron") {
        if (p.done === p.groups) {
          c.status(`${label}: epoch ${p.epoch}/${p.epochs}, ${p.mistakes} mistaken positions`);
        }
      } else {
        c.status(`${label}: held-out cut after epoch ${p.epoch}: ${pct(p.score).toFixed(2)}`);
      }
    },
  });
  const seconds = last.seconds + (performance.now() - started) / 1000;
  const scores = await scoreRow(c, modelToBytes(trained.model), label);
  const t = trained.training;
  const chosen = trained.selection;
  return {
    row: {
      row: "general",
      builtOn: lastRow,
      features: `${last.text}; ${groups} groups, ${trained.consistency.weights.length} consistency weights`,
      heldOut: { ...scores.heldOut, delta: null },
      dev: scores.dev === null ? null : { ...scores.dev, delta: null },
      trainSeconds: seconds,
      iterations: t.mistakes.length,
      stopReason: `perceptron epochs, ${t.certified}/${t.decodings} decodings certified`,
      numFeatures: trained.model.summary().weights + trained.consistency.weights.length,
      general: {
        groups,
        mistakes: t.mistakes,
        certified: t.decodings === 0 ? 1 : t.certified / t.decodings,
        linkedGroups: trained.groupStats.withFactors,
        ...(chosen === undefined
          ? {}
          : {
              selection: {
                epochs: chosen.epochs,
                scale: chosen.scale,
                chainScore: pct(chosen.chainScore),
                generalScore: pct(chosen.generalScore),
              },
            }),
      },
    },
    heldOutStats: scores.heldOutStats,
    devStats: scores.devStats,
  };
}

/** Each row's deltas against the row it builds on. */
function withDeltas(runs: readonly RowRun[]): AccuracyRow[] {
  return runs.map((run) => {
    const previous = runs.find((r) => r.row.row === run.row.builtOn)?.row;
    const heldOut = {
      ...run.row.heldOut,
      delta: previous === undefined ? null : run.row.heldOut.score - previous.heldOut.score,
    };
    const dev =
      run.row.dev === null
        ? null
        : {
            ...run.row.dev,
            delta:
              previous?.dev === undefined || previous.dev === null
                ? null
                : run.row.dev.score - previous.dev.score,
          };
    return { ...run.row, heldOut, dev };
  });
}

/** The paired bootstrap of two rows on a split (B = `from`, A = `to`). */
function paired(
  from: RowRun,
  to: RowRun,
  split: "held-out" | "dev",
  c: DatasetContext,
): PairedComparison | null {
  const a = split === "dev" ? to.devStats : to.heldOutStats;
  const b = split === "dev" ? from.devStats : from.heldOutStats;
  if (a === null || b === null) return null;
  const result: PairedBootstrapResult = pairedBootstrap(
    { units: a.units, a: a.stats, b: b.stats, width: a.width, metric: a.metric },
    {
      samples: c.options.bootstrapSamples ?? 1000,
      seed: c.options.seed ?? 1,
      ...(c.options.signal === undefined ? {} : { signal: c.options.signal }),
    },
  );
  return {
    from: from.row.row,
    to: to.row.row,
    split,
    delta: pct(result.delta),
    interval: [pct(result.interval[0]), pct(result.interval[1])],
    pValue: result.pValue,
    samples: result.samples,
  };
}

/** The train cut and held-out fold of a training corpus. */
export function heldOutCut(train: Corpus): { cut: Corpus; heldOut: Corpus } {
  const fold = jackknifeFolds(train.sentences, HELD_OUT_FOLDS);
  const held = fold.filter((f) => f === HELD_OUT_FOLD).length;
  if (held === 0 || held === train.sentences.length) {
    throw new LagrangeError(
      "usage",
      `${train.label}: the held-out fold (${HELD_OUT_FOLD + 1} of ${HELD_OUT_FOLDS}, whole documents or blocks of 20 sentences) is ${held === 0 ? "empty" : "everything"} in ${train.sentences.length} sentences; train on more sentences (--max-train)`,
    );
  }
  return {
    cut: { ...train, sentences: train.sentences.filter((_, i) => fold[i] !== HELD_OUT_FOLD) },
    heldOut: {
      ...train,
      label: `${train.label} (held-out fold)`,
      sentences: train.sentences.filter((_, i) => fold[i] === HELD_OUT_FOLD),
    },
  };
}

async function runDataset(
  d: AccuracyDataset,
  train: Corpus,
  dev: Corpus | null,
  options: AccuracyOptions,
): Promise<AccuracyDatasetResult> {
  const status = options.onStatus ?? (() => {});
  const quick = options.quick === true;
  const task = isTaskPreset(d.task) ? getTaskPreset(d.task) : undefined;
  const maxTrain = options.maxTrainSentences ?? (quick ? QUICK.trainSentences : undefined);
  const limited =
    maxTrain === undefined ? train : { ...train, sentences: train.sentences.slice(0, maxTrain) };
  const { cut, heldOut } = heldOutCut(limited);
  const maxIterations =
    options.maxIterations ?? (quick ? QUICK.maxIterations : (task?.maxIterations ?? 200));
  const resources: ResourceOptions = {
    ...(options.resourcesDir === undefined ? {} : { resourcesDir: options.resourcesDir }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onProgress: (stage, done, total) => {
      if (done % 500 === 0 || done === total) status(`${stage}: Brown clustering ${done}/${total}`);
    },
  };
  const c: DatasetContext = {
    d,
    task,
    cut,
    heldOut,
    dev,
    scheme: train.scheme,
    maxIterations,
    threads: options.threads ?? 2,
    resources,
    options,
    status,
  };
  const wanted = options.rows ?? ACCURACY_ROWS;
  const runs: RowRun[] = [];
  const skipped: { row: string; why: string }[] = [];
  const notes: string[] = [];
  let previousRequest = "";
  for (const row of ACCURACY_ROWS) {
    if (!wanted.includes(row)) continue;
    throwIfAborted(options.signal);
    if (row === "two-stage" || row === "general") {
      const lastRun = [...runs].reverse().find((r) => r.chain !== undefined);
      const last = lastRun?.chain;
      if (lastRun === undefined || last === undefined) {
        skipped.push({ row, why: "no chain row ran to build on" });
      } else if (row === "two-stage") {
        runs.push(await twoStageRow(c, lastRun.row.row, last));
      } else if (d.groups === null) {
        skipped.push({ row, why: `${d.task} is not an entity task: no general CRF` });
      } else if (d.groups === "documents" && !cut.sentences.some((s) => s.document !== undefined)) {
        skipped.push({ row, why: `${train.label} has no document marks to group by` });
      } else {
        runs.push(await generalRow(c, d.groups, lastRun.row.row, last));
      }
      continue;
    }
    const asked = await rowRequest(row, d, task, resources);
    if ("why" in asked) {
      skipped.push({ row, why: asked.why });
      continue;
    }
    const key = JSON.stringify(asked.request);
    if (key === previousRequest) {
      skipped.push({ row, why: "same features as the row before" });
      continue;
    }
    previousRequest = key;
    const builtOn = [...runs].reverse().find((r) => r.chain !== undefined)?.row.row ?? null;
    runs.push(await chainRow(c, row, builtOn, asked.request, asked.text));
  }
  const comparisons: PairedComparison[] = [];
  const byName = (name: AccuracyRowName | null) => runs.find((r) => r.row.row === name);
  const pairs: [RowRun | undefined, RowRun | undefined][] = [
    [byName("baseline"), byName("lexicons")],
    ...runs
      .filter((r) => r.chain === undefined)
      .map((r): [RowRun | undefined, RowRun] => [byName(r.row.builtOn), r]),
  ];
  for (const [from, to] of pairs) {
    if (from === undefined || to === undefined) continue;
    for (const split of ["held-out", "dev"] as const) {
      const p = paired(from, to, split, c);
      if (p !== null) comparisons.push(p);
    }
  }
  if (maxTrain !== undefined && maxTrain < train.sentences.length) {
    notes.push(`first ${maxTrain} of ${train.sentences.length} training sentences`);
  }
  for (const run of runs) {
    for (const note of run.notes ?? []) {
      if (!notes.some((n) => n.startsWith(note))) notes.push(`${note} (${run.row.row} row)`);
    }
  }
  return {
    dataset: d.name,
    task: d.task,
    metric: train.scheme === "none" ? "accuracy" : "chunk-f1",
    scheme: train.scheme,
    trainSentences: cut.sentences.length,
    heldOutSentences: heldOut.sentences.length,
    devSentences: dev?.sentences.length ?? null,
    maxIterations,
    rows: withDeltas(runs),
    skipped,
    comparisons,
    notes,
  };
}

function resolveDatasets(given: AccuracyOptions["datasets"]): AccuracyDataset[] {
  return (given ?? ACCURACY_DATASETS).map((entry) => {
    if (typeof entry !== "string") return entry;
    const found = ACCURACY_DATASETS.find((d) => d.name === entry);
    if (found === undefined) {
      throw new LagrangeError(
        "usage",
        `unknown dataset ${JSON.stringify(entry)}; expected one of ${ACCURACY_DATASETS.map((d) => d.name).join(", ")}`,
      );
    }
    return found;
  });
}

/** Opens a dataset's splits, or says why it cannot be reached. */
async function openSplits(
  d: AccuracyDataset,
  signal: AbortSignal | undefined,
): Promise<{ train: Corpus; dev: Corpus | null } | { reason: string }> {
  const opts = signal === undefined ? {} : { signal };
  try {
    const train = await openCorpus(d.train, opts);
    const dev = d.dev === null ? null : await openCorpus(d.dev, opts);
    return { train, dev };
  } catch (error) {
    if (error instanceof LagrangeError && error.code === "unavailable") {
      return { reason: error.message };
    }
    throw error;
  }
}

/** Runs the bench: every dataset that can be reached, row by row. */
export async function accuracySuite(options: AccuracyOptions = {}): Promise<AccuracyResult> {
  const status = options.onStatus ?? (() => {});
  const datasets: AccuracyDatasetResult[] = [];
  const unavailable: { dataset: string; reason: string }[] = [];
  for (const d of resolveDatasets(options.datasets)) {
    const opened = await openSplits(d, options.signal);
    if ("reason" in opened) {
      status(`${d.name}: skipped, ${opened.reason}`);
      unavailable.push({ dataset: d.name, reason: opened.reason });
      continue;
    }
    datasets.push(await runDataset(d, opened.train, opened.dev, options));
  }
  const quick = options.quick === true;
  return {
    suite: "accuracy",
    node: process.version,
    settings: {
      quick,
      threads: options.threads ?? 2,
      maxIterations: options.maxIterations ?? (quick ? QUICK.maxIterations : null),
      maxTrainSentences: options.maxTrainSentences ?? (quick ? QUICK.trainSentences : null),
      bootstrapSamples: options.bootstrapSamples ?? 1000,
      seed: options.seed ?? 1,
      heldOut: `fold ${HELD_OUT_FOLD} of jackknifeFolds(train, ${HELD_OUT_FOLDS}) (whole documents; blocks of 20 sentences without document marks)`,
    },
    datasets,
    unavailable,
  };
}

// ---------------------------------------------------------------------------------------------
// Markdown

const f2 = (x: number) => x.toFixed(2);
const signed = (x: number | null) => (x === null ? "" : `${x >= 0 ? "+" : ""}${f2(x)}`);
const scoreCell = (s: ScoredSplit | null) =>
  s === null ? "—" : `${f2(s.score)} [${f2(s.interval[0])}, ${f2(s.interval[1])}]`;

function datasetTable(r: AccuracyDatasetResult): string {
  const metric = r.metric === "accuracy" ? "token accuracy %" : `chunk F1 (${r.scheme})`;
  return markdownTable(
    [
      "row",
      `held-out ${metric} [95 % CI]`,
      "Δ",
      `dev ${metric} [95 % CI]`,
      "Δ",
      "train s",
      "iterations (stop)",
      "features",
    ],
    r.rows.map((row) => [
      ROW_TITLES[row.row],
      scoreCell(row.heldOut),
      signed(row.heldOut.delta),
      scoreCell(row.dev),
      signed(row.dev?.delta ?? null),
      row.trainSeconds.toFixed(1),
      `${row.iterations} (${row.stopReason})`,
      row.numFeatures,
    ]),
  );
}

function datasetMarkdown(r: AccuracyDatasetResult): string {
  const lines = [
    `#### ${r.dataset} (${r.task}; ${r.trainSentences} training, ${r.heldOutSentences} held-out${r.devSentences === null ? "" : `, ${r.devSentences} dev`} sentences${r.devSentences === null ? ", no dev split" : ""}; L-BFGS ≤ ${r.maxIterations} iterations)`,
    "",
    datasetTable(r),
  ];
  for (const row of r.rows) {
    lines.push(`- ${ROW_TITLES[row.row]}: ${row.features}`);
    if (row.general !== undefined) {
      const g = row.general;
      const chosen =
        g.selection === undefined
          ? ""
          : `; chosen on its own held-out cut: ${g.selection.scale === 0 ? "the chain alone" : `${g.selection.epochs} epoch${g.selection.epochs === 1 ? "" : "s"} × scale ${g.selection.scale}`} (chain ${f2(g.selection.chainScore)}, general ${f2(g.selection.generalScore)})`;
      lines.push(
        `  perceptron mistakes per epoch ${g.mistakes.join(", ") || "none"}; ${(100 * g.certified).toFixed(1)} % of training decodings certified; ${g.linkedGroups} training groups with consistency factors${chosen}`,
      );
    }
    if (row.twoStage !== undefined) {
      const t = row.twoStage;
      lines.push(
        `  ${t.folds} first-stage folds + the full first stage (${t.firstStageSeconds.toFixed(1)} s); training tokens with a vote: ${t.voted.dtok} same word in the document, ${t.voted.dent} same entity string, ${t.voted.ctok} same word in the corpus`,
      );
    }
  }
  for (const s of r.skipped) lines.push(`- ${s.row}: not run (${s.why})`);
  for (const p of r.comparisons) {
    lines.push(
      `- ${p.from} → ${p.to} on ${p.split}: ${signed(p.delta)} points [${signed(p.interval[0])}, ${signed(p.interval[1])}], paired bootstrap p = ${p.pValue.toFixed(3)} (${p.samples} resamples, two-sided)`,
    );
  }
  for (const n of r.notes) lines.push(`- ${n}`);
  lines.push("");
  return lines.join("\n");
}

/** One line per dataset and split: each row's score, for the README. */
export function accuracySummaryTable(result: AccuracyResult): string {
  const rows = ACCURACY_ROWS.filter((row) =>
    result.datasets.some((d) => d.rows.some((r) => r.row === row)),
  );
  const body: string[][] = [];
  for (const d of result.datasets) {
    for (const split of ["held-out", "dev"] as const) {
      if (split === "dev" && d.devSentences === null) continue;
      body.push([
        d.dataset,
        d.metric === "accuracy" ? "UPOS acc." : "F1",
        split,
        ...rows.map((row) => {
          const found = d.rows.find((r) => r.row === row);
          const s = found === undefined ? null : split === "dev" ? found.dev : found.heldOut;
          return s === null ? "—" : f2(s.score);
        }),
      ]);
    }
  }
  return markdownTable(["dataset", "metric", "split", ...rows.map((r) => ROW_TITLES[r])], body);
}

export function accuracyMarkdown(result: AccuracyResult): string {
  const s = result.settings;
  const lines = [
    "### accuracy (issue 27: baseline → + clusters → + lexicons → + two-stage / + general CRF)",
    "",
    `${s.quick ? "**Quick smoke run** (small training sets, few iterations: not the bench's figures). " : ""}Held-out: ${s.heldOut}, cut from ${s.maxTrainSentences === null ? "the training split" : `the first ${s.maxTrainSentences} training sentences`}; dev: the registry's dev split (never a test split). L-BFGS with each task preset's stopping rule${s.maxIterations === null ? "" : `, at most ${s.maxIterations} iterations`}, ${s.threads} thread${s.threads === 1 ? "" : "s"}. Scores: conlleval chunk F1 under the corpus's scheme, token accuracy for UPOS; intervals: percentile bootstrap over sentences, ${s.bootstrapSamples} resamples, seed ${s.seed}. Tagging: the model's bytes through openTagger (as \`lagrange tag\`), Viterbi under the scheme's mask; the general CRF by its recorded decoder. Node ${result.node}.`,
    "",
  ];
  if (result.unavailable.length > 0) {
    lines.push(
      `Not reachable, skipped: ${result.unavailable.map((u) => `${u.dataset} (${u.reason})`).join("; ")}.`,
      "",
    );
  }
  if (result.datasets.length > 0) {
    lines.push(
      "Δ: against the row each builds on — each chain row the one before it; two-stage and the general CRF both the last chain row (lexicons where the task has them), so each non-local step is measured alone.",
      "",
      accuracySummaryTable(result),
    );
  }
  for (const d of result.datasets) lines.push(datasetMarkdown(d));
  return lines.join("\n");
}
