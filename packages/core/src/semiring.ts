import { type ChainScores, transitionOffset, validateChainScores } from "./chain.js";

/**
 * A semiring for the chain dynamic program (torch-struct's `Semiring`): swapping it turns one DP
 * into Viterbi (max), the log-partition (log), k-best or a count of feasible labellings.
 *
 * Scores enter through `weight` (log-potentials, −∞ = forbidden). Semirings that track the
 * labelling itself (k-best) record the label in `emit`; the DP multiplies values left to right,
 * so `times` need not commute.
 */
export interface Semiring<T> {
  readonly name: string;
  readonly zero: T;
  readonly one: T;
  plus(a: T, b: T): T;
  times(a: T, b: T): T;
  /** A score as a semiring value. */
  weight(score: number): T;
  /** Emitting `label` at `position` with `score`; defaults to `weight(score)`. */
  emit?(score: number, position: number, label: number): T;
}

const NEG_INF = Number.NEGATIVE_INFINITY;

/** (max, +): the best score. */
export const maxSemiring: Semiring<number> = {
  name: "max",
  zero: NEG_INF,
  one: 0,
  plus: (a, b) => Math.max(a, b),
  times: (a, b) => a + b,
  weight: (s) => s,
};

/** log(e^a + e^b) without overflow; exact for −∞ operands (never NaN). */
export function logAddExp(a: number, b: number): number {
  if (a === NEG_INF) return b;
  if (b === NEG_INF) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** (logsumexp, +): the log-partition function. */
export const logSemiring: Semiring<number> = {
  name: "log",
  zero: NEG_INF,
  one: 0,
  plus: logAddExp,
  times: (a, b) => a + b,
  weight: (s) => s,
};

/** (+, ×) over {0, 1} weights: the number of feasible labellings (exact up to 2^53). */
export const countSemiring: Semiring<number> = {
  name: "count",
  zero: 0,
  one: 1,
  plus: (a, b) => a + b,
  times: (a, b) => a * b,
  weight: (s) => (s === NEG_INF ? 0 : 1),
};

/** One labelling and its score, as the k-best semiring carries it. */
export interface ScoredLabelling {
  readonly score: number;
  readonly labels: readonly number[];
}

/**
 * The k-best semiring over scored labellings: `plus` keeps the k best of two lists, `times`
 * the k best concatenations. Forbidden (−∞) entries are dropped, so infeasible labellings never
 * appear. Ties keep the earlier entry first.
 */
export function kBestSemiring(k: number): Semiring<readonly ScoredLabelling[]> {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be an integer ≥ 1, got ${k}`);
  const top = (entries: ScoredLabelling[]): readonly ScoredLabelling[] => {
    entries.sort((x, y) => y.score - x.score);
    return entries.length > k ? entries.slice(0, k) : entries;
  };
  return {
    name: `${k}-best`,
    zero: [],
    one: [{ score: 0, labels: [] }],
    plus: (a, b) => top([...a, ...b]),
    times: (a, b) => {
      const out: ScoredLabelling[] = [];
      for (const x of a) {
        for (const y of b)
          out.push({ score: x.score + y.score, labels: [...x.labels, ...y.labels] });
      }
      return top(out);
    },
    weight: (s) => (s === NEG_INF ? [] : [{ score: s, labels: [] }]),
    emit: (s, _position, label) => (s === NEG_INF ? [] : [{ score: s, labels: [label] }]),
  };
}

/** Score of the transition a → b into position i (i ≥ 1); −∞ when the mask forbids it. */
export function transitionScore(scores: ChainScores, i: number, a: number, b: number): number {
  const { L, allowed } = scores;
  if (allowed !== undefined && allowed[a * L + b] === 0) return NEG_INF;
  return scores.transition[transitionOffset(scores, i) + a * L + b]!;
}

/** Forward (`alpha`) and backward (`beta`) tables of a chain DP, row-major `i*L + t`. */
export interface ChainTables<T> {
  /** Sum over prefixes ending in label t at i, unary of i included. */
  readonly alpha: T[];
  /** Sum over suffixes after (i, t), unary of i excluded, end score included. */
  readonly beta: T[];
  /** Sum over all labellings. */
  readonly total: T;
}

function emitter<T>(semiring: Semiring<T>): (s: number, i: number, t: number) => T {
  const emit = semiring.emit;
  return emit === undefined ? (s) => semiring.weight(s) : (s, i, t) => emit(s, i, t);
}

/**
 * The semiring-generic forward pass:
 *   alpha[0,t] = start[t] ⊗ unary[0,t]
 *   alpha[i,t] = (⊕_s alpha[i−1,s] ⊗ trans(i,s,t)) ⊗ unary[i,t]
 *   total      = ⊕_t alpha[n−1,t] ⊗ end[t]
 * Clarity over speed: this is the reference the fast kernels are tested against.
 */
export function chainForward<T>(
  scores: ChainScores,
  semiring: Semiring<T>,
): { alpha: T[]; total: T } {
  validateChainScores(scores);
  const { n, L, unary, start, end } = scores;
  const emit = emitter(semiring);
  const alpha = new Array<T>(n * L);
  for (let t = 0; t < L; t++) {
    alpha[t] = semiring.times(semiring.weight(start?.[t] ?? 0), emit(unary[t]!, 0, t));
  }
  for (let i = 1; i < n; i++) {
    for (let t = 0; t < L; t++) {
      let sum = semiring.zero;
      for (let s = 0; s < L; s++) {
        const step = semiring.times(
          alpha[(i - 1) * L + s]!,
          semiring.weight(transitionScore(scores, i, s, t)),
        );
        sum = semiring.plus(sum, step);
      }
      alpha[i * L + t] = semiring.times(sum, emit(unary[i * L + t]!, i, t));
    }
  }
  let total = semiring.zero;
  for (let t = 0; t < L; t++) {
    total = semiring.plus(
      total,
      semiring.times(alpha[(n - 1) * L + t]!, semiring.weight(end?.[t] ?? 0)),
    );
  }
  return { alpha, total };
}

/**
 * The semiring-generic backward pass:
 *   beta[n−1,t] = end[t]
 *   beta[i,s]   = ⊕_t trans(i+1,s,t) ⊗ unary[i+1,t] ⊗ beta[i+1,t]
 *   total       = ⊕_t start[t] ⊗ unary[0,t] ⊗ beta[0,t]
 */
export function chainBackward<T>(
  scores: ChainScores,
  semiring: Semiring<T>,
): { beta: T[]; total: T } {
  validateChainScores(scores);
  const { n, L, unary, start, end } = scores;
  const emit = emitter(semiring);
  const beta = new Array<T>(n * L);
  for (let t = 0; t < L; t++) beta[(n - 1) * L + t] = semiring.weight(end?.[t] ?? 0);
  for (let i = n - 2; i >= 0; i--) {
    for (let s = 0; s < L; s++) {
      let sum = semiring.zero;
      for (let t = 0; t < L; t++) {
        const step = semiring.times(
          semiring.weight(transitionScore(scores, i + 1, s, t)),
          semiring.times(emit(unary[(i + 1) * L + t]!, i + 1, t), beta[(i + 1) * L + t]!),
        );
        sum = semiring.plus(sum, step);
      }
      beta[i * L + s] = sum;
    }
  }
  let total = semiring.zero;
  for (let t = 0; t < L; t++) {
    const first = semiring.times(semiring.weight(start?.[t] ?? 0), emit(unary[t]!, 0, t));
    total = semiring.plus(total, semiring.times(first, beta[t]!));
  }
  return { beta, total };
}

/** Both passes; `total` is the forward one. */
export function chainTables<T>(scores: ChainScores, semiring: Semiring<T>): ChainTables<T> {
  const { alpha, total } = chainForward(scores, semiring);
  const { beta } = chainBackward(scores, semiring);
  return { alpha, beta, total };
}

/** The best labelling; `labels` is null (and `score` −∞) when every labelling is forbidden. */
export interface ChainArgmax {
  readonly score: number;
  readonly labels: Int32Array | null;
}

/**
 * Viterbi as the max-semiring forward pass plus backtracking through the alpha table (the
 * backpointer of (i, t) is recomputed as the first s maximising alpha[i−1,s] + trans(i,s,t), so
 * ties go to the lowest label id).
 */
export function chainArgmax(scores: ChainScores): ChainArgmax {
  const { alpha, total } = chainForward(scores, maxSemiring);
  if (total === NEG_INF) return { score: NEG_INF, labels: null };
  const { n, L, end } = scores;
  const labels = new Int32Array(n);
  let best = -1;
  let bestScore = NEG_INF;
  for (let t = 0; t < L; t++) {
    const v = alpha[(n - 1) * L + t]! + (end?.[t] ?? 0);
    if (best < 0 || v > bestScore) {
      best = t;
      bestScore = v;
    }
  }
  labels[n - 1] = best;
  for (let i = n - 1; i >= 1; i--) {
    const t = labels[i]!;
    let arg = -1;
    let argScore = NEG_INF;
    for (let s = 0; s < L; s++) {
      const v = alpha[(i - 1) * L + s]! + transitionScore(scores, i, s, t);
      if (arg < 0 || v > argScore) {
        arg = s;
        argScore = v;
      }
    }
    labels[i - 1] = arg;
  }
  return { score: total, labels };
}

/** log Σ_y exp(score(y)); −∞ when every labelling is forbidden. */
export function chainLogPartition(scores: ChainScores): number {
  return chainForward(scores, logSemiring).total;
}

export interface ChainMarginals {
  readonly logPartition: number;
  /** P(y_i = t), row-major `i*L + t`; all zero when every labelling is forbidden. */
  readonly token: Float64Array;
  /**
   * P(y_{i−1} = a, y_i = b) at `(i−1)*L*L + a*L + b` for i = 1..n−1; all zero when every
   * labelling is forbidden.
   */
  readonly edge: Float64Array;
}

/** Token and edge marginals by forward-backward in the log semiring. */
export function chainMarginals(scores: ChainScores): ChainMarginals {
  const { n, L, unary } = scores;
  const { alpha, beta, total: logZ } = chainTables(scores, logSemiring);
  const token = new Float64Array(n * L);
  const edge = new Float64Array(Math.max(0, n - 1) * L * L);
  if (logZ === NEG_INF) return { logPartition: logZ, token, edge };
  for (let k = 0; k < n * L; k++) token[k] = Math.exp(alpha[k]! + beta[k]! - logZ);
  for (let i = 1; i < n; i++) {
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const v =
          alpha[(i - 1) * L + a]! +
          transitionScore(scores, i, a, b) +
          unary[i * L + b]! +
          beta[i * L + b]!;
        edge[(i - 1) * L * L + a * L + b] = Math.exp(v - logZ);
      }
    }
  }
  return { logPartition: logZ, token, edge };
}

/** The k best feasible labellings, best first (fewer when fewer are feasible). */
export function chainKBest(
  scores: ChainScores,
  k: number,
): Array<{ score: number; labels: Int32Array }> {
  const { total } = chainForward(scores, kBestSemiring(k));
  return total.map((e) => ({ score: e.score, labels: Int32Array.from(e.labels) }));
}

/** Number of feasible labellings (exact up to 2^53). */
export function chainCount(scores: ChainScores): number {
  return chainForward(scores, countSemiring).total;
}
