import {
  type ChainScorer,
  type CrfModel,
  type JsonValue,
  MAX_WEIGHT_MAGNITUDE,
  type Preset,
} from "@lagrange/chain-crf";
import {
  type ChainScores,
  chainDecoder,
  type DecodeOptions,
  type Decoder,
  type DecoderRegistry,
  type Decoding,
  LagrangeError,
  throwIfAborted,
  yieldToEventLoop,
} from "@lagrange/core";
import {
  type Corpus,
  type LabelScheme,
  type Sentence,
  scoreLabelling as scoreLabels,
} from "@lagrange/datasets";
import {
  CONSISTENCY_FEATURES,
  type ConsistencyFactorOptions,
  type ConsistencyModel,
  type ConsistencyTrainingProgress,
  type ConsistencyTrainingResult,
  consistencyFeatureNames,
  documentGroups,
  type GroupInstance,
  groupInstance,
  groupProblem,
  labelSubsequences,
  sentenceLabels,
  TWEET_GROUP_DEFAULTS,
  type TweetGroupOptions,
  trainConsistencyWeights,
  tweetGroups,
} from "@lagrange/mincut";
import { standardDecoders } from "./decoders.js";
import { modelPreset, sentenceAttributes } from "./model-input.js";
import { modelDecodingConstraints, modelScheme } from "./model-scheme.js";
import { DEFAULT_DECODERS } from "./tagging/default-decoders.js";
import { type TrainOnCorpusOptions, trainOnCorpus } from "./training.js";

/** How sentences form the groups a general CRF links: tweet clusters or documents. */
export type GroupingKind = "tweets" | "documents";
export const GROUPING_KINDS: readonly GroupingKind[] = ["tweets", "documents"];

/**
 * How training chose the consistency weights on a held-out cut of the training data (the groups
 * of jackknife fold 1, scored by the chain CRF that did not see them and left out of the
 * perceptron): the averaged weights after `epochs` epochs, times `scale`, or the chain alone
 * (`scale` 0, `epochs` 0) when no candidate beat it there. Scores are chunk F1 (token accuracy
 * for labels without chunks), 0…1.
 */
export interface ConsistencySelection {
  readonly heldOutGroups: number;
  readonly heldOutSentences: number;
  /** "f1" or "accuracy": what the scores measure. */
  readonly measure: "f1" | "accuracy";
  /** The chain alone on the cut. */
  readonly chainScore: number;
  /** The chosen model on the cut (= chainScore when the chain alone was chosen). */
  readonly generalScore: number;
  readonly epochs: number;
  readonly scale: number;
  /** The averaged weights (scale 1) on the cut after each epoch. */
  readonly perEpoch: readonly number[];
}

/** What a general CRF records besides its chain model (stored in the model file's settings). */
export interface GeneralCrfSettings {
  readonly groups: GroupingKind;
  readonly grouping?: TweetGroupOptions;
  readonly factors?: ConsistencyFactorOptions;
  /** Set by training with a held-out cut (folds ≥ 2): what was chosen there, and why. */
  readonly selection?: ConsistencySelection;
}

/** A general CRF: a chain CRF plus consistency potentials over groups (qian-liu2014). */
export interface GeneralCrf {
  readonly model: CrfModel;
  readonly consistency: ConsistencyModel;
  readonly settings: GeneralCrfSettings;
}

const SETTINGS_KEY = "generalCrf";

/** The tweet grouping's defaults (mincut's), for apps that show them. */
export { TWEET_GROUP_DEFAULTS };

/** Defaults of general-CRF training that apps show: jackknife folds, epochs (the paper's 10), decoder. */
export const GENERAL_CRF_DEFAULTS = {
  folds: 4,
  epochs: 10,
  decoder: DEFAULT_DECODERS["general-crf"],
} as const;

/**
 * Bounds on the factor options a model file may carry. The defaults are 3 and 10, and training
 * from the command line never changes them; beyond these a crafted file could make one repeated
 * word link millions of phrase pairs (maxOccurrences² / 2 factors) or loop over lengths no
 * sentence has.
 */
