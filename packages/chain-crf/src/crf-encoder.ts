import type { Encoder } from "./encoder.ts";
import { InferenceContext } from "./inference/context.ts";
import { forwardBackwardKernel } from "./inference/forward-backward.ts";
import { scoreView } from "./inference/score.ts";
import { instantiateSimd, type SimdKernels } from "./inference/simd.ts";
import { type ChainView, emptyView } from "./inference/view.ts";
import { viterbiKernel } from "./inference/viterbi.ts";
import { toSharedFloat64, toSharedInt32 } from "./model/buffers.ts";
import type { CompiledAttributes, CompiledDataset } from "./model/dataset.ts";
import type { FeatureLayout } from "./model/layout.ts";
import { findStateFeature, findTransitionFeature, InstanceScorer } from "./model/scorer.ts";

interface SweepWorkspace {
  readonly kernels: SimdKernels;
  /** Global index of the first token copied (the sweeps index tokens from it). */
  readonly firstToken: number;
  readonly offsetsPtr: number;
  readonly idsPtr: number;
  readonly attrOffsetsPtr: number;
  readonly labelsPtr: number;
  readonly weights: Float64Array;
  readonly weightsPtr: number;
  readonly gradient: Float64Array;
  readonly gradientPtr: number;
  readonly unary: Float64Array;
  readonly unaryPtr: number;
  readonly residual: Float64Array;
  readonly residualPtr: number;
  readonly view: ChainView;
}

/**
 * A transition mask for constrained training (the shape of the model's decoding constraints):
 * allowed[a·L + b] = 0 forbids b right after a, allowedStart / allowedEnd forbid first / last
 * labels.
 */
