import type { ChainView } from "./view.js";

export const NEG = Number.NEGATIVE_INFINITY;

/**
 * The label trigrams that may carry a non-zero weight (those seen in training), twice in CSR
 * form: grouped by the last pair (b, c), listing a, and by the first pair (a, b), listing c. With
 * it, forward-backward writes θ(a, b, c) = 1 + (e^w − 1) and sums the 1s once per pair state, so
 * a position costs L² plus the pattern's size instead of L³ — exactly, as long as every trigram
 * outside the pattern has weight 0.
 */
export interface TrigramPattern {
  readonly L: number;
  /** 1 at the pattern's trigrams a·L² + b·L + c, L³. */
  readonly active: Uint8Array;
  /** By last pair: (a, b, c) for pair bc lists a at byLast[lastOffsets[bc] .. [bc + 1]), ascending. */
  readonly lastOffsets: Int32Array;
  readonly byLast: Int32Array;
  /** By first pair: pair ab lists c at byFirst[firstOffsets[ab] .. [ab + 1]), ascending. */
  readonly firstOffsets: Int32Array;
  readonly byFirst: Int32Array;
}

/** values[k] *= factors[k] (0 when `factors` is null) at the pattern's trigrams k only. */
export function scalePattern(
  pattern: TrigramPattern,
  L: number,
  values: Float64Array,
  factors: Float64Array | null,
): void {
  const { firstOffsets, byFirst } = pattern;
  for (let ab = 0; ab < L * L; ab++) {
    for (let q = firstOffsets[ab]!; q < firstOffsets[ab + 1]!; q++) {
      const k = ab * L + byFirst[q]!;
      values[k] = factors === null ? 0 : values[k]! * factors[k]!;
    }
  }
}

/** The pattern of the trigrams k (a·L² + b·L + c) with active[k] ≠ 0. */
export function trigramPattern(L: number, active: ArrayLike<number>): TrigramPattern {
  const LL = L * L;
  const lastOffsets = new Int32Array(LL + 1);
  const firstOffsets = new Int32Array(LL + 1);
  let total = 0;
  for (let k = 0; k < LL * L; k++) {
    if (active[k] === 0) continue;
    total++;
    lastOffsets[(k % LL) + 1]!++;
    firstOffsets[Math.floor(k / L) + 1]!++;
  }
  for (let q = 0; q < LL; q++) {
    lastOffsets[q + 1]! += lastOffsets[q]!;
    firstOffsets[q + 1]! += firstOffsets[q]!;
  }
  const byLast = new Int32Array(total);
  const byFirst = new Int32Array(total);
  const fillLast = lastOffsets.slice(0, LL);
  const fillFirst = firstOffsets.slice(0, LL);
  // Ascending k lists a ascending within a last pair and c ascending within a first pair.
  for (let k = 0; k < LL * L; k++) {
    if (active[k] === 0) continue;
    byLast[fillLast[k % LL]!++] = Math.floor(k / LL);
    byFirst[fillFirst[Math.floor(k / L)]!++] = k % L;
  }
  const mask = Uint8Array.from({ length: LL * L }, (_, k) => (active[k] === 0 ? 0 : 1));
  return { L, active: mask, lastOffsets, byLast, firstOffsets, byFirst };
}

/**
 * Exact inference for a second-order chain: the first-order scores of a {@link ChainView} plus a
 * label-trigram weight tri[triBase + a·L² + b·L + c] for every three consecutive labels
 * (y_{i−2}, y_{i−1}, y_i) = (a, b, c). The chain runs over pair states (y_{i−1}, y_i): L² states,
 * and only (a, b) → (b, c) moves, so each position costs L³ instead of L².
 *
 * Score of y: firstOrderScore(y) + Σ_{i≥2} tri[y_{i−2}, y_{i−1}, y_i].
 */
