import { type ChainView, emptyView } from "../inference/view.js";
import type { CompiledAttributes } from "./dataset.js";
import type { FeatureLayout } from "./layout.js";

/**
 * Turns one instance's attributes and a weight vector into chain scores in reused buffers, and
 * points a {@link ChainView} at them: unary from the state features, transitions straight from
 * the weight vector (or per position when observation-conditioned bigrams fire), start/end from
 * the weight vector. Nothing is allocated once the buffers have grown to the longest instance.
 */
export class InstanceScorer {
  readonly layout: FeatureLayout;
  readonly view: ChainView = emptyView();
  unary: Float64Array = new Float64Array(0);
  transitions: Float64Array = new Float64Array(0);

  constructor(layout: FeatureLayout) {
    this.layout = layout;
  }

  /** Transition, start and end weights times a weight scale (SGD's scaled weights). */
  scaledTail: Float64Array = new Float64Array(0);

  /**
   * Scores tokens [from, to) of the attribute arrays under `weightScale × weights`; sets `view`.
   */
  load(
    state: CompiledAttributes,
    transition: CompiledAttributes | null,
    from: number,
    to: number,
    weights: Float64Array,
    weightScale = 1,
  ): ChainView {
    const layout = this.layout;
    const L = layout.numLabels;
    const n = to - from;
    if (this.unary.length < n * L)
      this.unary = new Float64Array(Math.max(n * L, 2 * this.unary.length));
    const unary = this.unary;
    computeUnary(layout, state, from, to, weights, unary);
    const v = this.view;
    v.n = n;
    v.L = L;
    v.unary = unary;
    v.unaryBase = 0;
    v.transition = weights;
    v.transitionBase = layout.transitionBase;
    v.transitionStride = 0;
    if (transition !== null && n > 1 && transition.offsets[from + 1]! < transition.offsets[to]!) {
      this.#conditionedTransitions(transition, from, to, weights);
      v.transition = this.transitions;
      v.transitionBase = 0;
      v.transitionStride = L * L;
    }
    v.start = layout.startBase >= 0 ? weights : null;
    v.startBase = layout.startBase;
    v.end = layout.endBase >= 0 ? weights : null;
    v.endBase = layout.endBase;
    v.adjustment = null;
    v.fixed = null;
    v.labelMask = null;
    if (weightScale !== 1) this.#scale(weights, weightScale);
    return v;
  }

  #scale(weights: Float64Array, c: number): void {
    const v = this.view;
    const layout = this.layout;
    const L = layout.numLabels;
    const LL = L * L;
    for (let k = 0; k < v.n * L; k++) v.unary[k]! *= c;
    if (v.transitionStride !== 0) {
      for (let k = 0; k < (v.n - 1) * LL; k++) v.transition[k]! *= c;
    }
    if (this.scaledTail.length < LL + 2 * L) this.scaledTail = new Float64Array(LL + 2 * L);
    const tail = this.scaledTail;
    if (v.transitionStride === 0) {
      for (let k = 0; k < LL; k++) tail[k] = c * weights[layout.transitionBase + k]!;
      v.transition = tail;
      v.transitionBase = 0;
    }
    if (layout.startBase >= 0) {
      for (let t = 0; t < L; t++) {
        tail[LL + t] = c * weights[layout.startBase + t]!;
        tail[LL + L + t] = c * weights[layout.endBase + t]!;
      }
      v.start = tail;
      v.startBase = LL;
      v.end = tail;
      v.endBase = LL + L;
    }
  }

  #conditionedTransitions(
    transition: CompiledAttributes,
    from: number,
    to: number,
    weights: Float64Array,
  ): void {
    const { layout } = this;
    const { numLabels: L, transitionBase: tb, transitionAttributeBase: fb } = layout;
    const { transitionAttributeOffsets: offsets, transitionFeaturePairs: pairs } = layout;
    const LL = L * L;
    const n = to - from;
    const need = (n - 1) * LL;
    if (this.transitions.length < need) {
      this.transitions = new Float64Array(Math.max(need, 2 * this.transitions.length));
    }
    const out = this.transitions;
    const { ids, values } = transition;
    for (let i = 1; i < n; i++) {
      const ob = (i - 1) * LL;
      for (let ab = 0; ab < LL; ab++) out[ob + ab] = weights[tb + ab]!;
      const j = from + i;
      for (let k = transition.offsets[j]!; k < transition.offsets[j + 1]!; k++) {
        const a = ids[k]!;
        const value = values === null ? 1 : values[k]!;
        for (let f = offsets[a]!; f < offsets[a + 1]!; f++) {
          out[ob + pairs[f]!]! += weights[fb + f]! * value;
        }
      }
    }
  }
}

/** unary[(j−from)·L + t] = Σ over state features of token j scoring t of weight × value. */
export function computeUnary(
  layout: FeatureLayout,
  state: CompiledAttributes,
  from: number,
  to: number,
  weights: Float64Array,
  unary: Float64Array,
): void {
  const { numLabels: L, attributeOffsets: attrOffsets, featureLabels: labels } = layout;
  const { offsets, ids, values } = state;
  unary.fill(0, 0, (to - from) * L);
  for (let j = from; j < to; j++) {
    const row = (j - from) * L;
    const kEnd = offsets[j + 1]!;
    for (let k = offsets[j]!; k < kEnd; k++) {
      const a = ids[k]!;
      // × 1 for binary attributes: exact, and cheaper than a second copy of the loop to keep.
      const value = values === null ? 1 : values[k]!;
      const fEnd = attrOffsets[a + 1]!;
      for (let f = attrOffsets[a]!; f < fEnd; f++) unary[row + labels[f]!]! += weights[f]! * value;
    }
  }
}

/** The state feature of attribute a scoring label y, or −1 when the layout has none. */
export function findStateFeature(layout: FeatureLayout, a: number, y: number): number {
  return findSorted(
    layout.featureLabels,
    layout.attributeOffsets[a]!,
    layout.attributeOffsets[a + 1]!,
    y,
  );
}

/** The transition-attribute feature of attribute a on pair p = prev·L + cur, or −1. */
export function findTransitionFeature(layout: FeatureLayout, a: number, pair: number): number {
  return findSorted(
    layout.transitionFeaturePairs,
    layout.transitionAttributeOffsets[a]!,
    layout.transitionAttributeOffsets[a + 1]!,
    pair,
  );
}

/** The index of `value` in the ascending run values[from..to), or −1 (binary search). */
function findSorted(values: Int32Array, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
