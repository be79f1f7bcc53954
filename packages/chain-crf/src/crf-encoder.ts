import type { Encoder } from "./encoder.ts";
import { InferenceContext } from "./inference/context.ts";
import { forwardBackwardKernel } from "./inference/forward-backward.ts";
import { scoreView } from "./inference/score.ts";
import { viterbiKernel } from "./inference/viterbi.ts";
import { toSharedFloat64, toSharedInt32 } from "./model/buffers.ts";
import type { CompiledAttributes, CompiledDataset } from "./model/dataset.ts";
import type { FeatureLayout } from "./model/layout.ts";
import { findStateFeature, findTransitionFeature, InstanceScorer } from "./model/scorer.ts";

/**
 * Plain, structured-clonable data from which {@link restoreEncoder} rebuilds an encoder in a
 * worker thread. Its typed arrays live on SharedArrayBuffers, so posting it copies nothing.
 */
export interface CrfEncoderDescriptor {
  readonly kind: "lagrange.chain-crf.encoder";
  readonly version: 1;
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  /** The instances [begin, end) of `dataset` this encoder covers. */
  readonly begin: number;
  readonly end: number;
}

/** A sub-range of an encoder's instances, relative to it. */
export interface InstanceRange {
  readonly begin: number;
  readonly end: number;
}

/**
 * The linear-chain CRF behind the trainers' {@link Encoder} view: negative log-likelihood and its
 * gradient by scaled forward-backward, Viterbi decoding, feature counts of a labelling. Instances
 * with unlabelled tokens (gold −1) are trained on the partial labels: the loss is
 * log Z − log Z(labels consistent with the known ones), the gradient the difference of the two
 * expectations.
 */
export class CrfEncoder implements Encoder {
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  readonly numWeights: number;
  readonly numInstances: number;
  readonly numLabels: number;
  /** The module exporting {@link restoreEncoder}, for worker threads. */
  readonly restoreModule: string = import.meta.url;
  readonly #begin: number;
  readonly #scorer: InstanceScorer;
  readonly #ctx: InferenceContext;
  #partialCtx: InferenceContext | null = null;
  #fixed = new Int32Array(0);
  #positionPairwise = new Float64Array(0);
  #clampedPairwise = new Float64Array(0);
  #descriptor: CrfEncoderDescriptor | null = null;

  constructor(dataset: CompiledDataset, layout: FeatureLayout, range?: InstanceRange) {
    const begin = range?.begin ?? 0;
    const end = range?.end ?? dataset.numInstances;
    if (
      !Number.isInteger(begin) ||
      !Number.isInteger(end) ||
      begin < 0 ||
      end < begin ||
      end > dataset.numInstances
    ) {
      throw new RangeError(
        `instance range [${begin}, ${end}) is not inside [0, ${dataset.numInstances})`,
      );
    }
    this.dataset = dataset;
    this.layout = layout;
    this.numWeights = layout.numWeights;
    this.numLabels = layout.numLabels;
    this.numInstances = end - begin;
    this.#begin = begin;
    this.#scorer = new InstanceScorer(layout);
    this.#ctx = new InferenceContext(Math.max(1, dataset.maxLength), layout.numLabels);
  }

  instanceLength(i: number): number {
    const g = this.#begin + i;
    return this.dataset.instanceOffsets[g + 1]! - this.dataset.instanceOffsets[g]!;
  }

  goldLabels(i: number): Int32Array {
    const g = this.#begin + i;
    return this.dataset.labels.subarray(
      this.dataset.instanceOffsets[g]!,
      this.dataset.instanceOffsets[g + 1]!,
    );
  }

  instanceLoss(i: number, weights: Float64Array, gradient: Float64Array | null, scale = 1): number {
    return this.#loss(i, weights, 1, gradient, scale);
  }

  /**
   * The loss under `weightScale × weights` (SGD keeps w = scale·v to make L2 decay O(1)); the
   * gradient, with respect to the scaled weights, is added after every read of `weights`, so
   * `gradient` may be `weights` itself.
   */
  instanceLossScaled(
    i: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array,
    scale: number,
  ): number {
    return this.#loss(i, weights, weightScale, gradient, scale);
  }

