/**
 * The accuracy bench's rows' shared parts: what a row run and a dataset's context hold, the trainer
 * a row opens (as `lagrange train` does) and the tagging and scoring of a model's bytes through
 * `lagrange tag`'s path.
 */
import type { CrfModel, TrainingProgress } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { type Corpus, type LabelScheme, scoreLabelling } from "@lagrange/datasets";
import {
  definedFields,
  type FeatureRequest,
  isTagFailure,
  openTagger,
  openTrainer,
  type ResourceOptions,
  type TaskPreset,
  type Trainer,
  type TrainingFeatures,
  type TrainingSpec,
} from "@lagrange/recipes";
import type {
  AccuracyDataset,
  AccuracyOptions,
  AccuracyRow,
  ScoredSplit,
} from "./accuracy-datasets.js";
import type { SentenceStats } from "./accuracy-statistics.js";
import { bootstrapInterval, sentenceStats } from "./accuracy-statistics.js";

export const pct = (x: number) => 100 * x;

export interface RowRun {
  readonly row: AccuracyRow;
  /** What trainingFeatures found or built (cluster files, gazetteers, mined lexicons). */
  readonly notes?: readonly string[];
  readonly heldOutStats: SentenceStats;
  readonly devStats: SentenceStats | null;
  /** The chain model and its features (the general CRF builds on the last one). */
  readonly chain?: {
    readonly model: CrfModel;
    readonly request: FeatureRequest;
    /** What the row asked of the trainer beside its features (the chunk scheme inside, L1). */
    readonly training: Pick<TrainingSpec, "internalScheme" | "c1">;
    readonly features: TrainingFeatures;
    readonly text: string;
    /** Feature resolution, and that plus training. */
    readonly featureSeconds: number;
    readonly seconds: number;
  };
}

export interface DatasetContext {
  readonly d: AccuracyDataset;
  readonly task: TaskPreset | undefined;
  readonly cut: Corpus;
  readonly heldOut: Corpus;
  readonly dev: Corpus | null;
  readonly scheme: LabelScheme;
  /** The iteration cap asked for; null: the task preset's own stopping rule. */
  readonly maxIterations: number | null;
  readonly threads: number;
  readonly resources: ResourceOptions;
  readonly options: AccuracyOptions;
  readonly status: (message: string) => void;
  /**
   * Chain CRFs of the jackknife folds over the last chain row, by fold: the general CRF's document
   * folds and the document constraints' are the same, trained once.
   */
  readonly foldModels: Map<number, Promise<CrfModel>>;
}

/** The trainer of some features, as `lagrange train` opens it (the task preset's defaults). */
export function trainerOf(
  c: DatasetContext,
  features: TrainingFeatures,
  training: Pick<TrainingSpec, "internalScheme" | "c1" | "maxIterations" | "delta"> = {},
): Trainer {
  return openTrainer(
    {
      algorithm: "lbfgs",
      ...(c.maxIterations === null ? {} : { maxIterations: c.maxIterations }),
      threads: c.threads,
      scheme: c.scheme,
      ...training,
      ...definedFields({ taskPreset: c.task?.name }),
    },
    { features, ...definedFields({ signal: c.options.signal }) },
  );
}

/** Every tenth iteration of a CRF's training, as a status line. */
export function iterationStatus(c: DatasetContext, label: string) {
  return (p: TrainingProgress) => {
    if (p.iteration % 10 === 0) {
      c.status(`${label}: iteration ${p.iteration}, loss ${p.loss.toFixed(1)}`);
    }
  };
}

/** A split tagged: the labels, the tagging's seconds, and its decodings (one per document where a
 * model decodes a document at a time) with how many were certified. */
export interface Tagged {
  readonly labels: string[][];
  readonly seconds: number;
  readonly decodings: number;
  readonly certified: number;
}

/** Tags a corpus with a model's bytes through `lagrange tag`'s path (openTagger), whatever its kind. */
export async function tagWith(
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  signal: AbortSignal | undefined,
): Promise<Tagged> {
  const tagger = await openTagger(
    { model: bytes, modelName: name },
    signal === undefined ? {} : { signal },
  );
  const data = tagger.input(corpus, "required");
  const started = performance.now();
  const tagged = await tagger.tag(data.sentences, {
    stopAtFailure: true,
    ...(signal === undefined ? {} : { signal }),
  });
  const seconds = (performance.now() - started) / 1000;
  // A document tagger gives each sentence its document's figures, numbered by `unit`.
  const decodings = new Set<number | object>();
  let certified = 0;
  const labels = tagged.items.map((item) => {
    if (isTagFailure(item)) throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
    const stats = item.stats;
    const unit = stats?.unit ?? stats;
    if (stats !== undefined && !decodings.has(unit)) {
      decodings.add(unit);
      if (stats.certified) certified++;
    }
    return [...item.labels];
  });
  return { labels, seconds, decodings: decodings.size, certified };
}

export function goldOf(corpus: Corpus): string[][] {
  return corpus.sentences.map((s) => s.labels ?? []);
}

/** Scores a model's tagging of a split: the score, per-sentence statistics, the interval. */
export async function scoreSplit(
  c: DatasetContext,
  bytes: Uint8Array,
  name: string,
  corpus: Corpus,
  split: string,
): Promise<{ scored: Omit<ScoredSplit, "delta">; stats: SentenceStats; tagged: Tagged }> {
  const tagged = await tagWith(bytes, name, corpus, c.options.signal);
  const predicted = tagged.labels;
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
    tagged,
  };
}

export async function scoreRow(
  c: DatasetContext,
  bytes: Uint8Array,
  label: string,
): Promise<{
  heldOut: Omit<ScoredSplit, "delta">;
  dev: Omit<ScoredSplit, "delta"> | null;
  heldOutStats: SentenceStats;
  devStats: SentenceStats | null;
  /** Dev's tagging (the held-out fold's without dev). */
  tagged: Tagged;
  /** The model file's size. */
  modelBytes: number;
}> {
  c.status(`${label}: tagging the held-out fold and dev`);
  const h = await scoreSplit(c, bytes, label, c.heldOut, "held-out");
  const v = c.dev === null ? null : await scoreSplit(c, bytes, label, c.dev, "dev");
  return {
    heldOut: h.scored,
    dev: v?.scored ?? null,
    heldOutStats: h.stats,
    devStats: v?.stats ?? null,
    tagged: v?.tagged ?? h.tagged,
    modelBytes: bytes.length,
  };
}
