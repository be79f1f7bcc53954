import { localScores } from "./local.js";
import {
  NEG,
  type SecondOrderContext,
  scalePattern,
  type TrigramPattern,
  transitionAt,
} from "./second-order-context.js";
import type { ChainView } from "./view.js";

/**
 * The largest trigram weight the sparse path takes: it writes e^w unscaled (θ − 1 must stay
 * exact for the weights outside the pattern, which are 0), so a larger one takes the dense path.
 */
const SPARSE_MAX_WEIGHT = 300;

/**
 * exp of the trigram block, unless unchanged: dense, minus its maximum, natural and transposed;
 * with a pattern, unscaled, and e^w − 1 of the pattern's trigrams in its two orders.
 */
function prepareTheta(
  ctx: SecondOrderContext,
  L: number,
  tri: Float64Array,
  triBase: number,
  pattern: TrigramPattern | null,
): void {
  const LLL = L * L * L;
  const source = ctx.thetaSource;
  if (ctx.thetaValid && ctx.pattern === pattern) {
    let same = true;
    for (let k = 0; k < LLL; k++) {
      if (source[k] !== tri[triBase + k]) {
        same = false;
        break;
      }
    }
    if (same) return;
  }
  let max = NEG;
  for (let k = 0; k < LLL; k++) {
    const w = tri[triBase + k]!;
    source[k] = w;
    if (w > max) max = w;
  }
  ctx.thetaValid = true;
  ctx.pattern = pattern;
  const theta = ctx.theta;
  if (pattern !== null) {
    ctx.thetaMax = 0;
    for (let k = 0; k < LLL; k++) theta[k] = Math.exp(source[k]!);
    const LL = L * L;
    const n = pattern.byLast.length;
    if (ctx.lastValues.length < n) {
      ctx.lastValues = new Float64Array(n);
      ctx.firstValues = new Float64Array(n);
    }
    for (let bc = 0; bc < LL; bc++) {
      for (let q = pattern.lastOffsets[bc]!; q < pattern.lastOffsets[bc + 1]!; q++) {
        ctx.lastValues[q] = Math.expm1(source[pattern.byLast[q]! * LL + bc]!);
      }
    }
    for (let ab = 0; ab < LL; ab++) {
      for (let q = pattern.firstOffsets[ab]!; q < pattern.firstOffsets[ab + 1]!; q++) {
        ctx.firstValues[q] = Math.expm1(source[ab * L + pattern.byFirst[q]!]!);
      }
    }
    return;
  }
  // Trigram weights are finite (model files and trainers guarantee it).
  ctx.thetaMax = max;
  const thetaT = ctx.thetaT;
  for (let k = 0; k < LLL; k++) {
    const e = Math.exp(source[k]! - max);
    theta[k] = e;
    const a = Math.floor(k / (L * L));
    thetaT[(k - a * L * L) * L + a] = e;
  }
}

/** exp(block − max) of the transitions into ctx.psi; returns the Σ of the maxima taken out. */
function preparePsi(ctx: SecondOrderContext, v: ChainView): number {
  const { n, L } = v;
  const LL = L * L;
  const blocks = v.transitionStride === 0 ? 1 : n - 1;
  const psi = ctx.psi;
  let offset = 0;
  for (let k = 0; k < blocks; k++) {
    let max = NEG;
    for (let ab = 0; ab < LL; ab++) {
      const t = transitionAt(v, k + 1, ab);
      psi[k * LL + ab] = t;
      if (t > max) max = t;
    }
    if (max === NEG) {
      psi.fill(0, k * LL, (k + 1) * LL);
      return NEG;
    }
    for (let ab = 0; ab < LL; ab++) psi[k * LL + ab] = Math.exp(psi[k * LL + ab]! - max);
    offset += v.transitionStride === 0 ? (n - 1) * max : max;
  }
  return offset;
}

/**
 * log Z of the second-order chain, with token marginals and per-position pair marginals in
 * `ctx` and, when `trigrams`, Σ_i of the trigram marginals. −∞ when no labelling is feasible
 * (the marginals are then not set). Scaled messages in probability space: the exponentials are
 * taken once per chain (L² + n·L) and once per trigram block, and the L³ inner loops only
 * multiply and add. With a `pattern`, when every trigram outside it weighs 0, a position costs L²
 * plus the pattern's size, and only the pattern's trigram marginals are computed (0 elsewhere);
 * otherwise the dense path runs.
 */
