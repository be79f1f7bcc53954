/**
 * The pieces the dense and the sparse forward-backward kernels share: the unary exponentials, the
 * scaled forward rows and marginals, and the log-space fallback both drop to.
 */
import type { InferenceContext } from "./context.js";
import { localScores } from "./local.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * ctx.expUnary = exp(local scores − their per-position maximum); returns Σ of the maxima, or −∞
 * when some position allows no label. With SIMD the n·L exps run in one call, two lanes at a time
 * (≈ 2× cheaper than Math.exp).
 */
export function exponentiateUnaries(ctx: InferenceContext, v: ChainView): number {
  const { n, L } = v;
  const expU = ctx.expUnary;
  const simd = ctx.simd;
  let shift = 0;
  for (let i = 0; i < n; i++) {
    const row = i * L;
    localScores(v, i, expU, row);
    let m = NEG;
    for (let t = 0; t < L; t++) if (expU[row + t]! > m) m = expU[row + t]!;
    if (m === NEG) return NEG;
    if (simd === null) for (let t = 0; t < L; t++) expU[row + t] = Math.exp(expU[row + t]! - m);
    else for (let t = 0; t < L; t++) expU[row + t]! -= m;
    shift += m;
  }
  if (simd !== null) {
    const count = n * L;
    simd.expPairs(ctx.expUnaryPtr, count >> 1);
    if ((count & 1) === 1) expU[count - 1] = Math.exp(expU[count - 1]!);
  }
  return shift;
}

/**
 * Forward row i (propagated into ctx.alpha): multiplies in the unaries and rescales it to sum 1,
 * recording the factor in ctx.scale[i]. Returns the log of the sum it divided by, or NaN when the
 * sum underflowed to 0 or overflowed: the scaled recursion cannot go on, and the caller runs the
 * log-domain kernel instead.
 */
export function scaleForwardRow(ctx: InferenceContext, i: number, L: number): number {
  const { alpha, expUnary: expU, scale } = ctx;
  const cur = i * L;
  let sum = 0;
  for (let b = 0; b < L; b++) {
    const x = alpha[cur + b]! * expU[cur + b]!;
    alpha[cur + b] = x;
    sum += x;
  }
  if (!(sum > 0) || sum === Number.POSITIVE_INFINITY) return Number.NaN;
  const s = 1 / sum;
  scale[i] = s;
  for (let b = 0; b < L; b++) alpha[cur + b]! *= s;
  return Math.log(sum);
}

/**
 * ctx.marginals = alpha·beta / scale per position (the scaled messages' product); false when a
 * row does not sum to one (or is NaN): the messages over- or underflowed.
 */
export function scaledMarginals(ctx: InferenceContext, n: number, L: number): boolean {
  const { alpha, beta, scale, marginals: marg } = ctx;
  for (let i = 0; i < n; i++) {
    const row = i * L;
    const inv = 1 / scale[i]!;
    let rowSum = 0;
    for (let t = 0; t < L; t++) {
      const p = alpha[row + t]! * beta[row + t]! * inv;
      marg[row + t] = p;
      rowSum += p;
    }
    if (!(Math.abs(rowSum - 1) < 1e-6)) return false;
  }
  return true;
}

/** Log Z = −∞: every marginal 0 (the chain has no feasible labelling). */
export function infeasible(
  ctx: InferenceContext,
  n: number,
  L: number,
  pairwise: boolean,
  pairwiseOut: Float64Array | null,
): number {
  ctx.marginals.fill(0, 0, n * L);
  if (pairwise) ctx.pairwise.fill(0, 0, L * L);
  if (pairwiseOut !== null) pairwiseOut.fill(0, 0, Math.max(0, n - 1) * L * L);
  return NEG;
}

function logSumExp(xs: Float64Array, base: number, len: number): number {
  let m = NEG;
  for (let k = 0; k < len; k++) if (xs[base + k]! > m) m = xs[base + k]!;
  if (m === NEG) return NEG;
  let s = 0;
  for (let k = 0; k < len; k++) s += Math.exp(xs[base + k]! - m);
  return m + Math.log(s);
}

/**
 * The same quantities as {@link forwardBackwardKernel} by the textbook log-space recursion with
 * log-sum-exp: slower, immune to underflow. Used as the fallback and as an independent check.
 */
export function forwardBackwardLogKernel(
  ctx: InferenceContext,
  v: ChainView,
  pairwise: boolean,
  pairwiseOut: Float64Array | null = null,
): number {
  const n = v.n;
  const L = v.L;
  const LL = L * L;
  ctx.ensure(n, L);
  const local = ctx.expUnary; // log-space local scores in this kernel
  const alpha = ctx.alpha;
  const beta = ctx.beta;
  const trans = v.transition;
  const allowed = v.allowed;
  const work = ctx.work;
  for (let i = 0; i < n; i++) localScores(v, i, local, i * L);
  for (let t = 0; t < L; t++) alpha[t] = local[t]!;
  for (let i = 1; i < n; i++) {
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    for (let b = 0; b < L; b++) {
      for (let a = 0; a < L; a++) {
        work[a] =
          allowed !== null && allowed[a * L + b] === 0
            ? NEG
            : alpha[(i - 1) * L + a]! + trans[tb + a * L + b]!;
      }
      alpha[i * L + b] = logSumExp(work, 0, L) + local[i * L + b]!;
    }
  }
  const logZ = logSumExp(alpha, (n - 1) * L, L);
  if (logZ === NEG) return infeasible(ctx, n, L, pairwise, pairwiseOut);
  for (let t = 0; t < L; t++) beta[(n - 1) * L + t] = 0;
  for (let i = n - 2; i >= 0; i--) {
    const tb = v.transitionBase + i * v.transitionStride;
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        work[b] =
          allowed !== null && allowed[a * L + b] === 0
            ? NEG
            : trans[tb + a * L + b]! + local[(i + 1) * L + b]! + beta[(i + 1) * L + b]!;
      }
      beta[i * L + a] = logSumExp(work, 0, L);
    }
  }
  const marg = ctx.marginals;
  for (let k = 0; k < n * L; k++) marg[k] = Math.exp(alpha[k]! + beta[k]! - logZ);
  if (pairwise || pairwiseOut !== null) {
    const pw = ctx.pairwise;
    if (pairwise) pw.fill(0, 0, LL);
    for (let i = 1; i < n; i++) {
      const tb = v.transitionBase + (i - 1) * v.transitionStride;
      for (let a = 0; a < L; a++) {
        for (let b = 0; b < L; b++) {
          const p =
            allowed !== null && allowed[a * L + b] === 0
              ? 0
              : Math.exp(
                  alpha[(i - 1) * L + a]! +
                    trans[tb + a * L + b]! +
                    local[i * L + b]! +
                    beta[i * L + b]! -
                    logZ,
                );
          if (pairwise) pw[a * L + b]! += p;
          if (pairwiseOut !== null) pairwiseOut[(i - 1) * LL + a * L + b] = p;
        }
      }
    }
  }
  return logZ;
}