const MAX_STORED_PHRASE_LENGTH = 16;
const MAX_STORED_OCCURRENCES = 100;

/**
 * The general CRF a model file carries, or null for a plain chain CRF. Its part of the file's
 * settings is validated as any model data is (ids in range, finite weights, bounded options):
 * a malformed one is a `bad-input` error naming `source` (the model file).
 */
export function generalCrfOf(model: CrfModel, source = "the model"): GeneralCrf | null {
  const stored = model.generalCrf;
  if (stored === null) return null;
  const bad = (what: string): never => {
    throw new LagrangeError(
      "bad-input",
      `${source}: the general-CRF settings are malformed: ${what} (retrain with lagrange train --model general)`,
    );
  };
  if (!isObject(stored)) return bad("not an object");
  const s = stored;
  const L = model.numLabels;
  const groups = s.groups;
  if (groups !== "tweets" && groups !== "documents") bad(`groups ${JSON.stringify(groups)}`);
  const weights = s.weights;
  if (
    !Array.isArray(weights) ||
    weights.length !== CONSISTENCY_FEATURES ||
    !weights.every((w) => typeof w === "number" && Math.abs(w) <= MAX_WEIGHT_MAGNITUDE)
  ) {
    bad(
      `weights: expected ${CONSISTENCY_FEATURES} finite numbers of magnitude at most ${MAX_WEIGHT_MAGNITUDE}`,
    );
  }
  const outsideLabel = s.outsideLabel;
  if (!isIndex(outsideLabel, L)) bad(`outsideLabel ${JSON.stringify(outsideLabel)} (${L} labels)`);
  const subsequences = s.subsequences;
  if (
    !Array.isArray(subsequences) ||
    subsequences.length < 2 ||
    subsequences.length > MAX_STORED_PHRASE_LENGTH + 1
  ) {
    return bad(`subsequences: expected a list of 2…${MAX_STORED_PHRASE_LENGTH + 1} lists`);
  }
  subsequences.forEach((q, length) => {
    if (
      !Array.isArray(q) ||
      (length > 0 && q.length % length !== 0) ||
      (length === 0 && q.length > 0)
    ) {
      bad(`subsequences[${length}]: expected a flat list of label windows of length ${length}`);
    }
    const at = (q as JsonValue[]).findIndex((id) => !isIndex(id, L));
    if (at >= 0) bad(`subsequences[${length}][${at}] is not a label id below ${L}`);
  });
  const factors = s.factors;
  if (factors !== undefined) {
    if (!isObject(factors)) bad("factors: not an object");
    const f = factors as { readonly [key: string]: JsonValue };
    checkInteger(f.maxLength, "factors.maxLength", 1, MAX_STORED_PHRASE_LENGTH, bad);
    checkInteger(f.maxOccurrences, "factors.maxOccurrences", 2, MAX_STORED_OCCURRENCES, bad);
    if (f.caseSensitive !== undefined && typeof f.caseSensitive !== "boolean") {
      bad("factors.caseSensitive: not a boolean");
    }
  }
  const grouping = s.grouping;
  if (grouping !== undefined) {
    if (!isObject(grouping)) bad("grouping: not an object");
    const g = grouping as { readonly [key: string]: JsonValue };
    checkInteger(g.minOverlap, "grouping.minOverlap", 1, Number.MAX_SAFE_INTEGER, bad);
    checkInteger(g.maxGroupSize, "grouping.maxGroupSize", 1, Number.MAX_SAFE_INTEGER, bad);
    if (g.words !== undefined && g.words !== "all" && g.words !== "content") {
      bad(`grouping.words ${JSON.stringify(g.words)}`);
    }
  }
  const selection = s.selection;
  if (selection !== undefined) {
    const numbers = ["heldOutGroups", "heldOutSentences", "chainScore", "generalScore", "epochs"];
    if (
      !isObject(selection) ||
      !numbers.every((k) => typeof selection[k] === "number" && Number.isFinite(selection[k])) ||
      (selection.measure !== "f1" && selection.measure !== "accuracy") ||
      !(typeof selection.scale === "number" && selection.scale >= 0 && selection.scale <= 1e6) ||
      !(
        Array.isArray(selection.perEpoch) &&
        selection.perEpoch.every((x) => typeof x === "number" && Number.isFinite(x))
      )
    ) {
      bad("selection: expected the held-out choice training records");
    }
  }
  const consistency: ConsistencyModel = {
    L,
    outsideLabel: outsideLabel as number,
    weights: Float64Array.from(weights as number[]),
    subsequences: (subsequences as number[][]).map((q) => Int32Array.from(q)),
    factorOptions: (factors ?? {}) as ConsistencyFactorOptions,
  };
  const settings: GeneralCrfSettings = {
    groups: groups as GroupingKind,
    ...(grouping === undefined ? {} : { grouping: grouping as TweetGroupOptions }),
    ...(factors === undefined ? {} : { factors: factors as ConsistencyFactorOptions }),
    ...(selection === undefined ? {} : { selection: selection as unknown as ConsistencySelection }),
  };
  return { model, consistency, settings };
}

