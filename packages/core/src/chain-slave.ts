import {
  type ChainScores,
  scoreLabelling,
  transitionOffset,
  validateChainScores,
} from "./chain.js";
import { ProblemValidationError } from "./errors.js";
import type { Slave, SlaveResult } from "./solver.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * The reference chain slave: Viterbi over `unary + adjustment` with the chain's transitions,
 * start/end and mask. Buffers are allocated once, so `maximize` allocates nothing; the returned
 * result object and its `labels` are reused by the next call. Ties go to the lowest label id (the
 * same rule as `chainArgmax`). chain-crf ships a faster one; this one keeps the DD master testable
 * on its own.
 */
export function chainSlave(scores: ChainScores, name = "chain"): Slave {
  validateChainScores(scores);
  const { n, L, unary, transition, start, end, allowed } = scores;
  const size = n * L;
  const delta = new Float64Array(size);
  const backpointer = new Int32Array(size);
  const labels = new Int32Array(n);
  const result: { labels: Int32Array; value: number } = { labels, value: NEG_INF };

  const maximize = (adjustment: Float64Array): SlaveResult => {
    if (adjustment.length !== size) {
      throw new ProblemValidationError(
        `${name}.adjustment`,
        `expected length n·L = ${size}, got ${adjustment.length}`,
      );
    }
    for (let t = 0; t < L; t++) delta[t] = (start?.[t] ?? 0) + unary[t]! + adjustment[t]!;
    for (let i = 1; i < n; i++) {
      const offset = transitionOffset(scores, i);
      const row = i * L;
      const previous = row - L;
      for (let t = 0; t < L; t++) {
        let best = -1;
        let bestScore = NEG_INF;
        for (let s = 0; s < L; s++) {
          if (allowed !== undefined && allowed[s * L + t] === 0) continue;
          const v = delta[previous + s]! + transition[offset + s * L + t]!;
          if (best < 0 || v > bestScore) {
            best = s;
            bestScore = v;
          }
        }
        backpointer[row + t] = Math.max(best, 0);
        delta[row + t] = bestScore + unary[row + t]! + adjustment[row + t]!;
      }
    }
    const last = (n - 1) * L;
    let best = 0;
    let bestScore = NEG_INF;
    for (let t = 0; t < L; t++) {
      const v = delta[last + t]! + (end?.[t] ?? 0);
      if (v > bestScore) {
        best = t;
        bestScore = v;
      }
    }
    labels[n - 1] = best;
    for (let i = n - 1; i >= 1; i--) labels[i - 1] = backpointer[i * L + labels[i]!]!;
    result.value = bestScore;
    return result;
  };

  return {
    name,
    n,
    L,
    maximize,
    score: (y) => scoreLabelling(scores, y),
  };
}
