import { InferenceContext } from "../inference/context.js";
import { forwardBackwardKernel } from "../inference/forward-backward.js";
import { localScores } from "../inference/local.js";
import { scoreView } from "../inference/score.js";
import type { ChainView } from "../inference/view.js";
import type { CompiledDataset } from "../model/dataset.js";
import type { FeatureLayout } from "../model/layout.js";
import { InstanceScorer } from "../model/scorer.js";
import { addMistakeCosts } from "./class-weights.js";
import { applyConstraints, type ConstraintMasks, NO_CONSTRAINTS } from "./constraints.js";
import {
  addBigramAndBoundaryCounts,
  addConditionedBigramCounts,
  addExpectedCounts,
  addResidualGradient,
  addStateCounts,
} from "./feature-counts.js";
import type { ChainGradient, ChainInput, SequenceObjective } from "./objective.js";
import { emptyChainInput } from "./objective.js";

/**
 * The per-instance negative log-likelihood and its gradient by scaled forward-backward, with the
 * scratch it reuses across instances (nothing is allocated once the buffers fit the longest
 * instance). Instances with unlabelled tokens (gold −1) are trained on the partial labels: the
 * loss is log Z − log Z(labels consistent with the known ones), the gradient the difference of
 * the two expectations. Tokens restricted to a label set clamp the second partition to that set.
 *
 * With a {@link SequenceObjective} set, the objective computes each sentence's loss and its
 * gradient with respect to the sentence's scores, and this class pulls that gradient back onto
 * the features.
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
  /** A plug-in loss in place of the CRF's negative log-likelihood. */
  objective: SequenceObjective | null = null;
  /**
   * Class weights as mistake costs (log w per gold label, see addMistakeCosts): the loss becomes
   * the cost-augmented one. Null: every weight 1, the plain loss.
   */
  labelCosts: Float64Array | null = null;
  #input: ChainInput = emptyChainInput();
  #gradient: ChainGradient = {
    rows: new Float64Array(0),
    pairwise: new Float64Array(0),
    perPosition: null,
  };
  #local: Float64Array = new Float64Array(0);
  #labelMask = new Uint8Array(0);

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
    // The scorer's own buffer: rebuilt by the next load, so the costs never reach decoding.
    if (this.labelCosts !== null) {
      addMistakeCosts(view.unary, view.unaryBase, gold, from, n, view.L, this.labelCosts);
    }
    if (this.objective !== null) {
      return this.objectiveLoss(view, from, to, gradient, scale, this.objective);
    }
    const withGradient = gradient !== null;
    const conditioned = view.transitionStride !== 0;
    if (withGradient && conditioned) {
      this.#positionPairwise = this.#pairwiseRoom(this.#positionPairwise, n);
    }
    const perPosition = withGradient && conditioned ? this.#positionPairwise : null;
    let partial = false;
    const labelMask = this.instanceLabelMask(from, to);
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
    view.labelMask = labelMask;
    let clampedPerPosition: Float64Array | null = null;
    if (perPosition !== null) {
      this.#clampedPairwise = this.#pairwiseRoom(this.#clampedPairwise, n);
      clampedPerPosition = this.#clampedPairwise;
    }
    const logZClamped = forwardBackwardKernel(clampedCtx, view, withGradient, clampedPerPosition);
    view.fixed = null;
    view.labelMask = null;
    const logZ = forwardBackwardKernel(this.ctx, view, withGradient, perPosition);
    if (withGradient) {
      const layout = this.#layout;
      addExpectedCounts(ds, layout, this.ctx, from, to, gradient, scale, perPosition);
      addExpectedCounts(ds, layout, clampedCtx, from, to, gradient, -scale, clampedPerPosition);
    }
    return logZ - logZClamped;
  }

  /**
   * The loss of the plug-in objective on the sentence the view shows: its scores handed over as
   * a {@link ChainInput} (local scores with the start/end terms and masks folded in), the
   * gradient it returns swept onto the features (or, with `sweep` false, left in
   * {@link scoreGradient} for the caller's own sweep).
   */
  objectiveLoss(
    view: ChainView,
    from: number,
    to: number,
    gradient: Float64Array | null,
    scale: number,
    objective: SequenceObjective,
    sweep = true,
  ): number {
    const n = to - from;
    const L = view.L;
    const room = Math.max(n, this.#dataset.maxLength, 1) * L;
    if (this.#local.length < n * L) this.#local = new Float64Array(room);
    const local = this.#local;
    for (let i = 0; i < n; i++) localScores(view, i, local, i * L);
    const input = this.#input;
    input.n = n;
    input.L = L;
    input.local = local;
    input.localBase = 0;
    input.transition = view.transition;
    input.transitionBase = view.transitionBase;
    input.transitionStride = view.transitionStride;
    input.allowed = view.allowed;
    const labels = this.#dataset.labels;
    const mask = this.instanceLabelMask(from, to);
    if (gradient === null) return objective.loss(input, labels, from, mask, null);
    const g = this.#gradient;
    if (g.rows.length < n * L) g.rows = new Float64Array(room);
    if (g.pairwise.length < L * L) g.pairwise = new Float64Array(L * L);
    g.rows.fill(0, 0, n * L);
    g.pairwise.fill(0, 0, L * L);
    if (view.transitionStride !== 0) {
      this.#positionPairwise = this.#pairwiseRoom(this.#positionPairwise, n);
      this.#positionPairwise.fill(0, 0, Math.max(0, n - 1) * L * L);
      g.perPosition = this.#positionPairwise;
    } else {
      g.perPosition = null;
    }
    const loss = objective.loss(input, labels, from, mask, g);
    if (sweep) this.addScoreGradient(from, to, gradient, scale);
    return loss;
  }

  /** Sweeps `scale` × the objective's last score gradient onto the feature weights. */
  addScoreGradient(from: number, to: number, gradient: Float64Array, scale: number): void {
    const ds = this.#dataset;
    const g = this.#gradient;
    const layout = this.#layout;
    addStateCounts(ds.state, layout, from, to, g.rows, gradient, scale);
    addBigramAndBoundaryCounts(layout, to - from, g.rows, g.pairwise, gradient, scale);
    if (g.perPosition !== null && ds.transition !== null) {
      addConditionedBigramCounts(ds.transition, layout, from, to, g.perPosition, gradient, scale);
    }
  }

  /** The objective's last score gradient (rows n·L, pairwise L·L), for the batch sweep. */
  get scoreGradient(): ChainGradient {
    return this.#gradient;
  }

  /**
   * The label sets of tokens [from, to) as an n·L mask (row i: the labels position i may take),
   * or null when none of them has one. Known and unconstrained positions allow every label.
   */
  instanceLabelMask(from: number, to: number): Uint8Array | null {
    const sets = this.#dataset.labelSets;
    if (sets == null || sets.offsets[from] === sets.offsets[to]) return null;
    const L = this.#layout.numLabels;
    const n = to - from;
    if (this.#labelMask.length < n * L) {
      this.#labelMask = new Uint8Array(Math.max(n, this.#dataset.maxLength) * L);
    }
    const mask = this.#labelMask;
    for (let j = from; j < to; j++) {
      const row = (j - from) * L;
      const begin = sets.offsets[j]!;
      const end = sets.offsets[j + 1]!;
      if (begin === end) {
        mask.fill(1, row, row + L);
        continue;
      }
      mask.fill(0, row, row + L);
      for (let k = begin; k < end; k++) mask[row + sets.ids[k]!] = 1;
    }
    return mask;
  }

  /** `buffer`, or a larger one when it cannot hold the per-position pairwise marginals of n tokens. */
  #pairwiseRoom(buffer: Float64Array, n: number): Float64Array {
    const LL = this.#layout.numLabels * this.#layout.numLabels;
    const need = Math.max(0, n - 1) * LL;
    if (buffer.length >= need) return buffer;
    return new Float64Array(Math.max(need, (this.#dataset.maxLength - 1) * LL));
  }
}
