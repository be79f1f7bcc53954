/**
 * The feature-count sweeps behind the encoder's gradients: expected counts under a chain's
 * marginals, the residual form (expected minus observed) of a fully labelled instance, and the
 * observed counts of one labelling (the perceptron update). Tokens are global indices [from, to)
 * into the compiled dataset; per-token label rows are indexed (j − from)·L + t.
 */
import type { InferenceContext } from "../inference/context.js";
import type { CompiledAttributes, CompiledDataset } from "../model/dataset.js";
import type { FeatureLayout } from "../model/layout.js";
import { findStateFeature, findTransitionFeature } from "../model/scorer.js";

/**
 * Adds coef × Σ_j value · rows[(j − from)·L + label(f)] over the state features f of tokens
 * [from, to). The transpose of the scorer's unary sweep, and the hottest loop of training: the
 * value is folded into the factor once per attribute, so the inner loop stays branch-free.
 */
export function addStateCounts(
  state: CompiledAttributes,
  layout: FeatureLayout,
  from: number,
  to: number,
  rows: Float64Array,
  grad: Float64Array,
  coef: number,
): void {
  const { numLabels: L, attributeOffsets: attrOffsets, featureLabels } = layout;
  const { offsets, ids, values } = state;
  for (let j = from; j < to; j++) {
    const row = (j - from) * L;
    const kEnd = offsets[j + 1]!;
    for (let k = offsets[j]!; k < kEnd; k++) {
      const a = ids[k]!;
      const s = values === null ? coef : coef * values[k]!;
      const fEnd = attrOffsets[a + 1]!;
      for (let f = attrOffsets[a]!; f < fEnd; f++) grad[f]! += s * rows[row + featureLabels[f]!]!;
    }
  }
}

/**
 * Adds coef × the label-bigram sums `pairwise` (L·L) and, where the layout has them, the first
 * and last rows of `rows` (n tokens) to the start and end weights.
 */
export function addBigramAndBoundaryCounts(
  layout: FeatureLayout,
  n: number,
  rows: Float64Array,
  pairwise: Float64Array,
  grad: Float64Array,
  coef: number,
): void {
  const L = layout.numLabels;
  const T = layout.transitionBase;
  const LL = L * L;
  for (let ab = 0; ab < LL; ab++) grad[T + ab]! += coef * pairwise[ab]!;
  if (layout.startBase >= 0) {
    const S = layout.startBase;
    for (let t = 0; t < L; t++) grad[S + t]! += coef * rows[t]!;
  }
  if (layout.endBase >= 0) {
    const E = layout.endBase;
    const row = (n - 1) * L;
    for (let t = 0; t < L; t++) grad[E + t]! += coef * rows[row + t]!;
  }
}

/**
 * Adds coef × value · perPosition[(j − from − 1)·L² + pair(f)] over the observation-conditioned
 * bigram features f of tokens (from, to).
 */
export function addConditionedBigramCounts(
  transition: CompiledAttributes,
  layout: FeatureLayout,
  from: number,
  to: number,
  perPosition: Float64Array,
  grad: Float64Array,
  coef: number,
): void {
  const L = layout.numLabels;
  const LL = L * L;
  const pairs = layout.transitionFeaturePairs;
  const tOffsets = layout.transitionAttributeOffsets;
  const TA = layout.transitionAttributeBase;
  for (let j = from + 1; j < to; j++) {
    const pb = (j - from - 1) * LL;
    for (let k = transition.offsets[j]!; k < transition.offsets[j + 1]!; k++) {
      const a = transition.ids[k]!;
      const s = transition.values === null ? coef : coef * transition.values[k]!;
      for (let f = tOffsets[a]!; f < tOffsets[a + 1]!; f++) {
        grad[TA + f]! += s * perPosition[pb + pairs[f]!]!;
      }
    }
  }
}

