import { ProblemValidationError } from "./errors.js";

/**
 * Scores of a linear-chain problem on flat row-major arrays. No features: a model turns an input
 * into these, and every chain algorithm (Viterbi, forward-backward, semiring DP, a slave) reads
 * only these.
 *
 * Score of a labelling y:
 *   start[y0] + Σ_i unary[i*L + y_i] + Σ_{i≥1} trans(i, y_{i-1}, y_i) + end[y_{n-1}]
 * where trans(i, a, b) is `transition[a*L + b]` (shared) or
 * `transition[(i-1)*L*L + a*L + b]` (position-specific, length (n-1)*L*L).
 * A transition with `allowed[a*L + b] === 0` is forbidden (score −∞), as is a start/end score of
 * −∞; a labelling that uses one is infeasible.
 */
export interface ChainScores {
  readonly n: number;
  readonly L: number;
  readonly unary: Float64Array;
  readonly transition: Float64Array;
  readonly start?: Float64Array;
  readonly end?: Float64Array;
  readonly allowed?: Uint8Array;
}

/**
 * The first-order structure a labelling must respect, 1 = allowed, 0 = forbidden:
 * `allowed[a·L + b]` for label b right after label a, `allowedStart[y]` / `allowedEnd[y]` for a
 * sequence beginning / ending with y. An absent mask forbids nothing. The one name of the mask:
 * a label scheme's (datasets' `decodingMask`), a CRF's decoding and training constraints.
 */
export interface TransitionMask {
  readonly allowed?: Uint8Array;
  readonly allowedStart?: Uint8Array;
  readonly allowedEnd?: Uint8Array;
}

/**
 * The largest weight magnitude a model file may hold (CRFsuite imports included), and the largest
 * attribute value or instance weight a data file may give. Training never comes near it: a CRF's
 * weights are a few units, an averaged perceptron's at most its update count. Below it a
 * sentence's score, a sum of fewer than 10⁹ weights, stays below 10¹⁸: nowhere near float64's
 * 1.8e308 (no score overflows to ±Infinity, whatever the input) and below the 10²⁰ that HiGHS
 * reads as infinite (the ILP decoders stay exact). A weight beyond it, or NaN, or ±Infinity, is a
 * crafted or corrupted file, refused when read rather than tagged with.
 */
export const MAX_WEIGHT_MAGNITUDE = 1e9;

export function isPositionSpecific(scores: ChainScores): boolean {
  // With n = 2 both layouts have length L·L and mean the same thing.
  return scores.transition.length !== scores.L * scores.L;
}

/** Offset of the L×L transition block used between positions i-1 and i (i ≥ 1). */
export function transitionOffset(scores: ChainScores, i: number): number {
  const LL = scores.L * scores.L;
  return scores.transition.length === LL ? 0 : (i - 1) * LL;
}

/**
 * Throws a ProblemValidationError naming the field when the arrays do not fit n and L or hold NaN
 * or +∞. `scanTransition: false` skips the value scan of a transition block the caller has already
 * checked (a decoder that sees a model's one shared block sentence after sentence).
 */
export function validateChainScores(
  scores: ChainScores,
  path = "chain",
  scanTransition = true,
): void {
  const { n, L } = scores;
  if (!Number.isInteger(n) || n < 1) {
    throw new ProblemValidationError(
      `${path}.n`,
      `expected an integer ≥ 1 (an empty sequence has nothing to label), got ${n}`,
    );
  }
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError(`${path}.L`, `expected an integer ≥ 1, got ${L}`);
  }
  if (scores.unary.length !== n * L) {
    throw new ProblemValidationError(
      `${path}.unary`,
      `expected length n·L = ${n * L}, got ${scores.unary.length}`,
    );
  }
  const LL = L * L;
  const t = scores.transition.length;
  if (t !== LL && t !== Math.max(0, n - 1) * LL) {
    throw new ProblemValidationError(
      `${path}.transition`,
      `expected length L·L = ${LL} or (n−1)·L·L = ${Math.max(0, n - 1) * LL}, got ${t}`,
    );
  }
  for (const key of ["start", "end"] as const) {
    const v = scores[key];
    if (v !== undefined && v.length !== L) {
      throw new ProblemValidationError(
        `${path}.${key}`,
        `expected length L = ${L}, got ${v.length}`,
      );
    }
  }
  if (scores.allowed !== undefined && scores.allowed.length !== LL) {
    throw new ProblemValidationError(
      `${path}.allowed`,
      `expected length L·L = ${LL}, got ${scores.allowed.length}`,
    );
  }
  for (const key of ["unary", "transition", "start", "end"] as const) {
    const v = scores[key];
    if (v === undefined || (key === "transition" && !scanTransition)) continue;
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) {
        throw new ProblemValidationError(
          `${path}.${key}[${i}]`,
          `expected a finite score or −∞, got ${x}`,
        );
      }
    }
  }
}

/** The score of a full labelling; −∞ when it uses a forbidden transition, start or end. */
export function scoreLabelling(scores: ChainScores, labels: ArrayLike<number>): number {
  const { n, L, unary, transition, start, end, allowed } = scores;
  if (labels.length !== n) {
    throw new ProblemValidationError("labels", `expected ${n} labels, got ${labels.length}`);
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const y = labels[i]!;
    if (!Number.isInteger(y) || y < 0 || y >= L) {
      throw new ProblemValidationError(
        `labels[${i}]`,
        `expected a label id in 0..${L - 1}, got ${y}`,
      );
    }
    total += unary[i * L + y]!;
    if (i > 0) {
      const prev = labels[i - 1]!;
      if (allowed !== undefined && allowed[prev * L + y] === 0) return Number.NEGATIVE_INFINITY;
      total += transition[transitionOffset(scores, i) + prev * L + y]!;
    }
  }
  if (start !== undefined) total += start[labels[0]!]!;
  if (end !== undefined) total += end[labels[n - 1]!]!;
  return total;
}
