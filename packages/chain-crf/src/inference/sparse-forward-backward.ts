import type { InferenceContext } from "./context.js";
import {
  exponentiateUnaries,
  forwardBackwardLogKernel,
  infeasible,
  scaledMarginals,
  scaleForwardRow,
} from "./forward-backward-shared.js";
import { MaskCopy, valuesUnchanged } from "./mask-copy.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * The cost model that picks this kernel, per position, in units of one gathered entry (index load,
 * message load, multiply-add: ≈ 2.1 ns in V8 on the machine it was measured on). Measured by
 * timing the kernels themselves on random masks of densities 2 … 100 % for L = 8 … 256, n = 25,
 * pairwise sums on (the training call): the sparse kernel costs ≈ 3·(5.5·L + nnz) units — one pass
 * over columns, two over rows — with a line of more than 0.6·L allowed labels walked densely at
 * 0.6·L; the dense kernel ≈ 3·0.12·L² with its WebAssembly SIMD products and 3·0.5·L² in
 * JavaScript. So against SIMD the sparse kernel wins only on large, very sparse masks (measured
 * crossovers: density ≈ 3.5 % at L = 64, 7.5 % at L = 131, 10 % at L = 256); against JavaScript
 * below ≈ 45 % at any L ≥ 16. A hierarchical BIO mask (131 labels, 44 %) stays dense: there the
 * sparse kernel takes 3.4× the dense kernel's time per training pass.
 */
export const SPARSE_COST = {
  /** A contiguous multiply-add of a dense line, relative to a gathered one. */
  DENSE_COLUMN: 0.6,
  /** Per label, position and pass: exps, scaling, the line's loop set-up and write-back. */
  COLUMN_OVERHEAD: 5.5,
  /** One entry of one pass of the dense kernel with its WebAssembly SIMD products. */
  DENSE_ENTRY_SIMD: 0.12,
  /** One entry of one pass of the dense kernel in JavaScript. */
  DENSE_ENTRY_JS: 0.5,
} as const;

/**
 * One side of a mask's structure: per label, the labels it connects to (predecessors of a column
 * for the forward pass, successors of a row for the backward pass). Labels with many of them are
 * kept as dense rows of exp(T) with zeros where forbidden, walked contiguously; the others as CSR
 * lists of (label, exp T). The hierarchical BIO masks of large label sets are like that: a column
 * into B-x or O admits (nearly) every label, one into I-x two or three.
 */
class MaskSide {
  dense: Int32Array = new Int32Array(0);
  sparse: Int32Array = new Int32Array(0);
  /** Sparse label s connects to others[offsets[s] … offsets[s+1]), pair index a·L + b in pairs. */
  offsets: Int32Array = new Int32Array(0);
  others: Int32Array = new Int32Array(0);
  pairs: Int32Array = new Int32Array(0);
  /** exp(T − max) at [d·L + other] for dense label d, and per sparse entry. */
  denseExp: Float64Array = new Float64Array(0);
  sparseExp: Float64Array = new Float64Array(0);
  /** Work per position in gathered-entry units (see SPARSE_COST). */
  work = 0;

  /** `byColumn`: label b's list holds its predecessors a; else label a's its successors b. */
  build(allowed: Uint8Array, L: number, byColumn: boolean): void {
    const at = (label: number, other: number) => (byColumn ? other * L + label : label * L + other);
    const denseFrom = SPARSE_COST.DENSE_COLUMN * L;
    const dense: number[] = [];
    const sparse: number[] = [];
    const others: number[] = [];
    const pairs: number[] = [];
    const offsets: number[] = [];
    let work = 0;
    for (let label = 0; label < L; label++) {
      let count = 0;
      for (let other = 0; other < L; other++) if (allowed[at(label, other)] !== 0) count++;
      work += SPARSE_COST.COLUMN_OVERHEAD;
      if (count > denseFrom) {
        dense.push(label);
        work += denseFrom;
        continue;
      }
      sparse.push(label);
      offsets.push(others.length);
      work += count;
      for (let other = 0; other < L; other++) {
        if (allowed[at(label, other)] === 0) continue;
        others.push(other);
        pairs.push(at(label, other));
      }
    }
    offsets.push(others.length);
    this.dense = Int32Array.from(dense);
    this.sparse = Int32Array.from(sparse);
    this.offsets = Int32Array.from(offsets);
    this.others = Int32Array.from(others);
    this.pairs = Int32Array.from(pairs);
    this.denseExp = new Float64Array(dense.length * L);
    this.sparseExp = new Float64Array(others.length);
    this.work = work;
  }