  #loss(
    i: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array | null,
    scale: number,
  ): number {
    const ds = this.dataset;
    const g = this.#begin + i;
    const from = ds.instanceOffsets[g]!;
    const to = ds.instanceOffsets[g + 1]!;
    const n = to - from;
    const gold = ds.labels;
    const view = this.#scorer.load(ds.state, ds.transition, from, to, weights, weightScale);
    const conditioned = view.transitionStride !== 0;
    const LL = this.numLabels * this.numLabels;
    const perPosition = gradient !== null && conditioned ? this.#pairwiseBuffer(n, LL) : null;
    let partial = false;
    for (let j = from; j < to; j++) {
      if (gold[j]! < 0) {
        partial = true;
        break;
      }
    }
    if (!partial) {
      const logZ = forwardBackwardKernel(this.#ctx, view, gradient !== null, perPosition);
      const loss = logZ - scoreView(view, gold, from);
      if (gradient !== null) this.#addGradient(from, to, gradient, scale, perPosition);
      return loss;
    }
    // Partial labels: the clamped partition over labellings consistent with the known labels.
    if (this.#fixed.length < n) this.#fixed = new Int32Array(Math.max(n, this.dataset.maxLength));
    for (let j = 0; j < n; j++) this.#fixed[j] = gold[from + j]!;
    if (this.#partialCtx === null) {
      this.#partialCtx = new InferenceContext(Math.max(1, this.dataset.maxLength), this.numLabels);
    }
    const clampedCtx = this.#partialCtx;
    view.fixed = this.#fixed;
    let clampedPerPosition: Float64Array | null = null;
    if (perPosition !== null) {
      const need = Math.max(0, n - 1) * LL;
      if (this.#clampedPairwise.length < need) {
        this.#clampedPairwise = new Float64Array(Math.max(need, (this.dataset.maxLength - 1) * LL));
      }
      clampedPerPosition = this.#clampedPairwise;
    }
    const logZClamped = forwardBackwardKernel(
      clampedCtx,
      view,
      gradient !== null,
      clampedPerPosition,
    );
    view.fixed = null;
    const logZ = forwardBackwardKernel(this.#ctx, view, gradient !== null, perPosition);
    if (gradient !== null) {
      this.#addExpectations(this.#ctx, from, to, gradient, scale, perPosition);
      this.#addExpectations(clampedCtx, from, to, gradient, -scale, clampedPerPosition);
    }
    return logZ - logZClamped;
  }

  decode(i: number, weights: Float64Array, out: Int32Array): number {
    const ds = this.dataset;
    const g = this.#begin + i;
    const from = ds.instanceOffsets[g]!;
    const to = ds.instanceOffsets[g + 1]!;
    const view = this.#scorer.load(ds.state, ds.transition, from, to, weights);
    return viterbiKernel(this.#ctx, view, out);
  }

  addFeatureCounts(
    i: number,
    labels: ArrayLike<number>,
    scale: number,
    target: Float64Array,
  ): void {
    const ds = this.dataset;
    const layout = this.layout;
    const L = this.numLabels;
    const g = this.#begin + i;
    const from = ds.instanceOffsets[g]!;
    const to = ds.instanceOffsets[g + 1]!;
    const { offsets, ids, values } = ds.state;
    for (let j = from; j < to; j++) {
      const y = labels[j - from]!;
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) {
        const f = findStateFeature(layout, ids[k]!, y);
        if (f >= 0) target[f]! += scale * (values === null ? 1 : values[k]!);
      }
      if (j > from) {
        const pair = labels[j - from - 1]! * L + y;
        target[layout.transitionBase + pair]! += scale;
        const tr = ds.transition;
        if (tr !== null) {
          for (let k = tr.offsets[j]!; k < tr.offsets[j + 1]!; k++) {
            const f = findTransitionFeature(layout, tr.ids[k]!, pair);
            if (f >= 0) {
              target[layout.transitionAttributeBase + f]! +=
                scale * (tr.values === null ? 1 : tr.values[k]!);
            }
          }
        }
      }
    }
    if (layout.startBase >= 0) target[layout.startBase + labels[0]!]! += scale;
    if (layout.endBase >= 0) target[layout.endBase + labels[to - from - 1]!]! += scale;
  }

  /** Plain data for {@link restoreEncoder}; the arrays are moved onto shared memory once. */
  descriptor(): CrfEncoderDescriptor {
    if (this.#descriptor === null) {
      this.#descriptor = {
        kind: "lagrange.chain-crf.encoder",
        version: 1,
        dataset: shareDataset(this.dataset),
        layout: shareLayout(this.layout),
        begin: this.#begin,
        end: this.#begin + this.numInstances,
      };
    }
    return this.#descriptor;
  }

  #pairwiseBuffer(n: number, LL: number): Float64Array {
    const need = Math.max(0, n - 1) * LL;
    if (this.#positionPairwise.length < need) {
      this.#positionPairwise = new Float64Array(Math.max(need, (this.dataset.maxLength - 1) * LL));
    }
    return this.#positionPairwise;
  }

  /** Expected minus observed counts of a fully labelled instance, fused in one sweep. */
  #addGradient(
    from: number,
    to: number,
    grad: Float64Array,
    scale: number,
    perPosition: Float64Array | null,
  ): void {
    const ds = this.dataset;
    const layout = this.layout;
    const L = this.numLabels;
    const n = to - from;
    const marg = this.#ctx.marginals;
    const gold = ds.labels;
    const attrOffsets = layout.attributeOffsets;
    const featureLabels = layout.featureLabels;
    const { offsets, ids, values } = ds.state;
    for (let j = from; j < to; j++) {
      const row = (j - from) * L;
      const y = gold[j]!;
      const kEnd = offsets[j + 1]!;
      for (let k = offsets[j]!; k < kEnd; k++) {
        const a = ids[k]!;
        const s = values === null ? scale : scale * values[k]!;
        const fEnd = attrOffsets[a + 1]!;
        for (let f = attrOffsets[a]!; f < fEnd; f++) {
          const t = featureLabels[f]!;
          const p = marg[row + t]!;
          grad[f]! += s * (t === y ? p - 1 : p);
        }
      }
    }
    const T = layout.transitionBase;
    const pw = this.#ctx.pairwise;
    const LL = L * L;
    for (let ab = 0; ab < LL; ab++) grad[T + ab]! += scale * pw[ab]!;
    for (let j = from + 1; j < to; j++) grad[T + gold[j - 1]! * L + gold[j]!]! -= scale;
    if (layout.startBase >= 0) {
      const S = layout.startBase;
      for (let t = 0; t < L; t++) grad[S + t]! += scale * marg[t]!;
      grad[S + gold[from]!]! -= scale;
    }
    if (layout.endBase >= 0) {
      const E = layout.endBase;
      const row = (n - 1) * L;
      for (let t = 0; t < L; t++) grad[E + t]! += scale * marg[row + t]!;
      grad[E + gold[to - 1]!]! -= scale;
    }
    if (perPosition !== null) {
      const tr = ds.transition as CompiledAttributes;
      const pairs = layout.transitionFeaturePairs;
      const tOffsets = layout.transitionAttributeOffsets;
      const TA = layout.transitionAttributeBase;
      for (let j = from + 1; j < to; j++) {
        const pb = (j - from - 1) * LL;
        const observed = gold[j - 1]! * L + gold[j]!;
        for (let k = tr.offsets[j]!; k < tr.offsets[j + 1]!; k++) {
          const a = tr.ids[k]!;
          const s = tr.values === null ? scale : scale * tr.values[k]!;
          for (let f = tOffsets[a]!; f < tOffsets[a + 1]!; f++) {
            const pair = pairs[f]!;
            const p = perPosition[pb + pair]!;
            grad[TA + f]! += s * (pair === observed ? p - 1 : p);
          }
        }
      }
    }
  }

  /** Adds coef × the expected feature counts held in `ctx` (after forward-backward). */
  #addExpectations(
    ctx: InferenceContext,
    from: number,
    to: number,
    grad: Float64Array,
    coef: number,
    perPosition: Float64Array | null,
  ): void {
    const ds = this.dataset;
    const layout = this.layout;
    const L = this.numLabels;
    const n = to - from;
    const marg = ctx.marginals;
    const attrOffsets = layout.attributeOffsets;
    const featureLabels = layout.featureLabels;
    const { offsets, ids, values } = ds.state;
    for (let j = from; j < to; j++) {
      const row = (j - from) * L;
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) {
        const a = ids[k]!;
        const s = values === null ? coef : coef * values[k]!;
        for (let f = attrOffsets[a]!; f < attrOffsets[a + 1]!; f++) {
          grad[f]! += s * marg[row + featureLabels[f]!]!;
        }
      }
    }
    const T = layout.transitionBase;
    const LL = L * L;
    for (let ab = 0; ab < LL; ab++) grad[T + ab]! += coef * ctx.pairwise[ab]!;
    if (layout.startBase >= 0) {
      for (let t = 0; t < L; t++) grad[layout.startBase + t]! += coef * marg[t]!;
    }
    if (layout.endBase >= 0) {
      const row = (n - 1) * L;
      for (let t = 0; t < L; t++) grad[layout.endBase + t]! += coef * marg[row + t]!;
    }
    if (perPosition !== null) {
      const tr = ds.transition as CompiledAttributes;
      const pairs = layout.transitionFeaturePairs;
      const tOffsets = layout.transitionAttributeOffsets;
      const TA = layout.transitionAttributeBase;
      for (let j = from + 1; j < to; j++) {
        const pb = (j - from - 1) * LL;
        for (let k = tr.offsets[j]!; k < tr.offsets[j + 1]!; k++) {
          const a = tr.ids[k]!;
          const s = tr.values === null ? coef : coef * tr.values[k]!;
          for (let f = tOffsets[a]!; f < tOffsets[a + 1]!; f++) {
            grad[TA + f]! += s * perPosition[pb + pairs[f]!]!;
          }
        }
      }
    }
  }
}

