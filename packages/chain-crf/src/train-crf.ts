import { LagrangeError, type TransitionMask } from "@lagrange/core";
import { type CrfModel, type JsonValue, modelFromTraining } from "./crf-model.js";
import { type ClassWeights, isUniform, resolveClassWeights } from "./encoder/class-weights.js";
import type { SequenceObjective } from "./encoder/objective.js";
import { SecondOrderEncoder } from "./encoder/second-order.js";
import type { TrainingProgress } from "./encoder.js";
import type { LabelledSequence } from "./model/dataset.js";
import {
  estimateTrainingMemory,
  TrainingMemoryError,
  type TrainingMemoryEstimate,
} from "./model/memory.js";
import type { InitialModel } from "./model/warm-start.js";
import { PERCEPTRON_DEFAULT_EPOCHS, trainAveragedPerceptron } from "./train/perceptron.js";
import { SGD_DEFAULT_EPOCHS, trainSgd } from "./train/sgd.js";
import { trainLbfgs } from "./train/train-lbfgs.js";
import type { HeldOutOptions, HeldOutScore, StopReason } from "./train/types.js";
import { type PreparedLayout, prepareTrainingData, type TrainingData } from "./training-data.js";

export const TRAINING_ALGORITHMS = ["lbfgs", "owlqn", "ap", "sgd"] as const;
export type TrainingAlgorithm = (typeof TRAINING_ALGORITHMS)[number];

/**
 * The most iterations (epochs for ap and sgd) `algorithm` runs with `maxIterations` (or its
 * default); undefined when it has no cap: L-BFGS and OWL-QN stop when the loss does.
 */
export function iterationCap(
  algorithm: TrainingAlgorithm,
  maxIterations: number | undefined,
): number | undefined {
  if (maxIterations !== undefined) return maxIterations;
  return algorithm === "ap"
    ? PERCEPTRON_DEFAULT_EPOCHS
    : algorithm === "sgd"
      ? SGD_DEFAULT_EPOCHS
      : undefined;
}

/** Scores predicted label names against gold ones (e.g. conlleval chunk F1 from @lagrange/datasets). */
export type LabelScorer = (
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
) => HeldOutScore;