export class SecondOrderContext {
  capacity = 0;
  L = 0;
  /** Position-local scores (unary + start/end, −∞ where forbidden), n·L. */
  local: Float64Array = new Float64Array(0);
  /** exp(local − max of the row), n·L, and the row maxima, n. */
  phi: Float64Array = new Float64Array(0);
  rowMax: Float64Array = new Float64Array(0);
  /** exp(transition − block max), L² or (n−1)·L² when position-specific (0 where forbidden). */
  psi: Float64Array = new Float64Array(0);
  /** exp(trigram − max), as a·L² + b·L + c and transposed as (b·L + c)·L + a. */
  theta: Float64Array = new Float64Array(0);
  thetaT: Float64Array = new Float64Array(0);
  /** The trigram weights behind theta (to skip the exponentials when they have not changed). */
  thetaSource: Float64Array = new Float64Array(0);
  thetaValid = false;
  thetaMax = 0;
  /** With a pattern: e^w − 1 of its trigrams, in byLast and in byFirst order. */
  lastValues: Float64Array = new Float64Array(0);
  firstValues: Float64Array = new Float64Array(0);
  pattern: TrigramPattern | null = null;
  /** The pattern outside which trigramMarginals is known to hold zeros (the sparse path's). */
  zeroOutside: TrigramPattern | null = null;
  /** Per-pair sums of the sparse path: Σ_a alpha(a, b) and Σ_c w(b, c), L each. */
  columnSums: Float64Array = new Float64Array(0);
  /** Forward messages, scaled, of pair state (a, b) at position i (labels i−1, i) at i·L² + b·L + a. */
  alphaT: Float64Array = new Float64Array(0);
  /** Backward messages, scaled, at i·L² + a·L + b. */
  beta: Float64Array = new Float64Array(0);
  /** Per-position sums the forward messages were divided by. */
  scale: Float64Array = new Float64Array(0);
  work: Float64Array = new Float64Array(0);
  /** Viterbi rows (pair state (a, b) at b·L + a) and back-pointers (the label two back), n·L². */
  deltaA: Float64Array = new Float64Array(0);
  deltaB: Float64Array = new Float64Array(0);
  back: Int32Array = new Int32Array(0);
  /** p(y_i = t) at i·L + t, valid after forward-backward. */
  marginals: Float64Array = new Float64Array(0);
  /** p(y_{i−1} = a, y_i = b) at (i−1)·L² + a·L + b, valid after forward-backward. */
  pairMarginals: Float64Array = new Float64Array(0);
  /** Σ_i p(y_{i−2} = a, y_{i−1} = b, y_i = c) at a·L² + b·L + c, after forward-backward with it. */
  trigramMarginals: Float64Array = new Float64Array(0);

  /** Grows the buffers for chains of n tokens and L labels (never shrinks them). */
  ensure(n: number, L: number): void {
    const LL = L * L;
    if (L !== this.L) {
      this.L = L;
      this.capacity = 0;
      this.thetaValid = false;
      this.theta = new Float64Array(LL * L);
      this.thetaT = new Float64Array(LL * L);
      this.thetaSource = new Float64Array(LL * L);
      this.trigramMarginals = new Float64Array(LL * L);
      this.work = new Float64Array(LL);
      this.deltaA = new Float64Array(LL);
      this.deltaB = new Float64Array(LL);
      this.columnSums = new Float64Array(L);
    }
    if (n <= this.capacity) return;
    const cap = Math.max(n, 2 * this.capacity, 8);
    this.capacity = cap;
    this.local = new Float64Array(cap * L);
    this.phi = new Float64Array(cap * L);
    this.rowMax = new Float64Array(cap);
    this.psi = new Float64Array(cap * LL);
    this.alphaT = new Float64Array(cap * LL);
    this.beta = new Float64Array(cap * LL);
    this.scale = new Float64Array(cap);
    this.back = new Int32Array(cap * LL);
    this.marginals = new Float64Array(cap * L);
    this.pairMarginals = new Float64Array(cap * LL);
  }
}

/** trans(i, a, b) of the view, −∞ where the mask forbids the pair. */
export function transitionAt(v: ChainView, i: number, ab: number): number {
  if (v.allowed !== null && v.allowed[ab] === 0) return NEG;
  return v.transition[v.transitionBase + (i - 1) * v.transitionStride + ab]!;
}
