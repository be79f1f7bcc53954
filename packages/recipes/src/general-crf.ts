import type { CrfModel } from "@lagrange/chain-crf";
import {
  type ChainScores,
  chainDecoder,
  type DecodeOptions,
  type Decoder,
  type DecoderRegistry,
  LagrangeError,
  throwIfAborted,
  yieldToEventLoop,
} from "@lagrange/core";
import { type Corpus, type LabelScheme, scoreLabelling as scoreLabels } from "@lagrange/datasets";
import {
  type ConsistencyModel,
  type ConsistencyTrainingProgress,
  type ConsistencyTrainingResult,
  type GroupInstance,
  groupProblem,
  labelSubsequences,
  sentenceLabels,
  trainConsistencyWeights,
} from "@lagrange/mincut";
import { standardDecoders } from "./decoders.js";
import {
  type ConsistencySelection,
  GENERAL_CRF_DEFAULTS,
  type GeneralCrf,
  type GeneralCrfSettings,
  withGeneralCrf,
} from "./general-crf-settings.js";
import { ChainScoring, corpusGroups, groupInstances } from "./general-crf-tagging.js";
import { withDocumentInputsSync } from "./model-input.js";
import { modelOutputScheme, modelScheme } from "./model-scheme.js";
import { type TrainOnCorpusOptions, trainOnCorpus } from "./training.js";

export type GeneralCrfTrainingProgress =
  | { readonly stage: "crf"; readonly fold: number; readonly folds: number }
  | ({ readonly stage: "perceptron" } & ConsistencyTrainingProgress)
  /** The averaged weights after `epoch` scored on the held-out cut. */
  | { readonly stage: "held-out"; readonly epoch: number; readonly score: number };

export interface GeneralCrfTrainingOptions {
  /** Settings of the chain CRF (preset, iterations, threads, c2, …). */
  readonly crf: TrainOnCorpusOptions;
  readonly settings: GeneralCrfSettings;
  /** The chain CRF trained on all of `train` already (e.g. from a cache): not trained again. */
  readonly baseModel?: CrfModel;
  /**
   * Trains a chain CRF on part of the corpus with the given label order (default: trainOnCorpus
   * with `crf`); the bench passes a cached trainer.
   */
  readonly trainModel?: (
    corpus: Corpus,
    labels: readonly string[],
    fold: number,
  ) => Promise<CrfModel>;
  /**
   * Jackknifed chain scores for the perceptron (default 4): the training groups are scored by CRFs
   * trained on the other folds, so the consistency weights learn from the errors the CRF makes on
   * unseen text; on its own training data it makes almost none. 1 = score with the full CRF.
   */
  readonly folds?: number;
  /** Decoder (registry name or instance) the perceptron decodes with: default `two-slave`. */
  readonly decoder?: string | Decoder;
  readonly registry?: DecoderRegistry;
  /** Perceptron epochs (default 10, as the paper). */
  readonly epochs?: number;
  /** Keep the consistency weights ≥ 0 (default true; see trainConsistencyWeights). */
  readonly nonNegative?: boolean;
  /** Perceptron step (default 0.01; see trainConsistencyWeights). */
  readonly learningRate?: number;
  /**
   * Choose the epochs and a scale of the consistency weights (or none: the chain alone) on a
   * held-out cut, the groups of fold 1 (default: whenever folds ≥ 2; see learnConsistency).
   */
  readonly select?: boolean;
  /** Scales tried at the best epoch on the cut (default {@link CONSISTENCY_SCALES}). */
  readonly scales?: readonly number[];
  readonly decodeOptions?: DecodeOptions;
  readonly onProgress?: (progress: GeneralCrfTrainingProgress) => void;
  readonly signal?: AbortSignal;
}

/** The chain CRF and the jackknifed training groups: what every perceptron run starts from. */
export interface PreparedGeneralCrf {
  readonly base: CrfModel;
  readonly settings: GeneralCrfSettings;
  readonly instances: readonly GroupInstance[];
  readonly consistencyBase: Omit<ConsistencyModel, "weights">;
  readonly crfMs: number;
  /** Jackknife folds; `instanceFolds[g]` is the fold of `instances[g]` (0-based: g mod folds). */
  readonly folds: number;
  readonly instanceFolds: Int32Array;
  /** Groups with at least two sentences, and groups with consistency factors. */
  readonly groupStats: {
    readonly groups: number;
    readonly linked: number;
    readonly withFactors: number;
  };
}

export interface TrainedGeneralCrf extends GeneralCrf {
  readonly training: ConsistencyTrainingResult;
  /** The held-out choice (also in `settings.selection`); absent when training did not select. */
  readonly selection?: ConsistencySelection;
  readonly crfMs: number;
  readonly perceptronMs: number;
  readonly groupStats: PreparedGeneralCrf["groupStats"];
}