  exponentiate(
    allowed: Uint8Array,
    trans: Float64Array,
    base: number,
    m: number,
    L: number,
    byColumn: boolean,
  ): void {
    const dense = this.dense;
    const denseExp = this.denseExp;
    for (let d = 0; d < dense.length; d++) {
      const label = dense[d]!;
      const row = d * L;
      for (let other = 0; other < L; other++) {
        const ab = byColumn ? other * L + label : label * L + other;
        denseExp[row + other] = allowed[ab] === 0 ? 0 : Math.exp(trans[base + ab]! - m);
      }
    }
    const pairs = this.pairs;
    const sparseExp = this.sparseExp;
    for (let k = 0; k < pairs.length; k++) sparseExp[k] = Math.exp(trans[base + pairs[k]!]! - m);
  }
}

/**
 * A transition mask's structure both ways (columns for the forward pass, rows for the backward
 * pass and the pairwise sums) and, for the transition values it was last used with, the
 * exponentials gathered into it.
 */
class SparsePlan {
  L = 0;
  mask: Uint8Array = new Uint8Array(0);
  /** Every allowed pair a·L + b (the values to compare). */
  allowedPairs: Int32Array = new Int32Array(0);
  columns = new MaskSide();
  rows = new MaskSide();
  /** Estimated work per position, in gathered-entry units (see SPARSE_COST). */
  work = 0;
  /** Raw transition values of the allowed pairs the exponentials were made from. */
  values: Float64Array = new Float64Array(0);
  valuesValid = false;
  maxTransition = NEG;

  readonly copy = new MaskCopy();

  /** Whether `allowed` (L·L) is the mask this plan was built for. */
  matches(allowed: Uint8Array, L: number): boolean {
    return this.copy.matches(allowed, L);
  }

  build(allowed: Uint8Array, L: number): void {
    const LL = L * L;
    this.L = L;
    this.mask = allowed.slice(0, LL);
    this.copy.set(allowed, L);
    this.valuesValid = false;
    this.columns.build(allowed, L, true);
    this.rows.build(allowed, L, false);
    // The forward pass walks columns; the backward pass and the pairwise sums walk rows.
    this.work = this.columns.work + 2 * this.rows.work;
    let nnz = 0;
    for (let ab = 0; ab < LL; ab++) if (allowed[ab] !== 0) nnz++;
    this.allowedPairs = new Int32Array(nnz);
    let q = 0;
    for (let ab = 0; ab < LL; ab++) if (allowed[ab] !== 0) this.allowedPairs[q++] = ab;
    this.values = new Float64Array(LL);
  }

  /**
   * Makes the exponentials current for a shared block; returns its maximum over allowed pairs
   * (−∞: nothing allowed). Comparing the allowed values first costs far less than the exps it
   * saves: training scores every sentence under the same weights.
   */
  exponentiate(trans: Float64Array, base: number): number {
    const pairs = this.allowedPairs;
    const values = this.values;
    if (this.valuesValid && valuesUnchanged(pairs, values, trans, base)) return this.maxTransition;
    let m = NEG;
    for (let q = 0; q < pairs.length; q++) {
      const ab = pairs[q]!;
      const t = trans[base + ab]!;
      values[ab] = t;
      if (t > m) m = t;
    }
    this.columns.exponentiate(this.mask, trans, base, m, this.L, true);
    this.rows.exponentiate(this.mask, trans, base, m, this.L, false);
    this.maxTransition = m;
    this.valuesValid = m !== NEG;
    return m;
  }
}

const plans = new WeakMap<InferenceContext, SparsePlan>();

/** The context's plan for `allowed`, rebuilt when the mask's contents changed. */
function planFor(ctx: InferenceContext, allowed: Uint8Array, L: number): SparsePlan {
  let plan = plans.get(ctx);
  if (plan === undefined) {
    plan = new SparsePlan();
    plans.set(ctx, plan);
  }
  if (!plan.matches(allowed, L)) plan.build(allowed, L);
  return plan;
}

/** Whether the sparse kernel's estimated work beats the dense kernel's on this context. */
function sparsePays(ctx: InferenceContext, plan: SparsePlan): boolean {
  const L = plan.L;
  const entry = ctx.simd === null ? SPARSE_COST.DENSE_ENTRY_JS : SPARSE_COST.DENSE_ENTRY_SIMD;
  return plan.work < 3 * entry * L * L;
}

/**
 * {@link forwardBackwardKernel} for a masked chain with a shared transition block, visiting only
 * the allowed transitions — when the mask is sparse enough for that to be faster than the dense
 * products (the measured cost model of {@link SPARSE_COST}); otherwise, and for position-specific
 * blocks, undefined (the caller runs the dense kernel). Same results, up to summation order.
 */
