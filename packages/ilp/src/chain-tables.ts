import type { ChainScores } from "@lagrange/core";
import { transitionOffset } from "@lagrange/core/chain";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * Max-product forward/backward tables of a chain on flat arrays: `alpha[i*L+t]` is the best prefix
 * score ending in label t at i (unary of i included), `beta[i*L+t]` the best suffix score after it
 * (end score included). `alpha + beta` is the max-marginal of a node: the best score of any
 * labelling through it. Written here on typed arrays, not with core's generic semiring DP, because
 * it runs before every ILP and is the whole cost of the sentences the ILP never needs to see.
 */
export interface MaxMarginals {
  readonly alpha: Float64Array;
  readonly beta: Float64Array;
  /** The Viterbi value Z*; −∞ when the mask forbids every labelling. */
  readonly best: number;
  /** A Viterbi labelling (lowest label on ties); null when there is none. */
  readonly labels: Int32Array | null;
}

export function maxMarginals(scores: ChainScores): MaxMarginals {
  const { n, L, unary, transition, start, end, allowed } = scores;
  const alpha = new Float64Array(n * L);
  const beta = new Float64Array(n * L);
  for (let t = 0; t < L; t++) alpha[t] = (start?.[t] ?? 0) + unary[t]!;
  for (let i = 1; i < n; i++) {
    const offset = transitionOffset(scores, i);
    for (let b = 0; b < L; b++) {
      let best = NEG_INF;
      for (let a = 0; a < L; a++) {
        if (allowed !== undefined && allowed[a * L + b] === 0) continue;
        const v = alpha[(i - 1) * L + a]! + transition[offset + a * L + b]!;
        if (v > best) best = v;
      }
      alpha[i * L + b] = best + unary[i * L + b]!;
    }
  }
  for (let t = 0; t < L; t++) beta[(n - 1) * L + t] = end?.[t] ?? 0;
  for (let i = n - 2; i >= 0; i--) {
    const offset = transitionOffset(scores, i + 1);
    for (let a = 0; a < L; a++) {
      let best = NEG_INF;
      for (let b = 0; b < L; b++) {
        if (allowed !== undefined && allowed[a * L + b] === 0) continue;
        const v =
          transition[offset + a * L + b]! + unary[(i + 1) * L + b]! + beta[(i + 1) * L + b]!;
        if (v > best) best = v;
      }
      beta[i * L + a] = best;
    }
  }
  let best = NEG_INF;
  let last = -1;
  for (let t = 0; t < L; t++) {
    const v = alpha[(n - 1) * L + t]! + beta[(n - 1) * L + t]!;
    if (v > best) {
      best = v;
      last = t;
    }
  }
  if (last < 0) return { alpha, beta, best, labels: null };
  const labels = new Int32Array(n);
  labels[n - 1] = last;
  for (let i = n - 1; i >= 1; i--) {
    const offset = transitionOffset(scores, i);
    const b = labels[i]!;
    let arg = -1;
    let value = NEG_INF;
    for (let a = 0; a < L; a++) {
      if (allowed !== undefined && allowed[a * L + b] === 0) continue;
      const v = alpha[(i - 1) * L + a]! + transition[offset + a * L + b]!;
      if (v > value) {
        value = v;
        arg = a;
      }
    }
    labels[i - 1] = arg;
  }
  return { alpha, beta, best, labels };
}
