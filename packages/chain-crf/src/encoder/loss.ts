import { InferenceContext } from "../inference/context.ts";
import { forwardBackwardKernel } from "../inference/forward-backward.ts";
import { scoreView } from "../inference/score.ts";
import type { ChainView } from "../inference/view.ts";
import type { CompiledDataset } from "../model/dataset.ts";
import type { FeatureLayout } from "../model/layout.ts";
import { InstanceScorer } from "../model/scorer.ts";
import { applyConstraints, type ConstraintMasks, NO_CONSTRAINTS } from "./constraints.ts";
import { addExpectedCounts, addResidualGradient } from "./feature-counts.ts";

/**
 * The per-instance negative log-likelihood and its gradient by scaled forward-backward, with the
 * scratch it reuses across instances (nothing is allocated once the buffers fit the longest
 * instance). Instances with unlabelled tokens (gold −1) are trained on the partial labels: the
 * loss is log Z − log Z(labels consistent with the known ones), the gradient the difference of
 * the two expectations.
 */
export class InstanceLoss {
  /** The context of the last full forward-backward (Viterbi and the batch path reuse it). */
  readonly ctx: InferenceContext;
  /** Constrained training: the masks every instance is normalised under. */
  masks: ConstraintMasks = NO_CONSTRAINTS;
  readonly #dataset: CompiledDataset;
  readonly #layout: FeatureLayout;
  readonly #scorer: InstanceScorer;
  #clampedCtx: InferenceContext | null = null;
  #fixed = new Int32Array(0);
  #positionPairwise: Float64Array = new Float64Array(0);
  #clampedPairwise: Float64Array = new Float64Array(0);

  constructor(dataset: CompiledDataset, layout: FeatureLayout) {
    this.#dataset = dataset;
    this.#layout = layout;
    this.#scorer = new InstanceScorer(layout);
    this.ctx = new InferenceContext(Math.max(1, dataset.maxLength), layout.numLabels);
  }

  /** The chain scores of tokens [from, to) under `weightScale × weights`, under the masks. */
  constrainedView(from: number, to: number, weights: Float64Array, weightScale = 1): ChainView {
    const ds = this.#dataset;
    return applyConstraints(
      this.#scorer.load(ds.state, ds.transition, from, to, weights, weightScale),
      this.masks,
    );
  }

  /**
   * The loss of the instance on tokens [from, to) under `weightScale × weights`; when `gradient`
   * is given, adds `scale` × its gradient with respect to the scaled weights after every read of
   * `weights`, so `gradient` may be `weights` itself.
   */
  loss(
    from: number,
    to: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array | null,
    scale: number,
  ): number {
    const ds = this.#dataset;
    const n = to - from;
    const gold = ds.labels;
    const view = this.constrainedView(from, to, weights, weightScale);
    const withGradient = gradient !== null;
    const conditioned = view.transitionStride !== 0;
    if (withGradient && conditioned) {
      this.#positionPairwise = this.#pairwiseRoom(this.#positionPairwise, n);
    }
    const perPosition = withGradient && conditioned ? this.#positionPairwise : null;
    let partial = false;
    for (let j = from; j < to; j++) {
      if (gold[j]! < 0) {
        partial = true;
        break;
      }
    }
    if (!partial) {
      const logZ = forwardBackwardKernel(this.ctx, view, withGradient, perPosition);
      const loss = logZ - scoreView(view, gold, from);
      if (withGradient) {
        addResidualGradient(ds, this.#layout, this.ctx, from, to, gradient, scale, perPosition);
      }
      return loss;
    }
    // Partial labels: the clamped partition over labellings consistent with the known labels.
    if (this.#fixed.length < n) this.#fixed = new Int32Array(Math.max(n, ds.maxLength));
    for (let j = 0; j < n; j++) this.#fixed[j] = gold[from + j]!;
    this.#clampedCtx ??= new InferenceContext(Math.max(1, ds.maxLength), this.#layout.numLabels);
    const clampedCtx = this.#clampedCtx;
    view.fixed = this.#fixed;
    let clampedPerPosition: Float64Array | null = null;
    if (perPosition !== null) {
      this.#clampedPairwise = this.#pairwiseRoom(this.#clampedPairwise, n);
      clampedPerPosition = this.#clampedPairwise;
    }
    const logZClamped = forwardBackwardKernel(clampedCtx, view, withGradient, clampedPerPosition);
    view.fixed = null;
    const logZ = forwardBackwardKernel(this.ctx, view, withGradient, perPosition);
    if (withGradient) {
      const layout = this.#layout;
      addExpectedCounts(ds, layout, this.ctx, from, to, gradient, scale, perPosition);
      addExpectedCounts(ds, layout, clampedCtx, from, to, gradient, -scale, clampedPerPosition);
    }
    return logZ - logZClamped;
  }

  /** `buffer`, or a larger one when it cannot hold the per-position pairwise marginals of n tokens. */
  #pairwiseRoom(buffer: Float64Array, n: number): Float64Array {
    const LL = this.#layout.numLabels * this.#layout.numLabels;
    const need = Math.max(0, n - 1) * LL;
    if (buffer.length >= need) return buffer;
    return new Float64Array(Math.max(need, (this.#dataset.maxLength - 1) * LL));
  }
}
