import {
  BCRF_DEFAULT_ITERATIONS,
  MEAN_FIELD_DEFAULTS,
  type TrainingObjectiveName,
  trainingObjective,
} from "@lagrange/bcrf";
import type { TrainOnCorpusOptions } from "./training.js";

/** Inference steps per loss evaluation of the objectives that iterate, when none are given. */
const OBJECTIVE_ITERATIONS: Readonly<Record<Exclude<TrainingObjectiveName, "crf">, number>> = {
  bcrf: BCRF_DEFAULT_ITERATIONS,
  "mean-field": MEAN_FIELD_DEFAULTS.iterations,
};

/**
 * The inference steps per loss evaluation a run of `name` takes: `iterations`, or the objective's
 * default; undefined for the CRF likelihood, which is exact.
 */
export function objectiveIterations(
  name: TrainingObjectiveName,
  iterations?: number,
): number | undefined {
  return name === "crf" ? undefined : (iterations ?? OBJECTIVE_ITERATIONS[name]);
}

/** How a chain CRF is trained: the loss, its inference steps, whether labels may be partial. */
export interface ObjectiveChoice {
  /** Default `crf` (the likelihood). */
  readonly objective?: TrainingObjectiveName;
  /** bcrf: IBP half-steps per loss evaluation; mean-field: unrolled updates. */
  readonly iterations?: number;
  /** The gold column holds partial annotations (see {@link TrainOnCorpusOptions.partialLabels}). */
  readonly partialLabels?: boolean;
}

/**
 * The {@link trainOnCorpus} options of an objective: the objective itself (none for the
 * likelihood), partial labels, and the settings the model file records of them — for every
 * objective, the likelihood included, so that a model file says how it was trained.
 */
export function objectiveTraining(
  choice: ObjectiveChoice,
): Pick<TrainOnCorpusOptions, "objective" | "partialLabels" | "settings"> {
  const name = choice.objective ?? "crf";
  const objective = trainingObjective(
    name,
    choice.iterations === undefined ? {} : { iterations: choice.iterations },
  );
  const iterations = objectiveIterations(name, choice.iterations);
  const partial = choice.partialLabels === true ? { partialLabels: true } : {};
  return {
    ...(objective === undefined ? {} : { objective }),
    ...partial,
    settings: {
      objective: name,
      ...(iterations === undefined ? {} : { objectiveIterations: iterations }),
      ...partial,
    },
  };
}