function shareAttributes(a: CompiledAttributes): CompiledAttributes {
  return {
    offsets: toSharedInt32(a.offsets),
    ids: toSharedInt32(a.ids),
    values: a.values === null ? null : toSharedFloat64(a.values),
  };
}

function shareDataset(ds: CompiledDataset): CompiledDataset {
  return {
    numInstances: ds.numInstances,
    numTokens: ds.numTokens,
    maxLength: ds.maxLength,
    instanceOffsets: toSharedInt32(ds.instanceOffsets),
    state: shareAttributes(ds.state),
    transition: ds.transition === null ? null : shareAttributes(ds.transition),
    labels: toSharedInt32(ds.labels),
  };
}

function shareLayout(layout: FeatureLayout): FeatureLayout {
  return {
    ...layout,
    attributeOffsets: toSharedInt32(layout.attributeOffsets),
    featureLabels: toSharedInt32(layout.featureLabels),
    transitionAttributeOffsets: toSharedInt32(layout.transitionAttributeOffsets),
    transitionFeaturePairs: toSharedInt32(layout.transitionFeaturePairs),
  };
}

/**
 * Rebuilds an encoder from {@link CrfEncoder.descriptor} output (in a worker thread), over the
 * descriptor's instances or the sub-range `range` of them (relative indices).
 */
export function restoreEncoder(
  descriptor: CrfEncoderDescriptor,
  range?: InstanceRange,
): CrfEncoder {
  if (descriptor.kind !== "lagrange.chain-crf.encoder" || descriptor.version !== 1) {
    throw new Error(
      `not a chain-crf encoder descriptor (kind ${String(descriptor.kind)}, version ${String(descriptor.version)})`,
    );
  }
  const size = descriptor.end - descriptor.begin;
  const begin = range?.begin ?? 0;
  const end = range?.end ?? size;
  if (begin < 0 || end < begin || end > size) {
    throw new RangeError(`instance range [${begin}, ${end}) is not inside [0, ${size})`);
  }
  return new CrfEncoder(descriptor.dataset, descriptor.layout, {
    begin: descriptor.begin + begin,
    end: descriptor.begin + end,
  });
}
