/**
 * What training reads off a Bcrf inference: the regularised value B_Y(w) = ⟨q, w⟩ + τ·H(q) at the
 * iterate q, and its gradient ∂B/∂w = q pulled back to the model's local and transition scores
 * (corro §3.1: the Fenchel–Young gradient is the IBP output minus the gold statistics).
 */

import { type BcrfWorkspace, materializeBlock } from "./bcrf-workspace.js";
import type { ChainGradient, ChainInput } from "./chain-input.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * ⟨q, w⟩ + τ·H(q) with H(q) = −Σ q log q over the n−1 blocks (the tag marginals for n = 1). Zero
 * entries contribute nothing, whatever their score (0·(−∞) is taken as 0). With `gradient`, also
 * adds coef × its gradient (what {@link addBcrfStatistics} adds) in the same pass over the blocks.
 */
export function bcrfValue(
  input: ChainInput,
  ws: BcrfWorkspace,
  gradient: ChainGradient | null = null,
  coef = 1,
): number {
  const { n, L, local, localBase, transition, transitionBase, transitionStride } = input;
  const tau = ws.temperature;
  if (gradient !== null && (n === 1 || !ws.factored)) addBcrfStatistics(input, ws, coef, gradient);
  if (n === 1) {
    let value = 0;
    for (let t = 0; t < L; t++) {
      const p = ws.marginals[t]!;
      if (p > 0) value += p * local[localBase + t]! - tau * p * Math.log(p);
    }
    return value;
  }
  if (!ws.factored) return denseValue(input, ws);
  // q_j[a, b] = x_a·K[a, b]·y_b, so Σ q log q = Σ_a r_a log x_a + Σ_b c_b log y_b + Σ q·log K with
  // r, c the block's row and column sums: 2L logs per block instead of 2L².
  const LL = L * L;
  const { rowScale: x, colScale: y, kernel: K, logKernel: logK } = ws;
  const colSum = ws.right;
  const pairwise = gradient === null ? null : gradient.pairwise;
  const perPosition = gradient === null ? null : gradient.perPosition;
  if (gradient !== null) {
    const { rows } = gradient;
    const mu = ws.marginals;
    for (let q = 0; q < n * L; q++) rows[q]! += coef * mu[q]!;
  }
  let value = 0;
  for (let j = 0; j < n - 1; j++) {
    const kb = ws.sharedKernel ? 0 : j * LL;
    const tb = transitionBase + j * transitionStride;
    const lastBlock = j === n - 2;
    colSum.fill(0, 0, L);
    let linear = 0;
    let qLogK = 0;
    let rowPart = 0;
    for (let a = 0; a < L; a++) {
      const xa = x[j * L + a]!;
      if (xa === 0) continue;
      let rowSum = 0;
      for (let b = 0; b < L; b++) {
        const q = xa * K[kb + a * L + b]! * y[j * L + b]!;
        if (q === 0) continue;
        rowSum += q;
        colSum[b]! += q;
        if (pairwise !== null) {
          pairwise[a * L + b]! += coef * q;
          if (perPosition !== null) perPosition[j * LL + a * L + b]! += coef * q;
        }
        linear += q * transition[tb + a * L + b]!;
        qLogK += q * logK[kb + a * L + b]!;
      }
      linear += rowSum * local[localBase + j * L + a]!;
      rowPart += rowSum * Math.log(xa);
    }
    let colPart = 0;
    for (let b = 0; b < L; b++) {
      const cb = colSum[b]!;
      if (cb === 0) continue;
      colPart += cb * Math.log(y[j * L + b]!);
      if (lastBlock) linear += cb * local[localBase + (n - 1) * L + b]!;
    }
    value += linear - tau * (rowPart + colPart + qLogK);
  }
  return value;
}

/** The value on the dense log-iterate the log-domain kernel leaves. */
function denseValue(input: ChainInput, ws: BcrfWorkspace): number {
  const { n, L, local, localBase, transition, transitionBase, transitionStride } = input;
  const tau = ws.temperature;
  const LL = L * L;
  let value = 0;
  for (let j = 0; j < n - 1; j++) {
    const tb = transitionBase + j * transitionStride;
    const lastBlock = j === n - 2;
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const lq = ws.logQ[j * LL + a * L + b]!;
        if (lq === NEG) continue;
        let w = transition[tb + a * L + b]! + local[localBase + j * L + a]!;
        if (lastBlock) w += local[localBase + (n - 1) * L + b]!;
        value += Math.exp(lq) * (w - tau * lq);
      }
    }
  }
  return value;
}

/**
 * Adds coef × ∂B/∂(local, transitions) to `gradient`: the tag marginals to the rows, Σ_j q_j to
 * the pairwise sums and each q_j to its position's block when `gradient.perPosition` is given.
 */
export function addBcrfStatistics(
  input: ChainInput,
  ws: BcrfWorkspace,
  coef: number,
  gradient: ChainGradient,
): void {
  const { n, L } = input;
  const { rows, pairwise, perPosition } = gradient;
  const mu = ws.marginals;
  for (let q = 0; q < n * L; q++) rows[q]! += coef * mu[q]!;
  if (n === 1) return;
  const LL = L * L;
  if (ws.work.length < LL) ws.work = new Float64Array(LL);
  const block = ws.work;
  for (let j = 0; j < n - 1; j++) {
    materializeBlock(ws, j, block, 0);
    for (let ab = 0; ab < LL; ab++) pairwise[ab]! += coef * block[ab]!;
    if (perPosition !== null) {
      const base = j * LL;
      for (let ab = 0; ab < LL; ab++) perPosition[base + ab]! += coef * block[ab]!;
    }
  }
}
