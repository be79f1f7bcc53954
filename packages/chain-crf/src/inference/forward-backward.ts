import type { InferenceContext } from "./context.js";
import {
  exponentiateUnaries,
  forwardBackwardLogKernel,
  infeasible,
  scaledMarginals,
  scaleForwardRow,
} from "./forward-backward-shared.js";
import { matVec, outerProductSum } from "./linalg.js";
import { localScores } from "./local.js";
import { sparseForwardBackwardIfFaster } from "./sparse-forward-backward.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * The phases of one objective-and-gradient pass, as indices into the `phaseSeconds` arrays the
 * kernels add their time to when profiling (the crf-profile bench); a null array costs nothing.
 */
export const PASS_PHASE = {
  stateScores: 0,
  exponentials: 1,
  forward: 2,
  backward: 3,
  pairwise: 4,
  marginals: 5,
  expectations: 6,
} as const;
export const PASS_PHASE_COUNT = 7;

/**
 * Forward-backward in exp space with per-position scaling (CRFsuite's scheme, far faster than
 * log-sum-exp): unary scores are shifted by their per-position maximum and transitions by their
 * maximum before `exp`, and the forward messages are renormalised at every position; the shifts
 * and scales are added back into log Z. Where a forward message underflows to zero the kernel
 * falls back to the exact log-space recursion, which also tells a truly infeasible chain
 * (log Z = −∞, all marginals 0) from an underflow.
 *
 * After the call `ctx.marginals[i*L+t]` = p(y_i = t) and, when `pairwise` is true,
 * `ctx.pairwise[a*L+b]` = Σ_i p(y_{i-1} = a, y_i = b). When `pairwiseOut` is given it receives the
 * per-position pairwise marginals, (n−1)·L·L, block i−1 for the pair (i−1, i).
 * Returns log Z.
 */
export function forwardBackwardKernel(
  ctx: InferenceContext,
  v: ChainView,
  pairwise: boolean,
  pairwiseOut: Float64Array | null = null,
  phaseSeconds: Float64Array | null = null,
): number {
  // A mask sparse enough to pay: only the allowed transitions (sparse-forward-backward.ts).
  if (v.allowed !== null) {
    const sparse = sparseForwardBackwardIfFaster(ctx, v, pairwise, pairwiseOut);
    if (sparse !== undefined) return sparse;
  }
  const { n, L, transitionStride: stride } = v;
  const LL = L * L;
  ctx.ensure(n, L);
  if (stride !== 0) ctx.ensureTransitions(n, L);
  if (ctx.simd !== null && pairwiseOut === null)
    return forwardBackwardSimd(ctx, v, pairwise, phaseSeconds);
  const { expUnary: expU, alpha, beta, scale, pairwise: pw } = ctx;
  let shift = exponentiateUnaries(ctx, v);
  if (shift === NEG) return infeasible(ctx, n, L, pairwise, pairwiseOut);
  const simd = ctx.simd;
  if (n > 1) {
    const m = stride === 0 ? sharedTransitions(ctx, v) : positionTransitions(ctx, v);
    if (m === NEG) return infeasible(ctx, n, L, pairwise, pairwiseOut);
    shift += stride === 0 ? (n - 1) * m : m;
  }

  // Forward.
  alpha.fill(1, 0, L);
  let logScaleSum = scaleForwardRow(ctx, 0, L);
  const expT = ctx.expTransition;
  const expTT = ctx.transposed;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    const eb = stride === 0 ? 0 : (i - 1) * LL;
    if (simd !== null)
      simd.axpyRows(
        ctx.expTransitionPtr + 8 * eb,
        ctx.alphaPtr + 8 * prev,
        ctx.alphaPtr + 8 * cur,
        L,
      );
    else matVec(expTT, eb, alpha, prev, alpha, cur, L);
    const logSum = scaleForwardRow(ctx, i, L);
    if (Number.isNaN(logSum)) return forwardBackwardLogKernel(ctx, v, pairwise, pairwiseOut);
    logScaleSum += logSum;
  }
  const logZ = logScaleSum + shift;

  // Backward, fused with the pairwise marginals: p(a, b) = alpha[i][a]·T[a][b]·U[i+1][b]·beta[i+1][b].
  beta.fill(scale[n - 1]!, (n - 1) * L, n * L);
  if (pairwise) pw.fill(0, 0, LL);
  const next = ctx.next;
  for (let i = n - 2; i >= 0; i--) {
    const cur = i * L;
    const nx = (i + 1) * L;
    const eb = stride === 0 ? 0 : i * LL;
    for (let b = 0; b < L; b++) next[nx + b] = expU[nx + b]! * beta[nx + b]!;
    const si = scale[i]!;
    if (pairwiseOut === null) {
      // next rows are kept for the pairwise sums: Σ_i alpha[i][a]·next[i+1][b], weighted by
      // T[a][b] once at the end. (With SIMD this case runs in forwardBackwardSimd.)
      matVec(expT, eb, next, nx, beta, cur, L);
      for (let a = 0; a < L; a++) beta[cur + a]! *= si;
    } else {
      const ob = i * LL;
      for (let a = 0; a < L; a++) {
        const pa = alpha[cur + a]!;
        const rb = eb + a * L;
        const pr = a * L;
        let acc = 0;
        for (let b = 0; b < L; b++) {
          const x = expT[rb + b]! * next[nx + b]!;
          acc += x;
          if (pairwise) pw[pr + b]! += pa * x;
          pairwiseOut[ob + pr + b] = pa * x;
        }
        beta[cur + a] = acc * si;
      }
    }
  }
  if (pairwise && pairwiseOut === null && n > 1) {
    if (stride === 0) {
      outerProductSum(alpha, ctx.next, 1, n - 1, L, expT, pw);
    } else positionPairwiseSums(ctx, n, L);
  }
  // Backward messages can overflow or underflow where the forward ones did not (extreme scores):
  // a row of marginals that does not sum to one sends the chain to the exact kernel.
  if (!scaledMarginals(ctx, n, L)) return forwardBackwardLogKernel(ctx, v, pairwise, pairwiseOut);
  return logZ;
}