function isObject(x: JsonValue | undefined): x is { readonly [key: string]: JsonValue } {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** An integer label id in 0…L−1. */
function isIndex(x: JsonValue | undefined, L: number): boolean {
  return typeof x === "number" && Number.isInteger(x) && x >= 0 && x < L;
}

/** Absent, or an integer in min…max. */
function checkInteger(
  x: JsonValue | undefined,
  what: string,
  min: number,
  max: number,
  bad: (what: string) => never,
): void {
  if (x === undefined) return;
  if (!(typeof x === "number" && Number.isInteger(x) && x >= min && x <= max)) {
    bad(`${what} ${JSON.stringify(x)}: expected an integer in ${min}…${max}`);
  }
}

/** The model with a general CRF's consistency part recorded in its settings (one model file). */
export function withGeneralCrf(
  model: CrfModel,
  consistency: ConsistencyModel,
  settings: GeneralCrfSettings,
): CrfModel {
  const record: { [key: string]: JsonValue } = {
    groups: settings.groups,
    outsideLabel: consistency.outsideLabel,
    weights: Array.from(consistency.weights),
    featureNames: consistencyFeatureNames(),
    subsequences: consistency.subsequences.map((q) => Array.from(q)),
  };
  if (settings.grouping !== undefined) record.grouping = { ...settings.grouping };
  if (settings.factors !== undefined) {
    const { stopwords: _custom, ...plain } = settings.factors;
    record.factors = { ...plain };
  }
  if (settings.selection !== undefined) {
    record.selection = { ...settings.selection, perEpoch: [...settings.selection.perEpoch] };
  }
  return model.withSettings({ [SETTINGS_KEY]: record });
}

/** The groups of a corpus: size-bounded single-linkage tweet clusters, or its documents. */
export function corpusGroups(
  sentences: readonly Sentence[],
  kind: GroupingKind,
  grouping: TweetGroupOptions = {},
): Int32Array[] {
  if (kind === "tweets")
    return tweetGroups(
      sentences.map((s) => s.tokens),
      grouping,
    );
  let unique = -1;
  return documentGroups(sentences.map((s) => s.document?.index ?? unique--));
}

/** The model's chain scores of sentences (copied: the scorer reuses its buffers). */
export class ChainScoring {
  readonly #preset: Preset;
  readonly #scorer: ChainScorer;
  constructor(model: CrfModel) {
    this.#preset = modelPreset(model);
    this.#scorer = model.scorer(modelDecodingConstraints(model));
  }
  score(sentence: Sentence): ChainScores {
    const scores = this.#scorer.score(sentenceAttributes(this.#preset, sentence));
    return {
      ...scores,
      unary: scores.unary.slice(),
      transition:
        scores.transition.length === scores.L * scores.L
          ? scores.transition
          : scores.transition.slice(),
    };
  }
}

/** Builds the group instances of a corpus: its groups' chains (by `scoreOf`) and factors. */
export function groupInstances(
  sentences: readonly Sentence[],
  groups: readonly Int32Array[],
  scoreOf: (index: number) => ChainScores,
  factors: ConsistencyFactorOptions = {},
  gold?: (index: number) => ArrayLike<number>,
): GroupInstance[] {
  return groups.map((members) => {
    const indices = Array.from(members);
    return groupInstance(
      indices.map(scoreOf),
      indices.map((k) => sentences[k]!.tokens),
      factors,
      gold === undefined ? undefined : indices.map(gold),
    );
  });
}

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

  // Jackknife: group g's sentences are scored by the CRF that did not see fold g mod folds.
  const foldOf = new Int32Array(sentences.length);
  groups.forEach((members, g) => {
    for (const k of members) foldOf[k] = g % folds;
  });
  const scores: ChainScores[] = new Array(sentences.length);
  for (let f = 0; f < folds; f++) {
    throwIfAborted(signal);
    const model =
      folds === 1
        ? base
        : await trainModel(
            { ...train, sentences: sentences.filter((_, k) => foldOf[k] !== f) },
            labels,
            f + 1,
          );
    if (folds > 1) options.onProgress?.({ stage: "crf", fold: f + 1, folds });
    const scoring = new ChainScoring(model);
    sentences.forEach((s, k) => {
      if (foldOf[k] === f) scores[k] = scoring.score(s);
    });
  }
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

/** One decoded group. */
export interface DecodedGroup {
  /** Sentence indices of the group, in order. */
  readonly members: Int32Array;
  readonly decoding: Decoding;
  readonly positions: number;
  readonly factors: number;
}

export interface GeneralTagging {
  /** Predicted label names per sentence, in corpus order. */
  readonly labels: string[][];
  readonly groups: readonly DecodedGroup[];
  readonly decodingMs: number;
}

/**
 * Tags sentences with a general CRF: groups them as the model says, scores each group's chain and
 * factors, and decodes each group with the decoder (two-slave, naive-dd, exact — or viterbi, which
 * then ignores the consistency part). `chainOnly` decodes the groups without their patterns (the
 * linear-chain baseline on the same model).
 */
export async function tagGeneral(
  crf: GeneralCrf,
  sentences: readonly Sentence[],
  decoder: Decoder,
  options: {
    readonly decodeOptions?: DecodeOptions;
    readonly chainOnly?: boolean;
    readonly signal?: AbortSignal;
    readonly onGroup?: (done: number, total: number) => void;
  } = {},
): Promise<GeneralTagging> {
  const scoring = new ChainScoring(crf.model);
  const groups = corpusGroups(sentences, crf.settings.groups, crf.settings.grouping);
  const instances = groupInstances(
    sentences,
    groups,
    (k) => scoring.score(sentences[k]!),
    crf.settings.factors ?? {},
  );
  const labels: string[][] = new Array(sentences.length);
  const decoded: DecodedGroup[] = [];
  const decodeOptions: DecodeOptions = {
    ...options.decodeOptions,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let decodingMs = 0;
  for (const [g, instance] of instances.entries()) {
    // Yield between groups so that Ctrl-C (an AbortSignal fired from the event loop) is seen.
    if (g % 8 === 7) await yieldToEventLoop();
    throwIfAborted(options.signal);
    const problem =
      options.chainOnly === true
        ? { scores: instance.chain }
        : groupProblem(instance, crf.consistency);
    const t0 = performance.now();
    const decoding = decoder.decode(problem, decodeOptions);
    decodingMs += performance.now() - t0;
    if (decoding.status === "infeasible") {
      throw new LagrangeError("bad-input", "no labelling of a group meets the label scheme");
    }
    const parts = sentenceLabels(instance, decoding.labels);
    groups[g]!.forEach((k, p) => {
      labels[k] = crf.model.labels.decode(parts[p]!);
    });
    decoded.push({
      members: groups[g]!,
      decoding,
      positions: instance.chain.n,
      factors: instance.factors.length,
    });
    options.onGroup?.(g + 1, instances.length);
  }
  return { labels, groups: decoded, decodingMs };
}