/**
 * Trains a general CRF on a corpus: the chain CRF (the usual path, `trainOnCorpus`), jackknifed
 * chain scores of the training groups, then the consistency weights by averaged perceptron through
 * the chosen decoder. The path behind `lagrange train --model general` and the two-slave-ner bench.
 */
export async function trainGeneralCrf(
  train: Corpus,
  options: GeneralCrfTrainingOptions,
): Promise<TrainedGeneralCrf> {
  return learnConsistency(await prepareGeneralCrf(train, options), options);
}

/** The first half of {@link trainGeneralCrf}: the chain CRFs and the scored training groups. */
export async function prepareGeneralCrf(
  train: Corpus,
  options: GeneralCrfTrainingOptions,
): Promise<PreparedGeneralCrf> {
  const { settings, signal } = options;
  const folds = options.folds ?? GENERAL_CRF_DEFAULTS.folds;
  if (!Number.isInteger(folds) || folds < 1) {
    throw new LagrangeError("usage", `folds: expected an integer ≥ 1, got ${folds}`);
  }
  const started = performance.now();
  const trainModel =
    options.trainModel ??
    (async (corpus: Corpus, labels: readonly string[]) =>
      (
        await trainOnCorpus(corpus, {
          ...options.crf,
          ...(labels.length === 0 ? {} : { labels }),
          ...(signal === undefined ? {} : { signal }),
        })
      ).model);
  const base = options.baseModel ?? (await trainModel(train, [], 0));
  // The consistency factors read the gold labels' chunks with the base's label ids.
  if (modelOutputScheme(base) !== modelScheme(base)) {
    throw new LagrangeError(
      "usage",
      `a general CRF's base chain must be trained under the data's scheme; this one was trained under ${modelScheme(base)} for ${modelOutputScheme(base)} data (train it with --internal-scheme keep)`,
    );
  }
  options.onProgress?.({ stage: "crf", fold: 0, folds });
  const labels = base.labels.names();
  const outside = labels.indexOf("O");
  if (outside < 0) {
    throw new LagrangeError(
      "bad-input",
      `a general CRF needs an outside label "O"; the model's labels are ${labels.join(", ")}`,
    );
  }
  const sentences = train.sentences;
  const gold = sentences.map((s, k) => {
    if (s.labels === undefined) {
      throw new LagrangeError("bad-input", `${train.label}: sentence ${k + 1} has no gold labels`);
    }
    return base.labels.encode(s.labels);
  });
  const groups = corpusGroups(sentences, settings.groups, settings.grouping);
  // Every fold's chain has the base's features: document context, where read, is the same input.
  const read = withDocumentInputsSync(base, sentences, signal);

  // Jackknife: group g's sentences are scored by the CRF that did not see fold g mod folds.
  const foldOf = groupFolds(sentences.length, groups, folds);
  const scores: ChainScores[] = new Array(sentences.length);
  await forEachJackknifeFold(train, base, foldOf, folds, trainModel, {
    score: (model, members) => {
      const scoring = new ChainScoring(model);
      for (const k of members) scores[k] = scoring.score(read[k]!);
    },
    onFold: (f) => options.onProgress?.({ stage: "crf", fold: f, folds }),
    ...(signal === undefined ? {} : { signal }),
  });
  const factorOptions = settings.factors ?? {};
  const instances = groupInstances(
    sentences,
    groups,
    (k) => scores[k]!,
    factorOptions,
    (k) => gold[k]!,
  );
  return {
    base,
    settings,
    instances,
    consistencyBase: {
      L: base.numLabels,
      outsideLabel: outside,
      subsequences: labelSubsequences(gold, factorOptions.maxLength ?? 3, base.numLabels),
      factorOptions,
    },
    crfMs: performance.now() - started,
    folds,
    instanceFolds: Int32Array.from(groups, (_, g) => g % folds),
    groupStats: {
      groups: groups.length,
      linked: groups.filter((g) => g.length > 1).length,
      withFactors: instances.filter((x) => x.factors.length > 0).length,
    },
  };
}

/** Each sentence's fold when whole groups are dealt round-robin: group g goes to fold g mod `folds`. */
export function groupFolds(
  sentences: number,
  groups: readonly Int32Array[],
  folds: number,
): Int32Array {
  const foldOf = new Int32Array(sentences);
  groups.forEach((members, g) => {
    for (const k of members) foldOf[k] = g % folds;
  });
  return foldOf;
}