/** ctx.pairwise += Σ_i alpha_i[a] · expT_i[a][b] · next_{i+1}[b] for position-specific blocks. */
function positionPairwiseSums(ctx: InferenceContext, n: number, L: number): void {
  const { alpha, next: nx, expTransition: expT, pairwise: pw } = ctx;
  const LL = L * L;
  for (let i = 0; i < n - 1; i++) {
    const eb = i * LL;
    for (let a = 0; a < L; a++) {
      const pa = alpha[i * L + a]!;
      for (let b = 0; b < L; b++)
        pw[a * L + b]! += pa * expT[eb + a * L + b]! * nx[(i + 1) * L + b]!;
    }
  }
}

/** Adds the seconds since `since` to `phase`; returns now (a module function: no closure per call). */
export function lap(phaseSeconds: Float64Array, phase: number, since: number): number {
  const now = performance.now();
  phaseSeconds[phase]! += (now - since) / 1000;
  return now;
}

/**
 * The same computation with both recursions and the marginals in WebAssembly, one call per chain
 * and direction: the per-position row work (products with the unary factors, sums, rescaling)
 * runs there two lanes at a time instead of in JavaScript loops between per-position calls.
 */
function forwardBackwardSimd(
  ctx: InferenceContext,
  v: ChainView,
  pairwise: boolean,
  phaseSeconds: Float64Array | null,
): number {
  const { n, L, transitionStride: stride } = v;
  const simd = ctx.simd!;
  const expU = ctx.expUnary;
  const status = ctx.status;
  let clock = phaseSeconds === null ? 0 : performance.now();
  for (let i = 0; i < n; i++) localScores(v, i, expU, i * L);
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.stateScores, clock);
  simd.shiftRows(ctx.expUnaryPtr, n, L, ctx.statusPtr);
  let shift = status[0]!;
  if (shift === NEG) return infeasible(ctx, n, L, pairwise, null);
  const count = n * L;
  simd.expPairs(ctx.expUnaryPtr, count >> 1);
  if ((count & 1) === 1) expU[count - 1] = Math.exp(expU[count - 1]!);
  if (n > 1) {
    const m = stride === 0 ? sharedTransitions(ctx, v) : positionTransitions(ctx, v);
    if (m === NEG) return infeasible(ctx, n, L, pairwise, null);
    shift += stride === 0 ? (n - 1) * m : m;
  }
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.exponentials, clock);
  const blockBytes = stride === 0 ? 0 : 8 * L * L;
  simd.forwardScaled(
    ctx.expTransitionPtr,
    ctx.expUnaryPtr,
    ctx.alphaPtr,
    ctx.scalePtr,
    n,
    L,
    blockBytes,
    ctx.statusPtr,
  );
  // A forward message that underflowed (or overflowed): the exact log-space recursion.
  if (status[0] !== 1) return forwardBackwardLogKernel(ctx, v, pairwise, null);
  const scale = ctx.scale;
  let logScaleSum = 0;
  for (let i = 0; i < n; i++) logScaleSum -= Math.log(scale[i]!);
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.forward, clock);
  simd.backwardScaled(
    ctx.transposedPtr,
    ctx.expUnaryPtr,
    ctx.betaPtr,
    ctx.nextPtr,
    ctx.scalePtr,
    n,
    L,
    blockBytes,
  );
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.backward, clock);
  if (pairwise) {
    const pw = ctx.pairwise;
    if (n === 1) pw.fill(0, 0, L * L);
    else if (stride === 0) {
      simd.outerSum(
        ctx.alphaPtr,
        ctx.nextPtr + 8 * L,
        n - 1,
        L,
        ctx.expTransitionPtr,
        ctx.pairwisePtr,
      );
    } else {
      pw.fill(0, 0, L * L);
      positionPairwiseSums(ctx, n, L);
    }
  }
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.pairwise, clock);
  simd.marginalsScaled(
    ctx.alphaPtr,
    ctx.betaPtr,
    ctx.scalePtr,
    ctx.marginalsPtr,
    n,
    L,
    ctx.statusPtr,
  );
  // Backward messages can overflow or underflow where the forward ones did not (extreme
  // scores); a row that no longer sums to one (or is NaN) sends the chain to the exact kernel.
  if (phaseSeconds !== null) clock = lap(phaseSeconds, PASS_PHASE.marginals, clock);
  if (!(status[0]! < 1e-6)) return forwardBackwardLogKernel(ctx, v, pairwise, null);
  return logScaleSum + shift;
}

