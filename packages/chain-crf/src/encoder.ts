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
  /** Adds `scale` × the feature counts of `labels` on instance i to `target` (perceptron update). */
  addFeatureCounts(i: number, labels: ArrayLike<number>, scale: number, target: Float64Array): void;
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
