/**
 * Training for @lagrange/chain-crf. Public (re-exported by the package index):
 * - trainers over any `Encoder`: `trainLbfgs` (L2, L1/elastic net via OWL-QN, worker threads),
 *   `trainAveragedPerceptron`, `trainSgd`, with their option and result types;
 * - the minimiser itself: `minimizeLbfgs` / `minimizeLbfgsSync` and their types;
 * - `openObjectivePool`: the worker-thread objective (Node only) behind a dynamic import, so the
 *   package index never loads `node:worker_threads` in a browser;
 * - the optional encoder capabilities the trainers use: `ShardableEncoder` (descriptor() for worker
 *   threads), `ScaledWeightsEncoder` (instanceLossScaled for sparse SGD) and `RangeLossEncoder`
 *   (a batch rangeLoss, which L-BFGS and the worker pool use for full passes).
 */
export {
  type AsyncObjective,
  type LbfgsIteration,
  type LbfgsOptions,
  type LbfgsResult,
  type LbfgsStatus,
  type LineSearch,
  minimizeLbfgs,
  minimizeLbfgsSync,
  type Objective,
} from "./lbfgs.js";
export { openObjectivePool } from "./open-pool.js";
export { type PerceptronOptions, trainAveragedPerceptron } from "./perceptron.js";
export type { EncoderWorkerSource, ObjectivePool, ObjectivePoolOptions } from "./pool.js";
export { type SgdCalibration, type SgdOptions, type SgdResult, trainSgd } from "./sgd.js";
export { type LbfgsTrainerOptions, type LbfgsTrainResult, trainLbfgs } from "./train-lbfgs.js";
export type {
  HeldOutOptions,
  HeldOutScore,
  RangeLossEncoder,
  ScaledWeightsEncoder,
  ShardableEncoder,
  StopReason,
  TrainerOptions,
  TrainResult,
} from "./types.js";
export { STOP_REASON_TEXT } from "./types.js";