export interface TrainCrfOptions {
  /** Default `lbfgs` (L2; `owlqn` = L1 / elastic net). */
  readonly algorithm?: TrainingAlgorithm;
  /** L1 coefficient (owlqn; default 1 for owlqn, 0 otherwise). */
  readonly c1?: number;
  /** L2 coefficient, CRFsuite's convention c2·‖w‖² (default 1; 0 for owlqn). */
  readonly c2?: number;
  /** Iterations (L-BFGS) or epochs (perceptron, SGD). */
  readonly maxIterations?: number;
  /**
   * L-BFGS / OWL-QN: stop when the objective's relative decrease over `period` iterations falls
   * below `delta` (CRFsuite's rule; defaults 1e-5 over 10).
   */
  readonly delta?: number;
  readonly period?: number;
  /** Worker threads for the L-BFGS objective (default 1). */
  readonly threads?: number;
  /** Keep attributes seen at least this often (default 1). */
  readonly minAttributeFrequency?: number;
  /** Labels in a fixed order; labels seen in the data follow. */
  readonly labels?: readonly string[];
  /**
   * Weights for the first and the last label of a sequence (default true). False gives CRFsuite's
   * model class, which has none: what a model trained on CRFsuite's data needs to export as is.
   */
  readonly startEnd?: boolean;
  /** Builds the decoding constraints (e.g. BIO validity) once the label set is known. */
  readonly constraintsFor?: (labels: readonly string[]) => TransitionMask;
  /**
   * Train under the constraints of `constraintsFor` too (default false): each sequence's
   * likelihood is normalised over the labellings the mask allows only, so forbidden transitions
   * get no expected counts and the model spends no probability mass on labellings decoding would
   * reject. Every gold labelling must satisfy the mask (else a RangeError names the sequence).
   * Off by default so that the objective stays CRFsuite's (the benchmarks compare against it).
   */
  readonly constrainedTraining?: boolean;
  /**
   * The structured loss to minimise on the features (default: the CRF's negative
   * log-likelihood): @lagrange/bcrf's Bregman CRF Fenchel–Young loss or mean field's. Its name is
   * stored in the model file's settings (`objective`); the model decodes with any decoder.
   */
  readonly objective?: SequenceObjective;
  /**
   * Weights per gold label in the loss (see {@link ClassWeights}); a label not named keeps 1.
   * L-BFGS, OWL-QN, SGD and the plug-in objectives train the cost-augmented (softmax-margin) loss
   * of `CrfEncoder.setClassWeights`; the perceptron scales each mistake's update by the gold
   * label's weight. The resolved weights are stored in the settings (`classWeights`).
   */
  readonly classWeights?: ClassWeights;
  /** Held-out data evaluated during training; with `patience`, early stopping. */
  readonly heldOut?: {
    readonly sequences: readonly LabelledSequence[];
    readonly score: LabelScorer;
    readonly every?: number;
    readonly patience?: number;
  };
  readonly preset?: string | null;
  /** Seed for the perceptron's and SGD's shuffling. */
  readonly seed?: number;
  /** Extra provenance stored in the model file. */
  readonly settings?: { readonly [key: string]: JsonValue };
  // biome-ignore lint/suspicious/noConfusingVoidType: a logging callback returns nothing
  readonly onProgress?: (progress: TrainingProgress) => boolean | void;
  readonly signal?: AbortSignal;
  /**
   * Refuse to train (a {@link TrainingMemoryError}, before the weight vectors and the per-sentence
   * buffers are allocated) when {@link estimateTrainingMemory} says training needs more bytes
   * than this. Default: no limit.
   */
  readonly maxMemoryBytes?: number;
  /** Told the feature counts and the memory estimate once the layout is built, before training. */
  readonly onPrepared?: (preparation: TrainingPreparation) => void;
  /**
   * Continued training: start from this model (a `CrfModel`, trained here or imported from
   * CRFsuite). Its labels, attributes and features are all kept with their weights; those the
   * sequences add start at 0. Every algorithm starts there: L-BFGS and OWL-QN from its weights,
   * the perceptron and SGD with them. The settings record `init` (what was kept and added).
   */
  readonly init?: InitialModel;
  /**
   * 2 adds a weight per label trigram (L³ more weights), trained and decoded exactly over pairs
   * of labels (L³ per token instead of L²). Default 1. L-BFGS / OWL-QN on one thread, fully
   * labelled data; not with an objective, class weights, constrained training or `init`.
   */
  readonly order?: 1 | 2;
  /**
   * Order 2: weights for the label trigrams seen in the gold labels only (`observed`, default;
   * the others stay 0, and a token costs L² plus those trigrams) or for all L³ (`all`).
   */
  readonly trigrams?: "observed" | "all";
}

/** What training is about to work with, reported before any trainer buffer exists. */
export interface TrainingPreparation {
  readonly memory: TrainingMemoryEstimate;
  /** State attributes kept by the frequency cut-off, of `attributesSeen` distinct ones. */
  readonly attributes: number;
  readonly attributesSeen: number;
  /** How often the most frequent attribute occurs. */
  readonly highestAttributeCount: number;
  readonly minAttributeFrequency: number;
}

export interface TrainCrfResult {
  readonly model: CrfModel;
  readonly iterations: number;
  readonly loss: number;
  readonly seconds: number;
  readonly stopReason: StopReason;
  readonly numFeatures: number;
  readonly bestHeldOut?: HeldOutScore & { readonly iteration: number };
}

/**
 * What {@link trainCrf} does once the feature layout is known and before any label-sized buffer
 * exists: reports the memory estimate (`onPrepared`) and refuses past `maxMemoryBytes`.
 */
function memoryCheck(
  options: TrainCrfOptions,
  algorithm: TrainingAlgorithm,
  order: 1 | 2,
): (prepared: PreparedLayout) => void {
  return ({ dataset, layout, attributesSeen, highestAttributeCount }) => {
    const memory = estimateTrainingMemory(layout, dataset, {
      algorithm,
      threads: options.threads ?? 1,
      l1: (options.c1 ?? 0) > 0,
      earlyStopping: options.heldOut?.patience !== undefined,
      order,
      ...(options.objective === undefined ? {} : { objective: options.objective.name }),
    });
    options.onPrepared?.({
      memory,
      attributes: layout.numAttributes,
      attributesSeen,
      highestAttributeCount,
      minAttributeFrequency: options.minAttributeFrequency ?? 1,
    });
    const limit = options.maxMemoryBytes;
    if (limit !== undefined && memory.totalBytes > limit) {
      throw new TrainingMemoryError(memory, limit);
    }
  };
}

