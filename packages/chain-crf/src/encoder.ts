/**
 * The narrow view trainers have of a model (CRFsuite's `encoder`): trainers never see features,
 * only a weight vector and per-instance operations. The CRF implements it; so can any other model.
 *
 * Weights are one flat Float64Array of length `numWeights`. All methods are allocation-free in the
 * steady state: the encoder owns its scratch buffers.
 */
export interface Encoder {
  readonly numWeights: number;
  readonly numInstances: number;
  /** Number of labels L. */
  readonly numLabels: number;
  /** Token count of instance i. */
  instanceLength(i: number): number;
  /** Gold labels of instance i (owned by the encoder, do not mutate). */
  goldLabels(i: number): Int32Array;
  /**
   * Negative log-likelihood −log p(y_i | x_i; w) of instance i. When `gradient` is given, adds
   * `scale` × ∂/∂w of that loss to it (expected minus observed feature counts).
   */
  instanceLoss(
    i: number,
    weights: Float64Array,
    gradient: Float64Array | null,
    scale?: number,
  ): number;
  /** Viterbi labelling of instance i under `weights` into `out` (length ≥ n); returns its score. */
  decode(i: number, weights: Float64Array, out: Int32Array): number;
  /**
   * Adds `scale` × the feature counts of `labels` on instance i to `target` (perceptron update);
   * with `positionScales`, a token's counts are scaled by its entry too (class weights).
   */
  addFeatureCounts(
    i: number,
    labels: ArrayLike<number>,
    scale: number,
    target: Float64Array,
    positionScales?: ArrayLike<number>,
  ): void;
}

/**
 * A loss pass that can stop between sentences and resume: `run(pause)` goes on until the range
 * is done (true; the gradient has then been added) or until `pause()` says to stop (false), so
 * that a caller can let the event loop turn during a long evaluation. Every `run` goes on from
 * where the last stopped with the same accumulators, so where it pauses changes no bit of the
 * result. The pass owns the encoder (its workspace and inference context) until it is done.
 */
export interface LossPass {
  run(pause: (() => boolean) | null): boolean;
  /** Σ of the losses so far: the range's loss once `run` has returned true. */
  readonly loss: number;
}

/**
 * Σ_{i ∈ [begin, end)} encoder.instanceLoss(i, weights, gradient, scale) as a {@link LossPass}, in
 * that order: the pass of an encoder without a batch path, with its value bit for bit.
 */
export function instanceLossPass(
  encoder: Encoder,
  begin: number,
  end: number,
  weights: Float64Array,
  gradient: Float64Array,
  scale: number,
): LossPass {
  let next = begin;
  let loss = 0;
  return {
    get loss() {
      return loss;
    },
    run(pause) {
      for (const start = next; next < end; next++) {
        if (pause !== null && next > start && pause()) return false;
        loss += encoder.instanceLoss(next, weights, gradient, scale);
      }
      return true;
    },
  };
}

/** Progress reported by every trainer once per iteration / epoch. */
export interface TrainingProgress {
  readonly iteration: number;
  /** Objective value (regularised loss for L-BFGS/OWL-QN/SGD, mistakes for the perceptron). */
  readonly loss: number;
  readonly seconds: number;
  /** Present when held-out data is evaluated. */
  readonly heldOut?: { readonly tokenAccuracy: number; readonly f1?: number };
  readonly activeFeatures?: number;
}
