import {
  type CrfModel,
  iterationCap,
  STOP_REASON_TEXT,
  type TrainingProgress,
} from "@lagrange/chain-crf";
import { type JsonValue, LagrangeError } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import { parseClassWeights } from "../class-weights.js";
import {
  type DocumentConstraintsOptions,
  learnDocumentConstraints,
  type SelectedDocumentConstraints,
} from "../document-constraints.js";
import {
  type FoldTrainer,
  type GeneralCrfTrainingOptions,
  type TrainedGeneralCrf,
  trainGeneralCrf,
} from "../general-crf.js";
import { getTaskPreset } from "../preset-names.js";
import type { HeldOutRule, TaskPreset } from "../task-presets/task-presets.js";
import type { TrainingFeatures } from "../task-presets/training-features.js";
import { featuresOnPart, tuningCut } from "../task-presets/tuning-fold.js";
import { type TrainedOnCorpus, type TrainOnCorpusOptions, trainOnCorpus } from "../training.js";
import {
  type CrfsuiteCorpus,
  type TrainedOnCrfsuite,
  trainOnCrfsuite,
} from "../training-crfsuite.js";
import { objectiveTraining } from "../training-objective.js";
import { type TrainedTwoStage, type TwoStageOptions, trainTwoStage } from "../two-stage/train.js";
import { definedFields } from "./defined-fields.js";
import { type L2sTrainer, openL2sTrainer } from "./l2s-trainer.js";
import type { L2sTrainingSpec, TrainingSpec } from "./spec.js";

/** What one run trains on, beside the spec: resolved features and data, hooks, a signal. */
export interface TrainerInputs {
  /** `trainingFeatures`' result, or a continued model's features (none: CRFsuite data's own). */
  readonly features?: TrainingFeatures;
  readonly dev?: Corpus;
  /** Continued training: the initial model, and what the continued model records of it. */
  readonly init?: {
    readonly model: CrfModel;
    readonly settings: { readonly [key: string]: JsonValue };
  };
  /** The memory estimate, once the layout is known (a bound may refuse it by throwing). */
  readonly onPrepared?: TrainOnCorpusOptions["onPrepared"];
  readonly signal?: AbortSignal;
}

type OnProgress = (progress: TrainingProgress) => void;

/** A general CRF's options beside the chain CRF's, which the trainer supplies. */
export interface GeneralTraining extends Omit<GeneralCrfTrainingOptions, "crf" | "trainModel"> {
  /** A jackknife fold's features (default: the run's); mined lexicons must not see the fold. */
  readonly featuresOf?: (corpus: Corpus, fold: number) => Promise<TrainingFeatures>;
  /** Each chain CRF's iterations (fold 0: the CRF on all the data). */
  readonly onChainProgress?: (progress: TrainingProgress, fold: number) => void;
  /** Jackknife folds' chain CRFs by fold, shared with other runs over the same corpus and features. */
  readonly foldModels?: Map<number, Promise<CrfModel>>;
}

/** The document constraints' options beside the fold trainer, which the trainer supplies. */
export interface DocumentConstraintsTraining
  extends Omit<DocumentConstraintsOptions, "trainModel"> {
  /** A jackknife fold's features (default: the run's); mined lexicons must not see the fold. */
  readonly featuresOf?: (corpus: Corpus, fold: number) => Promise<TrainingFeatures>;
  /** Each fold's chain CRF iterations (folds from 1). */
  readonly onChainProgress?: (progress: TrainingProgress, fold: number) => void;
  /**
   * Jackknife folds' chain CRFs by fold, shared with other runs over the same corpus and
   * features (the general CRF deals its document folds alike).
   */
  readonly foldModels?: Map<number, Promise<CrfModel>>;
}

/** How `Trainer.train` stopped under a task preset's held-out rule. */
export interface TuningStop {
  readonly rule: HeldOutRule;
  /** Sentences trained on (the rest) and scored on (the tuning fold). */
  readonly trainingSentences: number;
  readonly tuningSentences: number;
  /** What the curve scores: chunk F1, or token accuracy for plain tags. */
  readonly metric: "F1" | "accuracy";
  /** Set where the model was then trained again on all the data (its sentences). */
  readonly refitSentences?: number;
}

export interface TrainedByTrainer extends TrainedOnCorpus {
  /** Set when the task preset's held-out rule stopped the training. */
  readonly tuning?: TuningStop;
}

/**
 * Why a training stopped, in words; under the held-out rule, with the curve's best:
 * "held-out F1 stopped improving at iteration 140 (F1 88.20 on a tuning fold of 1500 sentences;
 * the model is iteration 140's, trained on the other 13541)".
 */
