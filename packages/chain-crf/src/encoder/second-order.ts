import type { Encoder } from "../encoder.js";
import { scoreView } from "../inference/score.js";
import { secondOrderScore, secondOrderViterbiKernel } from "../inference/second-order.js";
import {
  SecondOrderContext,
  type TrigramPattern,
  trigramPattern,
} from "../inference/second-order-context.js";
import { secondOrderForwardBackwardKernel } from "../inference/second-order-forward-backward.js";
import type { CompiledDataset } from "../model/dataset.js";
import type { FeatureLayout } from "../model/layout.js";
import { InstanceScorer } from "../model/scorer.js";
import {
  addBigramAndBoundaryCounts,
  addConditionedBigramCounts,
  addLabellingCounts,
  addStateCounts,
  subtractGoldLabels,
} from "./feature-counts.js";

/**
 * The second-order linear-chain CRF for the trainers: the first-order features of `layout` (state
 * features, label bigrams, start/end, conditioned bigrams) plus one weight per label trigram,
 * stored after them: weights [0, layout.numWeights) as the first-order model's, then L³
 * trigram weights, (a, b, c) at layout.numWeights + a·L² + b·L + c. The loss is the negative
 * log-likelihood by exact second-order forward-backward (pair states, L³ per token); the
 * gradient is expected minus observed counts, the trigrams' from the trigram marginals.
 *
 * With `trigrams: "observed"` (the default) only the trigrams seen in the gold labels get a
 * weight, the others stay at 0 (their gradient is 0): forward-backward then costs L² plus those
 * trigrams per token instead of L³ (see {@link TrigramPattern}). `"all"` learns all L³ (the
 * unseen ones as penalties) at L³ per token.
 *
 * Fully labelled instances only (no partial labels, no training constraints): the caller checks.
 */
export class SecondOrderEncoder implements Encoder {
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  readonly numWeights: number;
  readonly numInstances: number;
  readonly numLabels: number;
  /** Where the trigram weights start in the weight vector. */
  readonly trigramBase: number;
  /** The trigrams that get a weight (null: all L³). */
  readonly pattern: TrigramPattern | null;
  readonly #scorer: InstanceScorer;
  readonly #ctx = new SecondOrderContext();
  #rows = new Float64Array(0);
  #pairwise: Float64Array;

  constructor(
    dataset: CompiledDataset,
    layout: FeatureLayout,
    options: { readonly trigrams?: "observed" | "all" } = {},
  ) {
    const L = layout.numLabels;
    for (let j = 0; j < dataset.numTokens; j++) {
      if (dataset.labels[j]! < 0) {
        throw new RangeError(
          "second-order training needs every token labelled (a sequence has an unknown or set-restricted label)",
        );
      }
    }
    this.dataset = dataset;
    this.layout = layout;
    this.numLabels = L;
    this.trigramBase = layout.numWeights;
    this.numWeights = layout.numWeights + L * L * L;
    this.numInstances = dataset.numInstances;
    this.#scorer = new InstanceScorer(layout);
    this.#pairwise = new Float64Array(L * L);
    this.pattern = options.trigrams === "all" ? null : observedTrigrams(dataset, L);
  }

  instanceLength(i: number): number {
    return this.dataset.instanceOffsets[i + 1]! - this.dataset.instanceOffsets[i]!;
  }

  goldLabels(i: number): Int32Array {
    const o = this.dataset.instanceOffsets;
    return this.dataset.labels.subarray(o[i]!, o[i + 1]!);
  }