/**
 * exp(T − max T) and its transpose (the forward pass reads columns) for a shared transition
 * block; returns max T, or −∞ when every transition is forbidden. The block is cached: training
 * scores every instance under the same weights, so the L² exps are paid once per weight vector.
 */
function sharedTransitions(ctx: InferenceContext, v: ChainView): number {
  const L = v.L;
  const LL = L * L;
  const trans = v.transition;
  const tb = v.transitionBase;
  const allowed = v.allowed;
  const cache = ctx.transitionCache;
  const allowedCache = ctx.transitionCacheMask;
  if (ctx.transitionCacheValid && (allowed !== null) === ctx.transitionCacheMasked) {
    if (ctx.transitionsFixed) return ctx.transitionCacheMax;
    let same = true;
    for (let ab = 0; ab < LL; ab++) {
      if (cache[ab] !== trans[tb + ab] || (allowed !== null && allowedCache[ab] !== allowed[ab])) {
        same = false;
        break;
      }
    }
    if (same) return ctx.transitionCacheMax;
  }
  const expT = ctx.expTransition;
  const expTT = ctx.transposed;
  let m = NEG;
  for (let ab = 0; ab < LL; ab++) {
    if (allowed !== null && allowed[ab] === 0) continue;
    if (trans[tb + ab]! > m) m = trans[tb + ab]!;
  }
  for (let a = 0; a < L; a++) {
    for (let b = 0; b < L; b++) {
      const ab = a * L + b;
      const e = allowed !== null && allowed[ab] === 0 ? 0 : Math.exp(trans[tb + ab]! - m);
      expT[ab] = e;
      expTT[b * L + a] = e;
      cache[ab] = trans[tb + ab]!;
      allowedCache[ab] = allowed === null ? 1 : allowed[ab]!;
    }
  }
  ctx.transitionCacheValid = m !== NEG;
  ctx.transitionCacheMasked = allowed !== null;
  ctx.transitionCacheMax = m;
  return m;
}

/** The same for position-specific blocks; returns Σ of the block maxima, or −∞. */
function positionTransitions(ctx: InferenceContext, v: ChainView): number {
  const n = v.n;
  const L = v.L;
  const LL = L * L;
  ctx.ensureTransitions(n, L);
  ctx.transitionCacheValid = false;
  const expT = ctx.expTransition;
  const expTT = ctx.transposed;
  const trans = v.transition;
  const allowed = v.allowed;
  let total = 0;
  for (let k = 0; k < n - 1; k++) {
    const tb = v.transitionBase + k * v.transitionStride;
    const eb = k * LL;
    let m = NEG;
    for (let ab = 0; ab < LL; ab++) {
      if (allowed !== null && allowed[ab] === 0) continue;
      if (trans[tb + ab]! > m) m = trans[tb + ab]!;
    }
    if (m === NEG) return NEG;
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const ab = a * L + b;
        const e = allowed !== null && allowed[ab] === 0 ? 0 : Math.exp(trans[tb + ab]! - m);
        expT[eb + ab] = e;
        expTT[eb + b * L + a] = e;
      }
    }
    total += m;
  }
  return total;
}