export function stoppingText(result: TrainedByTrainer): string {
  const reason = STOP_REASON_TEXT[result.stopReason];
  const { tuning, bestHeldOut: best } = result;
  if (tuning === undefined) return reason;
  const fold = `a tuning fold of ${tuning.tuningSentences} sentences`;
  if (best === undefined) return `${reason} before the first held-out score on ${fold}`;
  const score =
    tuning.metric === "F1" && best.f1 !== undefined
      ? `F1 ${(100 * best.f1).toFixed(2)}`
      : `accuracy ${(100 * best.tokenAccuracy).toFixed(2)}%`;
  const kept =
    tuning.refitSentences === undefined
      ? `the model is iteration ${best.iteration}'s, trained on the other ${tuning.trainingSentences}`
      : `then trained on all ${tuning.refitSentences} sentences for ${best.iteration} iterations`;
  return result.stopReason === "early-stopping"
    ? `held-out ${tuning.metric} stopped improving at iteration ${best.iteration} (${score} on ${fold}; ${kept})`
    : `${reason}; best held-out ${tuning.metric} at iteration ${best.iteration} (${score} on ${fold}; ${kept})`;
}

export interface Trainer {
  /** The task preset whose defaults were merged, if any. */
  readonly task: TaskPreset | undefined;
  /**
   * The task preset's held-out stopping rule, when `train` applies it: L-BFGS or OWL-QN, and no
   * `maxIterations`, `delta` or dev data given (any of them is the caller's rule instead). A corpus
   * of fewer than `minUnits` documents trains under the loss rule all the same. Once `train` has
   * stopped so, jackknife folds' CRFs (document constraints, the general CRF) train for its best
   * iteration count, as a model file's recorded training does (`recordedTraining`).
   */
  readonly heldOut: HeldOutRule | undefined;
  /** One training's iterations: the spec's, else the task preset's for L-BFGS and OWL-QN. */
  readonly maxIterations: number | undefined;
  /** One training's iteration cap, the algorithm's default included (undefined: none). */
  readonly limit: number | undefined;
  /** `trainOnCorpus`'s options for the run's features, or for `features` (a fold's). */
  options(onProgress?: OnProgress, features?: TrainingFeatures): TrainOnCorpusOptions;
  train(corpus: Corpus, onProgress?: OnProgress): Promise<TrainedByTrainer>;
  /** Two stages (Krishnan & Manning 2006): jackknifed first stages' votes as features. */
  trainTwoStage(
    corpus: Corpus,
    hooks: Pick<TwoStageOptions, "folds" | "onProgress" | "onStage">,
  ): Promise<TrainedTwoStage>;
  /** The chain CRF, its jackknifed folds, then consistency weights by perceptron (qian-liu2014). */
  trainGeneral(corpus: Corpus, general: GeneralTraining): Promise<TrainedGeneralCrf>;
  /**
   * Whether the run learns document constraints after the chain: the spec's
   * `documentConstraints` (default `auto`: when the task preset asks for them).
   */
  readonly documentConstraints: boolean;
  /**
   * Document constraints of `model` (trained on `corpus` by this trainer), learned on jackknifed
   * folds trained the same way (see `learnDocumentConstraints`).
   */
  learnDocumentConstraints(
    corpus: Corpus,
    model: CrfModel,
    hooks?: DocumentConstraintsTraining,
  ): Promise<SelectedDocumentConstraints>;
  /** CRFsuite's data, its attributes as given (no features to resolve). */
  trainCrfsuite(
    corpus: CrfsuiteCorpus,
    dev: CrfsuiteCorpus | undefined,
    onProgress?: OnProgress,
  ): Promise<TrainedOnCrfsuite>;
}

/**
 * The one place a task preset's training defaults (stopping rule, c2, the decoder its models are
 * meant for) meet the spec: `lagrange train` and the bench both train through it. An L2S spec
 * opens the learning-to-search trainer (checked by {@link checkTrainingSpec} first).
 */
export function openTrainer(spec: L2sTrainingSpec, inputs?: { limitBytes?: number }): L2sTrainer;
export function openTrainer(spec: TrainingSpec, inputs: TrainerInputs): Trainer;
export function openTrainer(
  spec: TrainingSpec | L2sTrainingSpec,
  inputs: TrainerInputs & { limitBytes?: number } = {},
): Trainer | L2sTrainer {
  return "learner" in spec
    ? openL2sTrainer(spec, inputs.limitBytes)
    : openChainTrainer(spec, inputs);
}