export function secondOrderForwardBackwardKernel(
  ctx: SecondOrderContext,
  v: ChainView,
  tri: Float64Array,
  triBase: number,
  trigrams: boolean,
  pattern: TrigramPattern | null = null,
): number {
  const { n, L } = v;
  const LL = L * L;
  ctx.ensure(n, L);
  const { local, phi, rowMax } = ctx;
  let logZ = 0;
  for (let i = 0; i < n; i++) {
    const row = i * L;
    localScores(v, i, local, row);
    let max = NEG;
    for (let t = 0; t < L; t++) if (local[row + t]! > max) max = local[row + t]!;
    if (max === NEG) return NEG;
    rowMax[i] = max;
    logZ += max;
    for (let t = 0; t < L; t++) phi[row + t] = Math.exp(local[row + t]! - max);
  }
  const marginals = ctx.marginals;
  if (n === 1) {
    let sum = 0;
    for (let t = 0; t < L; t++) sum += phi[t]!;
    for (let t = 0; t < L; t++) marginals[t] = phi[t]! / sum;
    if (trigrams) ctx.trigramMarginals.fill(0);
    return logZ + Math.log(sum);
  }
  const psiOffset = preparePsi(ctx, v);
  if (psiOffset === NEG) return NEG;
  logZ += psiOffset;
  let sparse = false;
  if (n > 2) {
    // One pass over the weights (a training pass calls this once per sentence with the same
    // ones): the sparse path is exact only when every trigram outside the pattern weighs 0.
    let changed = true;
    if (pattern !== null) {
      let max = NEG;
      let outside = false;
      const active = pattern.active;
      const source = ctx.thetaSource;
      changed = !(ctx.thetaValid && ctx.pattern === pattern);
      for (let k = 0; k < L * LL; k++) {
        const w = tri[triBase + k]!;
        if (w > max) max = w;
        if (w !== 0 && active[k] === 0) outside = true;
        if (source[k] !== w) changed = true;
      }
      sparse = max <= SPARSE_MAX_WEIGHT && !outside;
    }
    if (changed || !sparse) prepareTheta(ctx, L, tri, triBase, sparse ? pattern : null);
    logZ += (n - 2) * ctx.thetaMax;
  }
  const { psi, theta, thetaT, alphaT, beta, scale } = ctx;
  const sums = ctx.columnSums;
  const { lastValues, firstValues } = ctx;
  const psiStride = v.transitionStride === 0 ? 0 : LL;
  // Forward: alpha_1(a, b) = φ_0(a) ψ_1(a, b) φ_1(b); alpha_i(b, c) = Σ_a alpha_{i−1}(a, b) θ(a, b, c) · ψ_i(b, c) φ_i(c).
  let sum = 0;
  for (let a = 0; a < L; a++) {
    for (let b = 0; b < L; b++) {
      const x = phi[a]! * psi[a * L + b]! * phi[L + b]!;
      alphaT[LL + b * L + a] = x;
      sum += x;
    }
  }
  if (!(sum > 0)) return NEG;
  for (let k = LL; k < 2 * LL; k++) alphaT[k]! /= sum;
  scale[1] = sum;
  logZ += Math.log(sum);
  for (let i = 2; i < n; i++) {
    const prev = (i - 1) * LL;
    const cur = i * LL;
    const pb = (i - 1) * psiStride;
    const row = i * L;
    sum = 0;
    if (sparse) {
      forwardSparse(ctx.pattern!, L, alphaT, prev, cur, psi, pb, phi, row, sums, lastValues);
      for (let k = cur; k < cur + LL; k++) sum += alphaT[k]!;
    }
    for (let b = 0; b < L && !sparse; b++) {
      for (let c = 0; c < L; c++) {
        const bc = b * L + c;
        const w = psi[pb + bc]! * phi[row + c]!;
        let dot = 0;
        if (w !== 0) {
          const tb = bc * L;
          const ab = prev + b * L;
          for (let a = 0; a < L; a++) dot += alphaT[ab + a]! * thetaT[tb + a]!;
          dot *= w;
        }
        alphaT[cur + c * L + b] = dot;
        sum += dot;
      }
    }
    if (!(sum > 0)) return NEG;
    const inv = 1 / sum;
    for (let k = cur; k < cur + LL; k++) alphaT[k]! *= inv;
    scale[i] = sum;
    logZ += Math.log(sum);
  }
  // Backward: beta_{n−1} = 1; beta_{i−1}(a, b) = Σ_c θ(a, b, c) ψ_i(b, c) φ_i(c) beta_i(b, c) / s_i.
  // The trigram marginals at i are alpha_{i−1}(a, b) θ(a, b, c) w_i(b, c) with the same w: θ is
  // shared by every position, so Σ_i alpha_{i−1}(a, b) w_i(b, c) is summed and θ applied once.
  const acc = ctx.trigramMarginals;
  if (trigrams && sparse && ctx.zeroOutside === pattern) {
    scalePattern(pattern!, L, acc, null);
  } else if (trigrams) {
    acc.fill(0);
    ctx.zeroOutside = sparse ? pattern : null;
  }
  beta.fill(1, (n - 1) * LL, n * LL);
  const w = ctx.work;
  for (let i = n - 1; i >= 2; i--) {
    const cur = i * LL;
    const prev = (i - 1) * LL;
    const pb = (i - 1) * psiStride;
    const row = i * L;
    const inv = 1 / scale[i]!;
    for (let b = 0; b < L; b++) {
      for (let c = 0; c < L; c++) {
        const bc = b * L + c;
        w[bc] = psi[pb + bc]! * phi[row + c]! * beta[cur + bc]! * inv;
      }
    }
    if (sparse) {
      const pat = ctx.pattern!;
      backwardSparse(pat, L, w, beta, prev, sums, firstValues, trigrams ? acc : null, alphaT);
      continue;
    }
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const ta = a * LL + b * L;
        const wb = b * L;
        let s = 0;
        for (let c = 0; c < L; c++) s += theta[ta + c]! * w[wb + c]!;
        beta[prev + a * L + b] = s;
        if (!trigrams) continue;
        const coef = alphaT[prev + b * L + a]!;
        if (coef === 0) continue;
        for (let c = 0; c < L; c++) acc[ta + c]! += coef * w[wb + c]!;
      }
    }
  }
  if (trigrams && sparse) {
    scalePattern(pattern!, L, acc, theta);
  } else if (trigrams) {
    for (let k = 0; k < LL * L; k++) acc[k]! *= theta[k]!;
  }
  const pair = ctx.pairMarginals;
  marginals.fill(0, 0, n * L);
  for (let i = 1; i < n; i++) {
    const at = i * LL;
    const pm = (i - 1) * LL;
    const row = i * L;
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const p = alphaT[at + b * L + a]! * beta[at + a * L + b]!;
        pair[pm + a * L + b] = p;
        marginals[row + b]! += p;
        if (i === 1) marginals[a]! += p;
      }
    }
  }
  return logZ;
}