/** Trains a chain CRF on part of a corpus with the given label order; `fold` counts from 1. */
export type FoldTrainer = (
  corpus: Corpus,
  labels: readonly string[],
  fold: number,
) => Promise<CrfModel>;

/**
 * The jackknife over a corpus: for each fold f, the chain CRF trained on the other folds'
 * sentences (`trainModel(part, base's labels, f + 1)`) is handed the indices of fold f's
 * sentences to score, so each sentence is scored by a CRF that never saw it. One fold: `base`
 * scores them all. The general CRF's perceptron and the document constraints learn so.
 */
export async function forEachJackknifeFold(
  train: Corpus,
  base: CrfModel,
  foldOf: Int32Array,
  folds: number,
  trainModel: FoldTrainer,
  hooks: {
    readonly score: (model: CrfModel, members: readonly number[]) => void | Promise<void>;
    /** After fold f (from 1) is scored, when folds > 1. */
    readonly onFold?: (fold: number) => void;
    readonly signal?: AbortSignal;
  },
): Promise<void> {
  const { sentences } = train;
  const labels = base.labels.names();
  for (let f = 0; f < folds; f++) {
    throwIfAborted(hooks.signal);
    const model =
      folds === 1
        ? base
        : await trainModel(
            { ...train, sentences: sentences.filter((_, k) => foldOf[k] !== f) },
            labels,
            f + 1,
          );
    const members: number[] = [];
    for (let k = 0; k < sentences.length; k++) if (foldOf[k] === f) members.push(k);
    await hooks.score(model, members);
    if (folds > 1) hooks.onFold?.(f + 1);
  }
}

/** Candidate scales of the consistency weights tried on the held-out cut (0, the chain, always). */
export const CONSISTENCY_SCALES: readonly number[] = [1, 0.5, 0.25];

/**
 * The second half of {@link trainGeneralCrf}: the consistency weights through a decoder.
 *
 * With a held-out cut (`select`, the default when the groups were jackknifed: folds ≥ 2), the
 * groups of fold 1 are left out of the perceptron; after each epoch the averaged weights decode
 * them, and then the best epoch's weights at each of `scales`. The weights kept are the best
 * candidate on the cut, or none (the chain alone) unless one beats the chain there: a general CRF
 * trained so is never worse than its chain on held-out data. The choice and the cut's scores are
 * recorded in the model's settings. Without a cut the perceptron sees every group and its final
 * averaged weights are kept.
 */
export async function learnConsistency(
  prepared: PreparedGeneralCrf,
  options: Omit<
    GeneralCrfTrainingOptions,
    "crf" | "settings" | "baseModel" | "trainModel" | "folds"
  > = {},
): Promise<TrainedGeneralCrf> {
  const { signal } = options;
  const decoder = resolveDecoder(options.decoder ?? GENERAL_CRF_DEFAULTS.decoder, options.registry);
  const select = options.select ?? prepared.folds >= 2;
  if (select && prepared.folds < 2) {
    throw new LagrangeError("usage", "a held-out cut needs folds ≥ 2 (jackknifed chain scores)");
  }
  const started = performance.now();
  const { instances, instanceFolds, consistencyBase } = prepared;
  const heldOut = select ? instances.filter((_, g) => instanceFolds[g] === 0) : [];
  const cut = select
    ? new HeldOutCut(heldOut, consistencyBase, prepared.base, decoder, options.decodeOptions)
    : undefined;
  const perEpoch: number[] = [];
  const epochWeights: Float64Array[] = [];
  const training = await trainConsistencyWeights(
    select ? instances.filter((_, g) => instanceFolds[g] !== 0) : instances,
    consistencyBase,
    decoder,
    {
      epochs: options.epochs ?? GENERAL_CRF_DEFAULTS.epochs,
      ...(options.nonNegative === undefined ? {} : { nonNegative: options.nonNegative }),
      ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
      ...(options.decodeOptions === undefined ? {} : { decodeOptions: options.decodeOptions }),
      ...(signal === undefined ? {} : { signal }),
      onProgress: (p) => options.onProgress?.({ stage: "perceptron", ...p }),
      ...(cut === undefined
        ? {}
        : {
            onEpoch: async (epoch: number, averaged: Float64Array) => {
              epochWeights.push(averaged);
              perEpoch.push(await cut.score(averaged, signal));
              options.onProgress?.({ stage: "held-out", epoch, score: perEpoch.at(-1)! });
            },
          }),
    },
  );
  let weights = training.weights;
  let selection: ConsistencySelection | undefined;
  if (cut !== undefined) {
    const chainScore = await cut.score(null, signal);
    // The best epoch at scale 1 (the earliest on ties), then other scales of its weights.
    let best = 0;
    perEpoch.forEach((score, e) => {
      if (score > perEpoch[best]!) best = e;
    });
    let choice: { epochs: number; scale: number; score: number; weights: Float64Array } = {
      epochs: 0,
      scale: 0,
      score: chainScore,
      weights: new Float64Array(weights.length),
    };
    const consider = (epochs: number, scale: number, score: number, w: Float64Array) => {
      if (score > choice.score) choice = { epochs, scale, score, weights: w };
    };
    const bestWeights = epochWeights[best]!;
    for (const scale of options.scales ?? CONSISTENCY_SCALES) {
      if (!(scale > 0 && Number.isFinite(scale))) {
        throw new LagrangeError("usage", `scales: expected numbers > 0, got ${scale}`);
      }
      const w = bestWeights.map((x) => x * scale);
      consider(best + 1, scale, scale === 1 ? perEpoch[best]! : await cut.score(w, signal), w);
    }
    weights = choice.weights;
    selection = {
      heldOutGroups: heldOut.length,
      heldOutSentences: heldOut.reduce((sum, x) => sum + x.starts.length, 0),
      measure: cut.measure,
      chainScore,
      generalScore: choice.score,
      epochs: choice.epochs,
      scale: choice.scale,
      perEpoch,
    };
  }
  const consistency: ConsistencyModel = { ...consistencyBase, weights };
  const settings: GeneralCrfSettings =
    selection === undefined ? prepared.settings : { ...prepared.settings, selection };
  return {
    model: withGeneralCrf(prepared.base, consistency, settings),
    consistency,
    settings,
    training,
    ...(selection === undefined ? {} : { selection }),
    crfMs: prepared.crfMs,
    perceptronMs: performance.now() - started,
    groupStats: prepared.groupStats,
  };
}