function openChainTrainer(spec: TrainingSpec, inputs: TrainerInputs): Trainer {
  const { features, init } = inputs;
  const task =
    features?.task ?? (spec.taskPreset === undefined ? undefined : getTaskPreset(spec.taskPreset));
  const quasiNewton = spec.algorithm === "lbfgs" || spec.algorithm === "owlqn";
  const maxIterations = spec.maxIterations ?? (quasiNewton ? task?.maxIterations : undefined);
  const heldOut =
    quasiNewton &&
    spec.maxIterations === undefined &&
    spec.delta === undefined &&
    inputs.dev === undefined &&
    init === undefined
      ? (task?.heldOut ?? undefined)
      : undefined;
  const objective = objectiveTraining(
    definedFields({
      objective: spec.objective,
      iterations: spec.objectiveIterations,
      partialLabels: spec.partialLabels,
    }),
  );
  // What the model file records: how it was trained, then the task preset and its decoder
  // (lagrange tag's default), or the model it continues.
  const settings = {
    ...objective.settings,
    ...(init !== undefined
      ? init.settings
      : features?.task !== undefined
        ? { taskPreset: features.task.name, decoder: features.task.decoder }
        : {}),
  };
  // Partial labels name the data's labels token by token: no conversion carries them.
  const internalScheme =
    spec.internalScheme === "keep"
      ? undefined
      : (spec.internalScheme ??
        (spec.partialLabels === true || task?.on.internalScheme !== true
          ? undefined
          : task.internalScheme));
  const fixed: Omit<TrainOnCorpusOptions, "preset"> = {
    ...definedFields({
      delta: spec.delta ?? (quasiNewton ? task?.delta : undefined),
      scheme: spec.scheme,
      internalScheme,
      c1: spec.c1 ?? (quasiNewton ? task?.c1 : undefined),
      c2: spec.c2 ?? task?.c2,
      maxIterations,
      threads: spec.threads,
      minAttributeFrequency: spec.minAttributeFrequency,
      dev: inputs.dev,
      patience: spec.patience,
      classWeights: parseClassWeights(spec.classWeights ?? []),
      onPrepared: inputs.onPrepared,
      init: init?.model,
      signal: inputs.signal,
      order: spec.order,
      trigrams: spec.trigrams,
    }),
    algorithm: spec.algorithm,
    ...(spec.constrainedTraining === true ? { constrainedTraining: true } : {}),
    ...(spec.allowNoProgress === true ? { allowNoProgress: true } : {}),
    ...objective,
    settings,
  };
  const options = (onProgress?: OnProgress, of = features): TrainOnCorpusOptions => {
    if (of === undefined) throw new LagrangeError("usage", "a chain CRF needs its features");
    return {
      ...fixed,
      preset: of.preset,
      ...definedFields({ features: of.features, jackknife: of.jackknife, onProgress }),
    };
  };
  /** An internal scheme asked for by name where only the data's can be: refused, not dropped. */
  const underDataSchemeOnly = (what: string): void => {
    const asked = spec.internalScheme;
    if (asked === undefined || asked === "keep") return;
    throw new LagrangeError(
      "usage",
      `internal scheme ${asked}: ${what} trains under the data's scheme; drop --internal-scheme or give keep`,
    );
  };
  /** The best iteration of the last `train` under the held-out rule. */
  let stoppedAt: number | undefined;
  /** Chain CRFs of jackknife folds, trained as the run's model with a fold's features. */
  const foldTrainer = (
    featuresOf: ((corpus: Corpus, fold: number) => Promise<TrainingFeatures>) | undefined,
    onChainProgress: ((progress: TrainingProgress, fold: number) => void) | undefined,
    cache: Map<number, Promise<CrfModel>> | undefined,
    underDataScheme = false,
  ): FoldTrainer => {
    const train: FoldTrainer = async (part, labels, fold) => {
      const of = featuresOf === undefined ? features : await featuresOf(part, fold);
      const progress =
        onChainProgress === undefined
          ? undefined
          : (p: TrainingProgress) => onChainProgress(p, fold);
      const trained = underDataScheme ? dataScheme(options(progress, of)) : options(progress, of);
      // Trained as the model was: as long as its held-out curve said, once `train` has run so.
      const chain =
        stoppedAt === undefined ? trained : { ...trained, maxIterations: stoppedAt, delta: 0 };
      return (await trainOnCorpus(part, labels.length === 0 ? chain : { ...chain, labels })).model;
    };
    if (cache === undefined) return train;
    return (part, labels, fold) => {
      let model = cache.get(fold);
      if (model === undefined) {
        model = train(part, labels, fold);
        cache.set(fold, model);
      }
      return model;
    };
  };
  /** The task preset's held-out rule: train on the rest, stop on the tuning fold's curve. */
  const trainHeldOut = async (
    corpus: Corpus,
    onProgress: OnProgress | undefined,
  ): Promise<TrainedByTrainer> => {
    const cut = heldOut === undefined ? null : tuningCut(corpus, heldOut);
    if (heldOut === undefined || cut === null || features === undefined) {
      return trainOnCorpus(corpus, options(onProgress));
    }
    const scheme = spec.scheme ?? corpus.scheme;
    // The trainer's own delta (1e-5) only: the curve decides, the cap is a safety net.
    const { delta: _loss, ...chain } = options(
      onProgress,
      featuresOnPart(features, cut.rest, scheme),
    );
    const result = await trainOnCorpus(cut.rest, {
      ...chain,
      dev: cut.tuning,
      patience: heldOut.patience,
      heldOutEvery: heldOut.every,
      maxIterations: heldOut.maxIterations,
    });
    const best = result.bestHeldOut;
    stoppedAt = best?.iteration;
    // Refitted: all the data, the features resolved on all of it, for the curve's best count
    // with no loss rule (the curve's own training had none either).
    const refit =
      heldOut.refit && best !== undefined
        ? await trainOnCorpus(corpus, {
            ...options(onProgress),
            maxIterations: best.iteration,
            delta: 0,
          })
        : undefined;
    // The model file's lexicons are mined from every training sentence, the tuning fold's too:
    // the fold was kept out of them only while it stood for unseen data.
    const model = (refit ?? result).model.withSettings({
      ...(features.features === undefined
        ? {}
        : { features: features.features as unknown as JsonValue }),
      stopping: {
        rule: "held-out",
        tuningSentences: cut.tuning.sentences.length,
        every: heldOut.every,
        patience: heldOut.patience,
        ...(best === undefined
          ? {}
          : { bestIteration: best.iteration, score: best.f1 ?? best.tokenAccuracy }),
        ...(refit === undefined ? {} : { refit: corpus.sentences.length }),
      },
    });
    return {
      ...result,
      ...(refit === undefined
        ? {}
        : { iterations: result.iterations + refit.iterations, numFeatures: refit.numFeatures }),
      model,
      tuning: {
        rule: heldOut,
        trainingSentences: cut.rest.sentences.length,
        tuningSentences: cut.tuning.sentences.length,
        metric: scheme === "none" ? "accuracy" : "F1",
        ...(refit === undefined ? {} : { refitSentences: corpus.sentences.length }),
      },
    };
  };
  return {
    task,
    heldOut,
    maxIterations,
    limit: iterationCap(spec.algorithm, maxIterations),
    documentConstraints: spec.documentConstraints !== "off" && task?.documentConstraints === true,
    learnDocumentConstraints: (corpus, model, hooks = {}) => {
      const { featuresOf, onChainProgress, foldModels, ...rest } = hooks;
      return learnDocumentConstraints(model, corpus, {
        ...definedFields({ signal: inputs.signal }),
        ...rest,
        trainModel: foldTrainer(featuresOf, onChainProgress, foldModels),
      });
    },
    options,
    train: trainHeldOut,
    trainTwoStage: async (corpus, { onProgress, ...hooks }) => {
      underDataSchemeOnly("two-stage training (its votes read the data's chunks)");
      return trainTwoStage(corpus, { ...dataScheme(options(onProgress)), ...hooks });
    },
    trainGeneral: async (corpus, general) => {
      underDataSchemeOnly("a general CRF (its consistency factors read the data's chunks)");
      const { featuresOf, onChainProgress, foldModels, ...rest } = general;
      const progress = (fold: number) =>
        onChainProgress === undefined
          ? undefined
          : (p: TrainingProgress) => onChainProgress(p, fold);
      return trainGeneralCrf(corpus, {
        ...definedFields({ signal: inputs.signal }),
        ...rest,
        crf: dataScheme(options(progress(0))),
        trainModel: foldTrainer(featuresOf, onChainProgress, foldModels, true),
      });
    },
    trainCrfsuite: (corpus, dev, onProgress) => {
      const { dev: _, partialLabels: __, init: initModel, internalScheme: ___, ...shared } = fixed;
      return trainOnCrfsuite(corpus, {
        ...shared,
        ...definedFields({ dev, onProgress, init: initModel }),
      });
    },
  };
}

/**
 * Options that train under the data's own scheme: a two-stage model's votes and a general CRF's
 * consistency factors read the labels' chunks under it.
 */
function dataScheme(options: TrainOnCorpusOptions): TrainOnCorpusOptions {
  const { internalScheme: _, ...rest } = options;
  return rest;
}