export function sparseForwardBackwardIfFaster(
  ctx: InferenceContext,
  v: ChainView,
  pairwise: boolean,
  pairwiseOut: Float64Array | null,
): number | undefined {
  const allowed = v.allowed;
  if (allowed === null || v.transitionStride !== 0) return undefined;
  ctx.ensure(v.n, v.L);
  const plan = planFor(ctx, allowed, v.L);
  if (!sparsePays(ctx, plan)) return undefined;
  return run(ctx, v, plan, pairwise, pairwiseOut);
}

/**
 * The sparse kernel unconditionally (a shared, masked block): the reference the tests hold against
 * brute force and the dense kernel, and what the threshold was measured with.
 */
export function sparseForwardBackwardKernel(
  ctx: InferenceContext,
  v: ChainView,
  pairwise: boolean,
  pairwiseOut: Float64Array | null = null,
): number {
  const allowed = v.allowed;
  if (allowed === null || v.transitionStride !== 0) {
    throw new RangeError("the sparse kernel needs a transition mask and a shared block");
  }
  ctx.ensure(v.n, v.L);
  return run(ctx, v, planFor(ctx, allowed, v.L), pairwise, pairwiseOut);
}

/** Estimated work per position of the sparse kernel for `allowed`, and the dense kernel's (tests). */
export function sparseWorkEstimate(
  ctx: InferenceContext,
  allowed: Uint8Array,
  L: number,
): { readonly sparse: number; readonly dense: number } {
  const plan = planFor(ctx, allowed, L);
  const entry = ctx.simd === null ? SPARSE_COST.DENSE_ENTRY_JS : SPARSE_COST.DENSE_ENTRY_SIMD;
  return { sparse: plan.work, dense: 3 * entry * L * L };
}

function run(
  ctx: InferenceContext,
  v: ChainView,
  plan: SparsePlan,
  pairwise: boolean,
  pairwiseOut: Float64Array | null,
): number {
  const { n, L } = v;
  const LL = L * L;
  const { expUnary: expU, alpha, beta, scale, next } = ctx;
  let shift = exponentiateUnaries(ctx, v);
  if (shift === NEG) return infeasible(ctx, n, L, pairwise, pairwiseOut);
  if (n > 1) {
    const m = plan.exponentiate(v.transition, v.transitionBase);
    if (m === NEG) return infeasible(ctx, n, L, pairwise, pairwiseOut);
    shift += (n - 1) * m;
  }
  const columns = plan.columns;
  const rows = plan.rows;

  // Forward: alpha_i[b] = U_i[b] · Σ_{a → b allowed} alpha_{i−1}[a] · E[a, b], rescaled to sum 1.
  alpha.fill(1, 0, L);
  let logScaleSum = scaleForwardRow(ctx, 0, L);
  for (let i = 1; i < n; i++) {
    gather(columns, alpha, (i - 1) * L, alpha, i * L, L, 1);
    const logSum = scaleForwardRow(ctx, i, L);
    if (Number.isNaN(logSum)) return forwardBackwardLogKernel(ctx, v, pairwise, pairwiseOut);
    logScaleSum += logSum;
  }
  const logZ = logScaleSum + shift;

  // Backward by rows: beta_i[a] = s_i · Σ_{a → b allowed} E[a, b] · next_{i+1}[b], next = U · beta.
  beta.fill(scale[n - 1]!, (n - 1) * L, n * L);
  for (let i = n - 2; i >= 0; i--) {
    const cur = i * L;
    const nx = (i + 1) * L;
    for (let b = 0; b < L; b++) next[nx + b] = expU[nx + b]! * beta[nx + b]!;
    gather(rows, next, nx, beta, cur, L, scale[i]!);
    if (pairwiseOut !== null) {
      // Per-position pairwise marginals p(a, b) = alpha_i[a] · E[a, b] · next_{i+1}[b].
      const ob = i * LL;
      pairwiseOut.fill(0, ob, ob + LL);
      const { dense, denseExp, sparse, offsets, others, pairs, sparseExp } = rows;
      for (let d = 0; d < dense.length; d++) {
        const a = dense[d]!;
        const pa = alpha[cur + a]!;
        const row = d * L;
        for (let b = 0; b < L; b++)
          pairwiseOut[ob + a * L + b] = pa * denseExp[row + b]! * next[nx + b]!;
      }
      for (let r = 0; r < sparse.length; r++) {
        const pa = alpha[cur + sparse[r]!]!;
        for (let k = offsets[r]!; k < offsets[r + 1]!; k++)
          pairwiseOut[ob + pairs[k]!] = pa * sparseExp[k]! * next[nx + others[k]!]!;
      }
    }
  }
  if (pairwise) {
    ctx.pairwise.fill(0, 0, LL);
    if (n > 1) pairwiseSums(rows, alpha, next, n - 1, L, ctx.pairwise);
  }
  if (!scaledMarginals(ctx, n, L)) return forwardBackwardLogKernel(ctx, v, pairwise, pairwiseOut);
  return logZ;
}