export interface TrainingConstraints {
  readonly allowed?: Uint8Array;
  readonly allowedStart?: Uint8Array;
  readonly allowedEnd?: Uint8Array;
}

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
  /** Constrained training: the mask every instance is normalised under (small; copied). */
  readonly constraints?: TrainingConstraints;
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
  #shared: { dataset: CompiledDataset; layout: FeatureLayout } | null = null;
  #allowed: Uint8Array | null = null;
  #allowedStart: Uint8Array | null = null;
  #allowedEnd: Uint8Array | null = null;
  #sweepWorkspace: SweepWorkspace | null | undefined = undefined;

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

  /**
   * Constrained training: normalise every instance over the labellings the mask allows only, so
   * the loss is log Z_valid − score(gold) and forbidden transitions get no expected counts (their
   * weights feel only the regulariser). Every known gold transition, first and last label must
   * be allowed, else a RangeError names the sequence (1-based, in the encoder's dataset) and the
   * offending labels (by `labelNames` when given). `null` lifts the constraints.
   */
  setConstraints(constraints: TrainingConstraints | null, labelNames?: readonly string[]): void {
    if (constraints === null) {
      this.#allowed = null;
      this.#allowedStart = null;
      this.#allowedEnd = null;
      return;
    }
    const L = this.numLabels;
    const copy = (mask: Uint8Array | undefined, length: number, what: string) => {
      if (mask === undefined) return null;
      if (mask.length !== length) {
        throw new RangeError(
          `training constraints: ${what} has length ${mask.length}, expected ${length}`,
        );
      }
      return Uint8Array.from(mask);
    };
    const allowed = copy(constraints.allowed, L * L, "allowed (L·L)");
    const allowedStart = copy(constraints.allowedStart, L, "allowedStart (L)");
    const allowedEnd = copy(constraints.allowedEnd, L, "allowedEnd (L)");
    const name = (t: number) => (labelNames?.[t] === undefined ? `#${t}` : `"${labelNames[t]}"`);
    const ds = this.dataset;
    const gold = ds.labels;
    for (let i = 0; i < this.numInstances; i++) {
      const g = this.#begin + i;
      const from = ds.instanceOffsets[g]!;
      const to = ds.instanceOffsets[g + 1]!;
      if (to === from) continue;
      const where = `training constraints: sequence ${g + 1}`;
      const first = gold[from]!;
      const last = gold[to - 1]!;
      if (allowedStart !== null && first >= 0 && allowedStart[first] === 0) {
        throw new RangeError(
          `${where} starts with label ${name(first)}, which the constraints forbid as a first label`,
        );
      }
      if (allowedEnd !== null && last >= 0 && allowedEnd[last] === 0) {
        throw new RangeError(
          `${where} ends with label ${name(last)}, which the constraints forbid as a last label`,
        );
      }
      if (allowed !== null) {
        for (let j = from + 1; j < to; j++) {
          const a = gold[j - 1]!;
          const b = gold[j]!;
          if (a >= 0 && b >= 0 && allowed[a * L + b] === 0) {
            throw new RangeError(
              `${where}, tokens ${j - from} and ${j - from + 1}: the transition ${name(a)} → ${name(b)} is forbidden by the constraints`,
            );
          }
        }
      }
      if (!completable(gold, from, to, L, allowed, allowedStart, allowedEnd)) {
        throw new RangeError(
          `${where} is partially labelled, and no labelling of its unknown tokens satisfies the constraints`,
        );
      }
    }
    this.#allowed = allowed;
    this.#allowedStart = allowedStart;
    this.#allowedEnd = allowedEnd;
  }

  /** Whether {@link setConstraints} put a mask in force. */
  get constrained(): boolean {
    return this.#allowed !== null || this.#allowedStart !== null || this.#allowedEnd !== null;
  }

  #constrain(view: ChainView): ChainView {
    view.allowed = this.#allowed;
    view.allowedStart = this.#allowedStart;
    view.allowedEnd = this.#allowedEnd;
    return view;
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
    const view = this.#constrain(
      this.#scorer.load(ds.state, ds.transition, from, to, weights, weightScale),
    );
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
    const view = this.#constrain(this.#scorer.load(ds.state, ds.transition, from, to, weights));
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

  /**
   * Σ_{i ∈ [begin, end)} instanceLoss(i, weights, gradient, scale): the same value and gradient
   * (up to summation order), computed in one batch. The batch copies the weights once into
   * WebAssembly memory that also holds this encoder's corpus, so the two sparse feature sweeps
   * (scoring, gradient) run there (~2.3× faster than the JavaScript loops); sentences with
   * unknown labels or observation-conditioned bigrams, real-valued attributes, and runtimes
   * without WebAssembly take the per-instance path. Trainers should prefer it for full passes.
   */
  rangeLoss(
    begin: number,
    end: number,
    weights: Float64Array,
    gradient: Float64Array,
    scale = 1,
  ): number {
    if (
      !Number.isInteger(begin) ||
      !Number.isInteger(end) ||
      begin < 0 ||
      end > this.numInstances ||
      begin > end
    ) {
      throw new RangeError(
        `instance range [${begin}, ${end}) is not inside [0, ${this.numInstances})`,
      );
    }
    const ws = this.#sweeps();
    if (ws === null) {
      let loss = 0;
      for (let i = begin; i < end; i++) loss += this.#loss(i, weights, 1, gradient, scale);
      return loss;
    }
    const ds = this.dataset;
    const layout = this.layout;
    const L = this.numLabels;
    const K = this.numWeights;
    const w = ws.weights;
    const acc = ws.gradient;
    w.set(weights);
    acc.fill(0);
    const gold = ds.labels;
    const view = this.#constrain(ws.view);
    view.L = L;
    view.unary = ws.unary;
    view.transition = w;
    view.transitionBase = layout.transitionBase;
    view.start = layout.startBase >= 0 ? w : null;
    view.startBase = layout.startBase;
    view.end = layout.endBase >= 0 ? w : null;
    view.endBase = layout.endBase;
    const k = ws.kernels;
    const T = layout.transitionBase;
    const LL = L * L;
    let loss = 0;
    for (let i = begin; i < end; i++) {
      const g = this.#begin + i;
      const from = ds.instanceOffsets[g]!;
      const to = ds.instanceOffsets[g + 1]!;
      const n = to - from;
      let simple =
        ds.transition === null || ds.transition.offsets[from + 1]! >= ds.transition.offsets[to]!;
      for (let j = from; simple && j < to; j++) if (gold[j]! < 0) simple = false;
      if (!simple) {
        loss += this.#loss(i, w, 1, acc, scale);
        continue;
      }
      k.scoreSweep(
        ws.offsetsPtr,
        ws.idsPtr,
        ws.attrOffsetsPtr,
        ws.labelsPtr,
        ws.weightsPtr,
        ws.unaryPtr,
        from - ws.firstToken,
        to - ws.firstToken,
        L,
      );
      view.n = n;
      const logZ = forwardBackwardKernel(this.#ctx, view, true, null);
      loss += logZ - scoreView(view, gold, from);
      const residual = ws.residual;
      const marg = this.#ctx.marginals;
      for (let q = 0; q < n * L; q++) residual[q] = marg[q]!;
      for (let j = from; j < to; j++) residual[(j - from) * L + gold[j]!]! -= 1;
      k.gradientSweep(
        ws.offsetsPtr,
        ws.idsPtr,
        ws.attrOffsetsPtr,
        ws.labelsPtr,
        ws.gradientPtr,
        ws.residualPtr,
        from - ws.firstToken,
        to - ws.firstToken,
        L,
        scale,
      );
      const pw = this.#ctx.pairwise;
      for (let ab = 0; ab < LL; ab++) acc[T + ab]! += scale * pw[ab]!;
      for (let j = from + 1; j < to; j++) acc[T + gold[j - 1]! * L + gold[j]!]! -= scale;
      if (layout.startBase >= 0) {
        for (let t = 0; t < L; t++) acc[layout.startBase + t]! += scale * residual[t]!;
      }
      if (layout.endBase >= 0) {
        const row = (n - 1) * L;
        for (let t = 0; t < L; t++) acc[layout.endBase + t]! += scale * residual[row + t]!;
      }
    }
    for (let q = 0; q < K; q++) gradient[q]! += acc[q]!;
    return loss;
  }

  /**
   * The batch path's WebAssembly memory: int32 corpus offsets and attribute ids, the layout's
   * attribute offsets and feature labels, then float64 weights, gradient, unary and residual rows.
   * Built on first use; null without WebAssembly or with real-valued attributes.
   */
  #sweeps(): SweepWorkspace | null {
    if (this.#sweepWorkspace !== undefined) return this.#sweepWorkspace;
    this.#sweepWorkspace = null;
    const ds = this.dataset;
    if (ds.state.values !== null) return null;
    const kernels = instantiateSimd(1);
    if (kernels === null) return null;
    const L = this.numLabels;
    const rows = Math.max(1, ds.maxLength) * L;
    // Only this encoder's tokens (a worker's shard), with offsets rebased to its first token.
    const firstToken = ds.instanceOffsets[this.#begin]!;
    const endToken = ds.instanceOffsets[this.#begin + this.numInstances]!;
    const firstEntry = ds.state.offsets[firstToken]!;
    const offsets = ds.state.offsets.slice(firstToken, endToken + 1);
    for (let j = 0; j < offsets.length; j++) offsets[j]! -= firstEntry;
    const ids = ds.state.ids.subarray(firstEntry, ds.state.offsets[endToken]!);
    const ints = [offsets, ids, this.layout.attributeOffsets, this.layout.featureLabels];
    let bytes = 0;
    for (const a of ints) bytes += (a.byteLength + 7) & ~7;
    bytes += 8 * (2 * this.numWeights + 2 * rows);
    try {
      kernels.memory.grow(Math.ceil(bytes / 65536));
    } catch {
      return null; // beyond the 4 GiB a WebAssembly memory can hold: stay on the per-instance path
    }
    const buffer = kernels.memory.buffer;
    let at = 0;
    const ptrs: number[] = [];
    for (const a of ints) {
      new Int32Array(buffer, at, a.length).set(a);
      ptrs.push(at);
      at += (a.byteLength + 7) & ~7;
    }
    const f64 = (length: number): [Float64Array, number] => {
      const ptr = at;
      at += 8 * length;
      return [new Float64Array(buffer, ptr, length), ptr];
    };
    const [weights, weightsPtr] = f64(this.numWeights);
    const [gradient, gradientPtr] = f64(this.numWeights);
    const [unary, unaryPtr] = f64(rows);
    const [residual, residualPtr] = f64(rows);
    this.#sweepWorkspace = {
      kernels,
      firstToken,
      offsetsPtr: ptrs[0]!,
      idsPtr: ptrs[1]!,
      attrOffsetsPtr: ptrs[2]!,
      labelsPtr: ptrs[3]!,
      weights,
      weightsPtr,
      gradient,
      gradientPtr,
      unary,
      unaryPtr,
      residual,
      residualPtr,
      view: emptyView(),
    };
    return this.#sweepWorkspace;
  }

  /** Plain data for {@link restoreEncoder}; the arrays are moved onto shared memory once. */
  descriptor(): CrfEncoderDescriptor {
    this.#shared ??= { dataset: shareDataset(this.dataset), layout: shareLayout(this.layout) };
    const constraints: {
      allowed?: Uint8Array;
      allowedStart?: Uint8Array;
      allowedEnd?: Uint8Array;
    } = {};
    if (this.#allowed !== null) constraints.allowed = this.#allowed;
    if (this.#allowedStart !== null) constraints.allowedStart = this.#allowedStart;
    if (this.#allowedEnd !== null) constraints.allowedEnd = this.#allowedEnd;
    return {
      kind: "lagrange.chain-crf.encoder",
      version: 1,
      dataset: this.#shared.dataset,
      layout: this.#shared.layout,
      begin: this.#begin,
      end: this.#begin + this.numInstances,
      ...(this.constrained ? { constraints } : {}),
    };
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
    // The marginals become residuals p − [t = gold] in place, so the sweep is branch-free and
    // the start/end blocks need no separate observed count.
    const residual = this.#ctx.marginals;
    const gold = ds.labels;
    for (let j = from; j < to; j++) residual[(j - from) * L + gold[j]!]! -= 1;
    const attrOffsets = layout.attributeOffsets;
    const featureLabels = layout.featureLabels;
    const { offsets, ids, values } = ds.state;
    for (let j = from; j < to; j++) {
      const row = (j - from) * L;
      const kEnd = offsets[j + 1]!;
      if (values === null) {
        for (let k = offsets[j]!; k < kEnd; k++) {
          const a = ids[k]!;
          const fEnd = attrOffsets[a + 1]!;
          for (let f = attrOffsets[a]!; f < fEnd; f++) {
            grad[f]! += scale * residual[row + featureLabels[f]!]!;
          }
        }
      } else {
        for (let k = offsets[j]!; k < kEnd; k++) {
          const a = ids[k]!;
          const s = scale * values[k]!;
          const fEnd = attrOffsets[a + 1]!;
          for (let f = attrOffsets[a]!; f < fEnd; f++) {
            grad[f]! += s * residual[row + featureLabels[f]!]!;
          }
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
      for (let t = 0; t < L; t++) grad[S + t]! += scale * residual[t]!;
    }
    if (layout.endBase >= 0) {
      const E = layout.endBase;
      const row = (n - 1) * L;
      for (let t = 0; t < L; t++) grad[E + t]! += scale * residual[row + t]!;
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

/**
 * Whether some labelling of gold[from, to) that keeps its known labels (≥ 0) satisfies the mask:
 * a boolean forward pass, O(n·L²), run only for partially labelled sequences (a fully labelled one
 * was checked pair by pair).
 */
function completable(
  gold: Int32Array,
  from: number,
  to: number,
  L: number,
  allowed: Uint8Array | null,
  allowedStart: Uint8Array | null,
  allowedEnd: Uint8Array | null,
): boolean {
  let partial = false;
  for (let j = from; j < to; j++) if (gold[j]! < 0) partial = true;
  if (!partial) return true;
  let reach = new Uint8Array(L);
  let next = new Uint8Array(L);
  const admits = (j: number, t: number) => gold[j]! < 0 || gold[j] === t;
  for (let t = 0; t < L; t++) {
    reach[t] = admits(from, t) && (allowedStart === null || allowedStart[t] !== 0) ? 1 : 0;
  }
  for (let j = from + 1; j < to; j++) {
    for (let b = 0; b < L; b++) {
      let ok = 0;
      if (admits(j, b)) {
        for (let a = 0; a < L && ok === 0; a++) {
          if (reach[a] !== 0 && (allowed === null || allowed[a * L + b] !== 0)) ok = 1;
        }
      }
      next[b] = ok;
    }
    [reach, next] = [next, reach];
  }
  for (let t = 0; t < L; t++) {
    if (reach[t] !== 0 && (allowedEnd === null || allowedEnd[t] !== 0)) return true;
  }
  return false;
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
  const encoder = new CrfEncoder(descriptor.dataset, descriptor.layout, {
    begin: descriptor.begin + begin,
    end: descriptor.begin + end,
  });
  if (descriptor.constraints !== undefined) encoder.setConstraints(descriptor.constraints);
  return encoder;
}
