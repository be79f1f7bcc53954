import type { HashedFeatures } from "../features/hashing.js";
import {
  CostSensitiveRegressor,
  REGRESSOR_DEFAULTS,
  type RegressorOptions,
  type RegressorState,
  strideOf,
} from "./cost-sensitive.js";
import {
  CostSensitivePerceptron,
  type CostSensitivePerceptronOptions,
  PERCEPTRON_DEFAULTS,
  type PerceptronState,
} from "./perceptron.js";

/** What the search engine needs of a base learner: cost-sensitive classification over hashed features. */
export interface CostSensitiveLearner {
  readonly actions: number;
  readonly bits: number;
  /** Whether {@link averaged} differs from the learner itself. */
  readonly averages: boolean;
  /** out[a] += predicted cost of action a. */
  addScores(features: HashedFeatures, out: Float64Array): void;
  /** One cost-sensitive example over the listed actions. */
  update(
    features: HashedFeatures,
    actions: ArrayLike<number>,
    costs: ArrayLike<number>,
    count: number,
    importance?: number,
  ): void;
  /** The learner to predict with once training ends (its averaged weights, if it averages). */
  averaged(): CostSensitiveLearner;
  exportState(): LearnerState;
}

export type LearnerState = RegressorState | PerceptronState;

/**
 * The base learner: `csoaa` (default: VW's one-against-all squared-loss regression with AdaGrad,
 * normalized and importance-invariant updates) or `perceptron` (the cost-sensitive averaged
 * perceptron).
 */
export type BaseLearnerOptions =
  | ({ readonly kind?: "csoaa" } & RegressorOptions)
  | ({ readonly kind: "perceptron" } & CostSensitivePerceptronOptions);

export const BASE_LEARNERS = ["csoaa", "perceptron"] as const;

export function createLearner(
  actions: number,
  options: BaseLearnerOptions = {},
): CostSensitiveLearner {
  if (options.kind === "perceptron") {
    const { kind: _, ...rest } = options;
    return new CostSensitivePerceptron(actions, rest);
  }
  if (options.kind !== undefined && options.kind !== "csoaa") {
    throw new RangeError(
      `base learner "${String(options.kind)}": expected ${BASE_LEARNERS.join(" or ")}`,
    );
  }
  const { kind: _, ...rest } = options;
  return new CostSensitiveRegressor(actions, rest);
}

/**
 * The bytes one learner's training holds at its peak, from its options alone (before its table is
 * allocated): the hashed table (2^bits entries of 1 to 3 float32s: csoaa's weight, Σg² and max |x|;
 * the perceptron's weight), when averaging the float64 sums and the averaged learner returned at
 * the end (csoaa copies its table twice to build it, the perceptron once), and the table's bytes
 * in the model file. At --bits 30 that is 8 to 52 GB: worth saying before it is allocated.
 */
export function learnerTrainingBytes(options: BaseLearnerOptions = {}): number {
  if (options.kind === "perceptron") {
    const entries = 2 ** (options.bits ?? PERCEPTRON_DEFAULTS.bits);
    const average = options.average ?? PERCEPTRON_DEFAULTS.average;
    return entries * (average ? 4 + 8 + 4 + 4 : 4 + 4);
  }
  const d = REGRESSOR_DEFAULTS;
  const entries = 2 ** (options.bits ?? d.bits);
  const table = 4 * strideOf(options.adaptive ?? d.adaptive, options.normalized ?? d.normalized);
  return entries * ((options.average ?? d.average) ? table + 8 + 2 * table + table : table + table);
}

export function learnerFromState(state: LearnerState): CostSensitiveLearner {
  return state.format === "l2s-perceptron"
    ? CostSensitivePerceptron.fromState(state)
    : CostSensitiveRegressor.fromState(state);
}