/**
 * Attributes and gold labels in, a trained model out: dictionaries, compiled corpus, feature
 * layout, the chosen trainer, and held-out evaluation that decodes with the model's own
 * constraints. The one-call path behind `lagrange train`, the benchmarks and the demo.
 */
export async function trainCrf(
  sequences: readonly LabelledSequence[],
  options: TrainCrfOptions = {},
): Promise<TrainCrfResult> {
  const algorithm = options.algorithm ?? "lbfgs";
  const order = checkOrder(options, algorithm);
  if (!TRAINING_ALGORITHMS.includes(algorithm)) {
    throw new RangeError(
      `unknown training algorithm "${algorithm}"; expected one of ${TRAINING_ALGORITHMS.join(", ")}`,
    );
  }
  const data = prepareTrainingData(sequences, {
    ...(options.minAttributeFrequency === undefined
      ? {}
      : { minAttributeFrequency: options.minAttributeFrequency }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.init === undefined ? {} : { init: options.init }),
    ...(options.startEnd === false ? { startEnd: false } : {}),
    shared: (options.threads ?? 1) > 1,
    // The estimate scans the corpus: made only for a caller who reads it or sets a limit.
    ...(options.onPrepared === undefined && options.maxMemoryBytes === undefined
      ? {}
      : { beforeEncoder: memoryCheck(options, algorithm, order) }),
  });
  const constraints = options.constraintsFor?.(data.labels.names());
  if (options.constrainedTraining === true) {
    if (constraints === undefined) {
      throw new RangeError("constrainedTraining needs constraintsFor (the mask to train under)");
    }
    data.encoder.setConstraints(constraints, data.labels.names());
  }
  if (options.objective !== undefined) data.encoder.setObjective(options.objective);
  const classWeights =
    options.classWeights === undefined
      ? undefined
      : resolveClassWeights(options.classWeights, data.labels.names(), data.dataset.labels);
  // All 1: nothing to weigh, and training stays the unweighted one bit for bit.
  const weighted = classWeights !== undefined && !isUniform(classWeights);
  if (weighted && algorithm !== "ap") data.encoder.setClassWeights(classWeights);
  // Which trigram weights a second-order chain trains; null: a first-order one.
  const trigrams = order === 2 ? (options.trigrams ?? "observed") : null;
  const settings: { [key: string]: JsonValue } = {
    algorithm,
    ...(options.c1 === undefined ? {} : { c1: options.c1 }),
    ...(options.c2 === undefined ? {} : { c2: options.c2 }),
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(options.minAttributeFrequency === undefined
      ? {}
      : { minAttributeFrequency: options.minAttributeFrequency }),
    trainingSequences: sequences.length,
    ...(options.objective === undefined ? {} : { objective: options.objective.name }),
    ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
    ...(trigrams === null ? {} : { order, trigrams }),
    ...(classWeights === undefined
      ? {}
      : { classWeights: classWeightRecord(classWeights, data.labels.names(), options) }),
    ...(options.init === undefined ? {} : { init: warmStartRecord(options.init, data) }),
    ...options.settings,
  };
  const extra = {
    preset: options.preset ?? null,
    settings,
    ...(constraints === undefined ? {} : { constraints }),
  };

  let heldOut: HeldOutOptions | undefined;
  const held = options.heldOut;
  if (held !== undefined) {
    const gold = held.sequences.map((s) =>
      (s.labels ?? []).map((l) => (typeof l === "string" ? l : "O")),
    );
    heldOut = {
      evaluate(weights: Float64Array) {
        const model = modelFromTraining(data, weights, extra);
        const predicted = held.sequences.map((s) => model.tag(s.attributes));
        return held.score(gold, predicted);
      },
      ...(held.every === undefined ? {} : { every: held.every }),
      ...(held.patience === undefined ? {} : { patience: held.patience }),
    };
  }
  const common = {
    ...(heldOut === undefined ? {} : { heldOut }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(data.initialWeights === undefined ? {} : { initialWeights: data.initialWeights }),
  };
  const encoder =
    trigrams === null
      ? data.encoder
      : new SecondOrderEncoder(data.dataset, data.layout, { trigrams });
  // The L1 coefficient of L-BFGS / OWL-QN: OWL-QN's default is 1, L-BFGS's 0.
  const c1 = options.c1 ?? (algorithm === "owlqn" ? 1 : 0);
  const result =
    algorithm === "ap"
      ? await trainAveragedPerceptron(data.encoder, {
          ...common,
          ...(options.maxIterations === undefined ? {} : { epochs: options.maxIterations }),
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(weighted ? { classWeights } : {}),
        })
      : algorithm === "sgd"
        ? await trainSgd(data.encoder, {
            ...common,
            ...(options.c2 === undefined ? {} : { c2: options.c2 }),
            ...(options.maxIterations === undefined ? {} : { epochs: options.maxIterations }),
            ...(options.seed === undefined ? {} : { seed: options.seed }),
          })
        : await trainLbfgs(encoder, {
            ...common,
            c1,
            c2: options.c2 ?? (algorithm === "owlqn" ? 0 : 1),
            ...(options.maxIterations === undefined
              ? {}
              : { maxIterations: options.maxIterations }),
            ...(options.delta === undefined ? {} : { delta: options.delta }),
            ...(options.period === undefined ? {} : { period: options.period }),
            ...(options.threads === undefined ? {} : { threads: options.threads }),
          });
  const trainedModel = modelFromTraining(data, result.weights, extra);
  // L1 zeroes most weights: the model file keeps only the rest (every score unchanged). A
  // second-order model's trigram weights sit outside the layout pruning rewrites.
  const l1 = algorithm !== "ap" && algorithm !== "sgd" && c1 > 0;
  const model = l1 && trigrams === null ? trainedModel.pruned() : trainedModel;
  return {
    model,
    iterations: result.iterations,
    loss: result.loss,
    seconds: result.seconds,
    stopReason: result.stopReason,
    numFeatures: encoder.numWeights,
    ...(result.bestHeldOut === undefined ? {} : { bestHeldOut: result.bestHeldOut }),
  };
}

/** What continued training kept of the initial model and what the new data added to it. */
function warmStartRecord(init: InitialModel, data: TrainingData): { [key: string]: JsonValue } {
  const source = init.settings?.data;
  return {
    labels: init.labels.size,
    attributes: init.attributes.size,
    features: init.layout.numWeights,
    addedLabels: data.labels.size - init.labels.size,
    addedAttributes: data.attributes.size - init.attributes.size,
    addedFeatures: data.layout.numWeights - init.layout.numWeights,
    ...(source === undefined ? {} : { data: source }),
  };
}

/** The class weights as the settings keep them: the resolved weight of every label, and how. */
function classWeightRecord(
  weights: Float64Array,
  names: readonly string[],
  options: TrainCrfOptions,
): { [key: string]: JsonValue } {
  const byLabel: { [label: string]: number } = {};
  names.forEach((name, y) => {
    byLabel[name] = weights[y]!;
  });
  const balanced = options.classWeights?.balanced;
  return {
    labels: byLabel,
    ...(balanced === undefined || balanced === false
      ? {}
      : { balanced: balanced === true ? 1 : balanced }),
    ...(options.classWeights?.labels === undefined
      ? {}
      : { explicit: { ...options.classWeights.labels } }),
  };
}

/** The chain's order, refusing what second-order training does not support. */
function checkOrder(options: TrainCrfOptions, algorithm: TrainingAlgorithm): 1 | 2 {
  const order = options.order ?? 1;
  if (order !== 1 && order !== 2) {
    throw new LagrangeError("usage", `order must be 1 or 2, got ${String(order)}`);
  }
  const init = options.init;
  if (order === 1 && init !== undefined && "trigrams" in init && init.trigrams != null) {
    // Continuing it as a first-order model would drop its trigram weights without a word.
    throw new LagrangeError(
      "usage",
      "continued training (init) from a second-order model is not supported: it would lose its trigram weights",
    );
  }
  if (order === 1) return order;
  const refused =
    algorithm !== "lbfgs" && algorithm !== "owlqn"
      ? `the ${algorithm} trainer`
      : options.objective !== undefined
        ? "a plug-in objective"
        : options.classWeights !== undefined
          ? "class weights"
          : options.constrainedTraining === true
            ? "constrained training"
            : options.init !== undefined
              ? "continued training (init)"
              : null;
  if (refused !== null) {
    throw new LagrangeError(
      "usage",
      `second-order training (order 2) does not take ${refused}: it trains the likelihood with lbfgs or owlqn`,
    );
  }
  return order;
}