/**
 * out[outBase + label] = factor · Σ_{other} exp T · x[xBase + other] over `side`'s lists: the
 * forward pass over columns (x = alpha_{i−1}), the backward pass over rows (x = next_{i+1}).
 */
function gather(
  side: MaskSide,
  x: Float64Array,
  xBase: number,
  out: Float64Array,
  outBase: number,
  L: number,
  factor: number,
): void {
  const { dense, denseExp, sparse, offsets, others, sparseExp } = side;
  for (let d = 0; d < dense.length; d++) {
    const row = d * L;
    // Four accumulators hide the add latency of one long dot product.
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let c = 0;
    for (; c + 3 < L; c += 4) {
      a0 += x[xBase + c]! * denseExp[row + c]!;
      a1 += x[xBase + c + 1]! * denseExp[row + c + 1]!;
      a2 += x[xBase + c + 2]! * denseExp[row + c + 2]!;
      a3 += x[xBase + c + 3]! * denseExp[row + c + 3]!;
    }
    for (; c < L; c++) a0 += x[xBase + c]! * denseExp[row + c]!;
    out[outBase + dense[d]!] = (a0 + a1 + (a2 + a3)) * factor;
  }
  for (let s = 0; s < sparse.length; s++) {
    let acc = 0;
    const end = offsets[s + 1]!;
    for (let k = offsets[s]!; k < end; k++) acc += x[xBase + others[k]!]! * sparseExp[k]!;
    out[outBase + sparse[s]!] = acc * factor;
  }
}

/**
 * pw[a·L + b] = E[a, b] · Σ_{i < count} alpha[i·L + a] · next[(i+1)·L + b] over the allowed pairs,
 * by rows, four successors at a time: the sums stay in registers instead of a read-modify-write
 * of the L² block at every position.
 */
function pairwiseSums(
  rows: MaskSide,
  alpha: Float64Array,
  next: Float64Array,
  count: number,
  L: number,
  pw: Float64Array,
): void {
  const { dense, denseExp, sparse, offsets, others, pairs, sparseExp } = rows;
  for (let d = 0; d < dense.length; d++) {
    const a = dense[d]!;
    const row = d * L;
    let b = 0;
    for (; b + 3 < L; b += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < count; i++) {
        const l = alpha[i * L + a]!;
        const k = (i + 1) * L + b;
        s0 += l * next[k]!;
        s1 += l * next[k + 1]!;
        s2 += l * next[k + 2]!;
        s3 += l * next[k + 3]!;
      }
      pw[a * L + b] = s0 * denseExp[row + b]!;
      pw[a * L + b + 1] = s1 * denseExp[row + b + 1]!;
      pw[a * L + b + 2] = s2 * denseExp[row + b + 2]!;
      pw[a * L + b + 3] = s3 * denseExp[row + b + 3]!;
    }
    for (; b < L; b++) {
      let s0 = 0;
      for (let i = 0; i < count; i++) s0 += alpha[i * L + a]! * next[(i + 1) * L + b]!;
      pw[a * L + b] = s0 * denseExp[row + b]!;
    }
  }
  for (let r = 0; r < sparse.length; r++) {
    const a = sparse[r]!;
    const end = offsets[r + 1]!;
    let k = offsets[r]!;
    for (; k + 3 < end; k += 4) {
      const b0 = others[k]! + L;
      const b1 = others[k + 1]! + L;
      const b2 = others[k + 2]! + L;
      const b3 = others[k + 3]! + L;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < count; i++) {
        const l = alpha[i * L + a]!;
        const at = i * L;
        s0 += l * next[at + b0]!;
        s1 += l * next[at + b1]!;
        s2 += l * next[at + b2]!;
        s3 += l * next[at + b3]!;
      }
      pw[pairs[k]!] = s0 * sparseExp[k]!;
      pw[pairs[k + 1]!] = s1 * sparseExp[k + 1]!;
      pw[pairs[k + 2]!] = s2 * sparseExp[k + 2]!;
      pw[pairs[k + 3]!] = s3 * sparseExp[k + 3]!;
    }
    for (; k < end; k++) {
      const b = others[k]! + L;
      let s0 = 0;
      for (let i = 0; i < count; i++) s0 += alpha[i * L + a]! * next[i * L + b]!;
      pw[pairs[k]!] = s0 * sparseExp[k]!;
    }
  }
}