/** Adds coef × the expected feature counts held in `ctx` after forward-backward. */
export function addExpectedCounts(
  dataset: CompiledDataset,
  layout: FeatureLayout,
  ctx: InferenceContext,
  from: number,
  to: number,
  grad: Float64Array,
  coef: number,
  perPosition: Float64Array | null,
): void {
  addStateCounts(dataset.state, layout, from, to, ctx.marginals, grad, coef);
  addBigramAndBoundaryCounts(layout, to - from, ctx.marginals, ctx.pairwise, grad, coef);
  if (perPosition !== null) {
    const tr = dataset.transition as CompiledAttributes;
    addConditionedBigramCounts(tr, layout, from, to, perPosition, grad, coef);
  }
}

/** rows[(j − from)·L + gold[j]] −= 1: token marginals become residuals p − [t = gold]. */
export function subtractGoldLabels(
  rows: Float64Array,
  gold: Int32Array,
  from: number,
  to: number,
  L: number,
): void {
  for (let j = from; j < to; j++) rows[(j - from) * L + gold[j]!]! -= 1;
}

/** Subtracts `scale` × the observed label bigrams of gold[from, to). */
export function subtractGoldBigrams(
  layout: FeatureLayout,
  gold: Int32Array,
  from: number,
  to: number,
  grad: Float64Array,
  scale: number,
): void {
  const L = layout.numLabels;
  const T = layout.transitionBase;
  for (let j = from + 1; j < to; j++) grad[T + gold[j - 1]! * L + gold[j]!]! -= scale;
}

/**
 * Adds scale × (expected − observed) feature counts of a fully labelled instance after
 * forward-backward. The marginals (and per-position pairwise marginals) become residuals in
 * place, so a single sweep over the features serves both counts and stays branch-free.
 */
export function addResidualGradient(
  dataset: CompiledDataset,
  layout: FeatureLayout,
  ctx: InferenceContext,
  from: number,
  to: number,
  grad: Float64Array,
  scale: number,
  perPosition: Float64Array | null,
): void {
  const gold = dataset.labels;
  const L = layout.numLabels;
  subtractGoldLabels(ctx.marginals, gold, from, to, L);
  if (perPosition !== null) {
    const LL = L * L;
    for (let j = from + 1; j < to; j++) {
      perPosition[(j - from - 1) * LL + gold[j - 1]! * L + gold[j]!]! -= 1;
    }
  }
  addExpectedCounts(dataset, layout, ctx, from, to, grad, scale, perPosition);
  subtractGoldBigrams(layout, gold, from, to, grad, scale);
}

/** Adds `scale` × the feature counts of `labels` on tokens [from, to) to `target`. */
export function addLabellingCounts(
  dataset: CompiledDataset,
  layout: FeatureLayout,
  from: number,
  to: number,
  labels: ArrayLike<number>,
  scaleAll: number,
  target: Float64Array,
  positionScales?: ArrayLike<number>,
): void {
  const L = layout.numLabels;
  const { offsets, ids, values } = dataset.state;
  // Per-position scales (class-weighted perceptron): a token's counts by its own, a transition's
  // by the mean of its two tokens'.
  const ps = positionScales;
  let previous = scaleAll;
  for (let j = from; j < to; j++) {
    const y = labels[j - from]!;
    const scale = ps === undefined ? scaleAll : scaleAll * ps[j - from]!;
    for (let k = offsets[j]!; k < offsets[j + 1]!; k++) {
      const f = findStateFeature(layout, ids[k]!, y);
      if (f >= 0) target[f]! += scale * (values === null ? 1 : values[k]!);
    }
    if (j > from) {
      const pairScale = ps === undefined ? scaleAll : 0.5 * (previous + scale);
      const pair = labels[j - from - 1]! * L + y;
      target[layout.transitionBase + pair]! += pairScale;
      const tr = dataset.transition;
      if (tr !== null) {
        for (let k = tr.offsets[j]!; k < tr.offsets[j + 1]!; k++) {
          const f = findTransitionFeature(layout, tr.ids[k]!, pair);
          if (f >= 0) {
            target[layout.transitionAttributeBase + f]! +=
              pairScale * (tr.values === null ? 1 : tr.values[k]!);
          }
        }
      }
    }
    previous = scale;
  }
  const first = ps === undefined ? scaleAll : scaleAll * ps[0]!;
  if (layout.startBase >= 0) target[layout.startBase + labels[0]!]! += first;
  if (layout.endBase >= 0) target[layout.endBase + labels[to - from - 1]!]! += previous;
}