/**
 * The held-out groups and how to score a set of consistency weights on them (null: the chain
 * alone). Groups without factors decode as the chain whatever the weights: decoded once.
 */
class HeldOutCut {
  readonly measure: "f1" | "accuracy";
  readonly #instances: readonly GroupInstance[];
  readonly #base: Omit<ConsistencyModel, "weights">;
  readonly #decoder: Decoder;
  readonly #decodeOptions: DecodeOptions;
  readonly #names: readonly string[];
  readonly #scheme: LabelScheme;
  readonly #gold: string[][];
  readonly #chain: string[][][];
  constructor(
    instances: readonly GroupInstance[],
    base: Omit<ConsistencyModel, "weights">,
    model: CrfModel,
    decoder: Decoder,
    decodeOptions: DecodeOptions = {},
  ) {
    this.#instances = instances;
    this.#base = base;
    this.#decoder = decoder;
    this.#decodeOptions = decodeOptions;
    this.#names = model.labels.names();
    this.#scheme = modelScheme(model);
    const viterbi = chainDecoder();
    this.#gold = instances.flatMap((x) => this.#sentences(x, x.gold!));
    this.#chain = instances.map((x) =>
      this.#sentences(x, viterbi.decode({ scores: x.chain }).labels),
    );
    this.measure = this.#score(this.#chain).kind === "accuracy" ? "accuracy" : "f1";
  }

  async score(weights: Float64Array | null, signal?: AbortSignal): Promise<number> {
    if (weights === null) return this.#score(this.#chain).value;
    const consistency: ConsistencyModel = { ...this.#base, weights };
    const options: DecodeOptions = {
      ...this.#decodeOptions,
      ...(signal === undefined ? {} : { signal }),
    };
    const predicted: string[][][] = [];
    for (const [g, x] of this.#instances.entries()) {
      throwIfAborted(signal);
      if (g % 16 === 15) await yieldToEventLoop();
      const problem = groupProblem(x, consistency);
      predicted.push(
        problem.patterns === undefined
          ? this.#chain[g]!
          : this.#sentences(x, this.#decoder.decode(problem, options).labels),
      );
    }
    return this.#score(predicted).value;
  }

  #sentences(x: GroupInstance, labels: Int32Array): string[][] {
    return sentenceLabels(x, labels).map((y) => Array.from(y, (id) => this.#names[id]!));
  }

  #score(predicted: readonly string[][][]): { kind: string; value: number } {
    const score = scoreLabels(this.#gold, predicted.flat(), this.#scheme);
    return score.kind === "accuracy"
      ? { kind: score.kind, value: score.accuracy }
      : { kind: score.kind, value: score.evaluation.f1 };
  }
}

function resolveDecoder(decoder: string | Decoder, registry?: DecoderRegistry): Decoder {
  return typeof decoder === "string" ? (registry ?? standardDecoders()).create(decoder) : decoder;
}
