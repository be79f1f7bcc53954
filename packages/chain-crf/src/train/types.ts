import { checkpoints } from "@lagrange/core";
import {
  type Encoder,
  instanceLossPass,
  type LossPass,
  type TrainingProgress,
} from "../encoder.js";

/** What a held-out evaluation reports; `f1` (when given) decides early stopping, else accuracy. */
export interface HeldOutScore {
  readonly tokenAccuracy: number;
  readonly f1?: number;
}

export interface HeldOutOptions {
  /** Scores the model with these weights on held-out data (the caller decodes and compares). */
  evaluate(weights: Float64Array): HeldOutScore;
  /** Evaluate every this many iterations / epochs (default 1). */
  readonly every?: number;
  /**
   * Early stopping: stop after this many evaluations without improvement, and return the weights
   * of the best evaluation. Absent: no early stopping, the last weights are returned.
   */
  readonly patience?: number;
}

/** Options every trainer accepts. */
export interface TrainerOptions {
  readonly heldOut?: HeldOutOptions;
  /** Called once per iteration / epoch; returning false stops training (reason "stopped"). */
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are the usual case
  readonly onProgress?: (progress: TrainingProgress) => boolean | void;
  /** Aborting throws the core's AbortError (and tears down any worker threads). */
  readonly signal?: AbortSignal;
  /** Starting weights (copied), length numWeights; default all zero. */
  readonly initialWeights?: Float64Array;
}

export type StopReason =
  /** L-BFGS: ‖g‖/max(1,‖w‖) ≤ epsilon. */
  | "converged"
  /** CRFsuite's rule: relative decrease over `period` iterations/epochs below `delta`. */
  | "no-progress"
  | "max-iterations"
  /** onProgress returned false. */
  | "stopped"
  | "early-stopping"
  /** L-BFGS: no acceptable step along the search direction (the last accepted point is kept). */
  | "line-search-failed"
  /** L-BFGS: the starting point already satisfies the epsilon test. */
  | "already-minimized"
  /** Perceptron: an epoch without a single mistake. */
  | "no-mistakes";

/**
 * Why training stopped, as a person reads it: "no-progress" is CRFsuite's name for its usual,
 * successful exit (the loss has stopped falling), which on its own reads as a failure.
 */
export const STOP_REASON_TEXT: { readonly [R in StopReason]: string } = {
  converged: "converged: the gradient vanished",
  "no-progress": "converged: the loss stopped decreasing",
  "max-iterations": "reached the iteration cap",
  stopped: "stopped by the caller",
  "early-stopping": "early stopping: the dev score stopped improving",
  "line-search-failed": "stopped: the line search found no better step (the last point is kept)",
  "already-minimized": "already at the minimum",
  "no-mistakes": "converged: an epoch without mistakes",
};

export interface TrainResult {
  /** The trained weights (a fresh array; the best held-out weights under early stopping). */
  readonly weights: Float64Array;
  readonly iterations: number;
  /** Final objective (regularised loss; mistakes in the last epoch for the perceptron). */
  readonly loss: number;
  readonly seconds: number;
  readonly stopReason: StopReason;
  /** Number of objective + gradient passes over the training data (L-BFGS). */
  readonly evaluations?: number;
  /** The best held-out evaluation, when held-out data was given. */
  readonly bestHeldOut?: HeldOutScore & { readonly iteration: number };
}

/**
 * An encoder that can be rebuilt inside a worker thread: `descriptor()` returns structured-clonable
 * plain data (big arrays on SharedArrayBuffer so workers share rather than copy them), and the
 * module at `restoreModule` (or the trainer's `encoderModule` option) exports
 * `restoreEncoder(descriptor, { begin, end })` returning an encoder over instances begin..end−1.
 * Neither given: the workers restore this package's CRF encoder (CrfEncoder has no restoreModule).
 */
export interface ShardableEncoder extends Encoder {
  descriptor(): unknown;
  readonly restoreModule?: URL | string;
}