/**
 * alpha_i(b, c) = (Σ_a alpha_{i−1}(a, b) + Σ_{a in the pattern} alpha_{i−1}(a, b)(e^w − 1)) ·
 * ψ_i(b, c) φ_i(c), unnormalised, into alphaT[cur ..].
 */
function forwardSparse(
  pattern: TrigramPattern,
  L: number,
  alphaT: Float64Array,
  prev: number,
  cur: number,
  psi: Float64Array,
  pb: number,
  phi: Float64Array,
  row: number,
  sums: Float64Array,
  values: Float64Array,
): void {
  const { lastOffsets, byLast } = pattern;
  for (let b = 0; b < L; b++) {
    let s = 0;
    const ab = prev + b * L;
    for (let a = 0; a < L; a++) s += alphaT[ab + a]!;
    sums[b] = s;
  }
  for (let b = 0; b < L; b++) {
    const ab = prev + b * L;
    for (let c = 0; c < L; c++) {
      const bc = b * L + c;
      const w = psi[pb + bc]! * phi[row + c]!;
      let dot = 0;
      if (w !== 0) {
        dot = sums[b]!;
        for (let q = lastOffsets[bc]!; q < lastOffsets[bc + 1]!; q++) {
          dot += alphaT[ab + byLast[q]!]! * values[q]!;
        }
        dot *= w;
      }
      alphaT[cur + c * L + b] = dot;
    }
  }
}

/**
 * beta_{i−1}(a, b) = Σ_c w(b, c) + Σ_{c in the pattern} (e^w − 1) w(b, c) into beta[prev ..],
 * and, with `acc`, alpha_{i−1}(a, b) w(b, c) added at the pattern's trigrams.
 */
function backwardSparse(
  pattern: TrigramPattern,
  L: number,
  w: Float64Array,
  beta: Float64Array,
  prev: number,
  sums: Float64Array,
  values: Float64Array,
  acc: Float64Array | null,
  alphaT: Float64Array,
): void {
  const { firstOffsets, byFirst } = pattern;
  for (let b = 0; b < L; b++) {
    let s = 0;
    for (let c = 0; c < L; c++) s += w[b * L + c]!;
    sums[b] = s;
  }
  for (let a = 0; a < L; a++) {
    for (let b = 0; b < L; b++) {
      const ab = a * L + b;
      const wb = b * L;
      const qEnd = firstOffsets[ab + 1]!;
      let s = sums[b]!;
      for (let q = firstOffsets[ab]!; q < qEnd; q++) s += values[q]! * w[wb + byFirst[q]!]!;
      beta[prev + ab] = s;
      if (acc === null) continue;
      const coef = alphaT[prev + b * L + a]!;
      if (coef === 0) continue;
      const k = ab * L;
      for (let q = firstOffsets[ab]!; q < qEnd; q++) {
        const c = byFirst[q]!;
        acc[k + c]! += coef * w[wb + c]!;
      }
    }
  }
}
