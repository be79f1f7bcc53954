/**
 * How a chain CRF's jackknife folds are trained again from its model file alone, as `lagrange
 * train` trained it: the TrainingSpec its settings record, and each fold's features (the recorded
 * spec, a task preset's mined lexicons mined again from the fold's sentences). What cannot be
 * redone so is refused, naming the model.
 */
import { type CrfModel, TRAINING_ALGORITHMS, type TrainingAlgorithm } from "@lagrange/chain-crf";
import { type JsonValue, LagrangeError } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import { modelFeatureSpec } from "./model-features.js";
import { isChunkScheme, modelOutputScheme, modelScheme } from "./model-scheme.js";
import { getTaskPreset, isTaskPreset } from "./preset-names.js";
import type { TrainingFeatures } from "./task-presets/training-features.js";
import { featuresOnPart } from "./task-presets/tuning-fold.js";
import { definedFields } from "./training/defined-fields.js";
import type { TrainingSpec } from "./training/spec.js";

export interface RecordedTraining {
  readonly spec: TrainingSpec;
  /** The features a fold trained on `corpus` gets (mined lexicons from its sentences alone). */
  readonly featuresOf: (corpus: Corpus) => TrainingFeatures;
}

/** The training `model` records, to train its jackknife folds the same way (`source` names it). */
export function recordedTraining(model: CrfModel, source: string): RecordedTraining {
  const refuse = (why: string): never => {
    throw new LagrangeError(
      "usage",
      `${source} ${why}, so its jackknife folds cannot be trained as it was; document constraints learn from a chain CRF trained by lagrange train`,
    );
  };
  if (model.features.includes("first-stage")) refuse("is a two-stage model");
  if (model.features.includes("general-crf")) refuse("is a general CRF");
  const s = model.settings;
  const algorithm = s.algorithm;
  if (typeof algorithm !== "string" || !isAlgorithm(algorithm)) {
    refuse("records no training algorithm (a model imported from CRFsuite?)");
  }
  if (s.init !== undefined) refuse("continues another model (--init)");
  if (s.objective !== undefined && s.objective !== "crf") {
    refuse(`was trained with objective ${JSON.stringify(s.objective)}`);
  }
  if (s.classWeights !== undefined) refuse("was trained with class weights");
  const spec = modelFeatureSpec(model);
  if (spec === null && model.preset === null) refuse("records no feature preset");
  // The data's scheme (folds convert their gold from it, mined lexicons read their spans under
  // it), and the one the model was trained under: "keep" for a model from before the preset had
  // one, whose preset now asks for an internal scheme.
  const scheme = modelOutputScheme(model);
  const internal = modelScheme(model);
  const internalScheme = internal === scheme || !isChunkScheme(internal) ? "keep" : internal;
  const task =
    model.taskPreset !== null && isTaskPreset(model.taskPreset)
      ? getTaskPreset(model.taskPreset)
      : undefined;
  const trainingSpec: TrainingSpec = {
    algorithm: algorithm as TrainingAlgorithm,
    ...definedFields({
      c1: numberOf(s.c1),
      c2: numberOf(s.c2),
      maxIterations: numberOf(s.maxIterations),
      minAttributeFrequency: numberOf(s.minAttributeFrequency),
      constrainedTraining: s.constrainedTraining === true ? true : undefined,
      scheme,
      taskPreset: task?.name,
    }),
    internalScheme,
    ...foldStopping(model),
    ...(s.order === 2 ? { order: 2, trigrams: s.trigrams === "all" ? "all" : "observed" } : {}),
  };
  const preset = model.preset ?? spec?.base ?? "template";
  // The task preset's mining, on the fold's sentences, over the resources the model embeds.
  const featuresOf = (corpus: Corpus): TrainingFeatures =>
    spec === null
      ? { preset, notes: [] }
      : featuresOnPart(
          { preset, features: spec, ...(task === undefined ? {} : { task }), notes: [] },
          corpus,
          scheme,
        );
  return { spec: trainingSpec, featuresOf };
}

/**
 * How a model's jackknife folds train: a model kept at the best iteration of its held-out curve
 * has its folds train that long, with no loss rule (delta 0) the model's own training did not
 * have either; any other model, as its settings say.
 */
export function foldStopping(model: CrfModel): Pick<TrainingSpec, "maxIterations" | "delta"> {
  const stopping = model.settings.stopping;
  if (typeof stopping !== "object" || stopping === null || Array.isArray(stopping)) return {};
  // Array.isArray does not narrow a readonly array away.
  const best = numberOf((stopping as { readonly [key: string]: JsonValue }).bestIteration);
  return best === undefined ? {} : { maxIterations: best, delta: 0 };
}

function isAlgorithm(name: string): name is TrainingAlgorithm {
  return (TRAINING_ALGORITHMS as readonly string[]).includes(name);
}

function numberOf(value: JsonValue | undefined): number | undefined {
  return typeof value === "number" ? value : undefined;
}