/**
 * Optional capability for SGD's weight-scaling trick (CRFsuite's `set_weights(w, scale)`): the loss
 * of instance i under the weights `weightScale × weights`, adding `scale` × its gradient (with
 * respect to those scaled weights) to `gradient`. `gradient` may be `weights` itself, so an
 * implementation must finish reading the weights before it writes the gradient.
 */
export interface ScaledWeightsEncoder extends Encoder {
  instanceLossScaled(
    i: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array,
    scale: number,
  ): number;
}

/**
 * Optional capability: Σ_{i ∈ [begin, end)} instanceLoss(i, weights, gradient, scale) in one batch
 * (the CRF copies the weights once and runs its sparse sweeps in WebAssembly). Trainers doing full
 * passes call it when present; the result equals the per-instance sum up to summation order.
 */
export interface RangeLossEncoder extends Encoder {
  rangeLoss(
    begin: number,
    end: number,
    weights: Float64Array,
    gradient: Float64Array,
    scale?: number,
  ): number;
}

export function hasRangeLoss(encoder: Encoder): encoder is RangeLossEncoder {
  return typeof (encoder as Partial<RangeLossEncoder>).rangeLoss === "function";
}

/**
 * Optional capability: {@link RangeLossEncoder.rangeLoss} as a pass that can stop between
 * instances and go on later, with the same value and gradient bit for bit wherever it stops.
 */
export interface PausableRangeLossEncoder extends Encoder {
  rangeLossPass(
    begin: number,
    end: number,
    weights: Float64Array,
    gradient: Float64Array,
    scale?: number,
  ): LossPass;
}

export function hasRangeLossPass(encoder: Encoder): encoder is PausableRangeLossEncoder {
  return typeof (encoder as Partial<PausableRangeLossEncoder>).rangeLossPass === "function";
}

/** How long a loss pass on the main thread runs before it lets the event loop turn. */
const SLICE_MS = 25;

/**
 * {@link sumLoss} on the main thread, letting the event loop turn every {@link SLICE_MS} or so, so
 * that a signal's handler can abort a long evaluation (one evaluation with 1,000 labels takes
 * seconds); `signal` is checked between sentences. The value and gradient are those of `sumLoss`,
 * bit for bit. An encoder with a batch `rangeLoss` but no `rangeLossPass` runs in one batch.
 */
export async function sumLossCooperatively(
  encoder: Encoder,
  begin: number,
  end: number,
  weights: Float64Array,
  gradient: Float64Array,
  signal: AbortSignal | undefined,
): Promise<number> {
  let pass: LossPass;
  if (hasRangeLossPass(encoder)) pass = encoder.rangeLossPass(begin, end, weights, gradient, 1);
  else if (hasRangeLoss(encoder)) return encoder.rangeLoss(begin, end, weights, gradient, 1);
  else pass = instanceLossPass(encoder, begin, end, weights, gradient, 1);
  const pace = checkpoints(signal, SLICE_MS);
  const due = () => pace.due();
  while (!pass.run(due)) await pace.pause();
  return pass.loss;
}

/** Σ_{i ∈ [begin, end)} loss_i(weights), adding the gradient; the batch path when the encoder has one. */
export function sumLoss(
  encoder: Encoder,
  begin: number,
  end: number,
  weights: Float64Array,
  gradient: Float64Array,
): number {
  if (hasRangeLoss(encoder)) return encoder.rangeLoss(begin, end, weights, gradient, 1);
  let loss = 0;
  for (let i = begin; i < end; i++) loss += encoder.instanceLoss(i, weights, gradient, 1);
  return loss;
}

export function isShardable(encoder: Encoder): encoder is ShardableEncoder {
  return typeof (encoder as Partial<ShardableEncoder>).descriptor === "function";
}

export function hasScaledWeights(encoder: Encoder): encoder is ScaledWeightsEncoder {
  return typeof (encoder as Partial<ScaledWeightsEncoder>).instanceLossScaled === "function";
}