  instanceLoss(i: number, weights: Float64Array, gradient: Float64Array | null, scale = 1): number {
    const ds = this.dataset;
    const layout = this.layout;
    const from = ds.instanceOffsets[i]!;
    const to = ds.instanceOffsets[i + 1]!;
    const n = to - from;
    const L = this.numLabels;
    const LL = L * L;
    const gold = ds.labels;
    const view = this.#scorer.load(ds.state, ds.transition, from, to, weights);
    const ctx = this.#ctx;
    const T = this.trigramBase;
    const withGradient = gradient !== null;
    const pattern = this.pattern;
    const logZ = secondOrderForwardBackwardKernel(ctx, view, weights, T, withGradient, pattern);
    const loss = logZ - secondOrderScore(scoreView(view, gold, from), L, weights, T, gold, from, n);
    if (gradient === null) return loss;
    // Residuals (expected − observed) in place, then one sweep per feature kind.
    if (this.#rows.length < n * L) this.#rows = new Float64Array(Math.max(n, ds.maxLength) * L);
    const rows = this.#rows;
    rows.set(ctx.marginals.subarray(0, n * L));
    subtractGoldLabels(rows, gold, from, to, L);
    const pair = ctx.pairMarginals;
    for (let j = from + 1; j < to; j++)
      pair[(j - from - 1) * LL + gold[j - 1]! * L + gold[j]!]! -= 1;
    const pairwise = this.#pairwise;
    pairwise.fill(0);
    for (let p = 0; p < n - 1; p++) {
      for (let ab = 0; ab < LL; ab++) pairwise[ab]! += pair[p * LL + ab]!;
    }
    addStateCounts(ds.state, layout, from, to, rows, gradient, scale);
    addBigramAndBoundaryCounts(layout, n, rows, pairwise, gradient, scale);
    if (view.transitionStride !== 0 && ds.transition !== null) {
      addConditionedBigramCounts(ds.transition, layout, from, to, pair, gradient, scale);
    }
    if (n > 2) {
      const tri = ctx.trigramMarginals;
      if (pattern === null) {
        for (let k = 0; k < LL * L; k++) gradient[T + k]! += scale * tri[k]!;
      } else {
        // Only the pattern's trigrams are parameters: the others keep a zero gradient.
        const { firstOffsets, byFirst } = pattern;
        for (let ab = 0; ab < LL; ab++) {
          for (let q = firstOffsets[ab]!; q < firstOffsets[ab + 1]!; q++) {
            const k = ab * L + byFirst[q]!;
            gradient[T + k]! += scale * tri[k]!;
          }
        }
      }
      for (let j = from + 2; j < to; j++) {
        gradient[T + gold[j - 2]! * LL + gold[j - 1]! * L + gold[j]!]! -= scale;
      }
    }
    return loss;
  }

  decode(i: number, weights: Float64Array, out: Int32Array): number {
    const ds = this.dataset;
    const from = ds.instanceOffsets[i]!;
    const to = ds.instanceOffsets[i + 1]!;
    const view = this.#scorer.load(ds.state, ds.transition, from, to, weights);
    return secondOrderViterbiKernel(this.#ctx, view, weights, this.trigramBase, out);
  }

  addFeatureCounts(
    i: number,
    labels: ArrayLike<number>,
    scale: number,
    target: Float64Array,
  ): void {
    const ds = this.dataset;
    const from = ds.instanceOffsets[i]!;
    const to = ds.instanceOffsets[i + 1]!;
    addLabellingCounts(ds, this.layout, from, to, labels, scale, target);
    const L = this.numLabels;
    for (let p = 2; p < to - from; p++) {
      target[this.trigramBase + labels[p - 2]! * L * L + labels[p - 1]! * L + labels[p]!]! += scale;
    }
  }
}

/** The trigrams of the gold labellings. */
function observedTrigrams(dataset: CompiledDataset, L: number): TrigramPattern {
  const seen = new Uint8Array(L * L * L);
  const gold = dataset.labels;
  for (let i = 0; i < dataset.numInstances; i++) {
    const to = dataset.instanceOffsets[i + 1]!;
    for (let j = dataset.instanceOffsets[i]! + 2; j < to; j++) {
      seen[gold[j - 2]! * L * L + gold[j - 1]! * L + gold[j]!] = 1;
    }
  }
  return trigramPattern(L, seen);
}
