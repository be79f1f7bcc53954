/** AD3's factors that are score tables rather than logic (Martins et al. 2015): PAIR and DENSE. */

import { ProblemValidationError } from "../../errors.js";
import type { BinaryFactor } from "./binary-factor.js";
import { checkFinite } from "./box-kernels.js";

// ---------------------------------------------------------------------------------------------
// PAIR

/**
 * PAIR's quadratic step on v[start], v[start + 1] into q, w = weight[0] the scaled score (in a
 * buffer: a double argument to a call that is not inlined is boxed). Each piece's objective
 * bounds the true one from one side and equals it on the piece, so a piece's maximiser that lies
 * in its own piece is optimal.
 */
export function projectPair(
  v: Float64Array,
  q: Float64Array,
  start: number,
  weight: Float64Array,
): void {
  const w = weight[0]!;
  const v0 = v[start]!;
  const v1 = v[start + 1]!;
  // Each branch writes its own answer: locals merged from several paths were boxed per call.
  if (w >= 0) {
    const a0 = Math.min(1, Math.max(0, v0 + w));
    const a1 = Math.min(1, Math.max(0, v1));
    if (a0 <= a1) {
      q[start] = a0;
      q[start + 1] = a1;
      return;
    }
    const b0 = Math.min(1, Math.max(0, v0));
    const b1 = Math.min(1, Math.max(0, v1 + w));
    if (b1 <= b0) {
      q[start] = b0;
      q[start + 1] = b1;
      return;
    }
    const t = Math.min(1, Math.max(0, 0.5 * (v0 + v1 + w)));
    q[start] = t;
    q[start + 1] = t;
    return;
  }
  const a0 = Math.min(1, Math.max(0, v0));
  const a1 = Math.min(1, Math.max(0, v1));
  if (a0 + a1 <= 1) {
    q[start] = a0;
    q[start + 1] = a1;
    return;
  }
  const b0 = Math.min(1, Math.max(0, v0 + w));
  const b1 = Math.min(1, Math.max(0, v1 + w));
  if (b0 + b1 >= 1) {
    q[start] = b0;
    q[start + 1] = b1;
    return;
  }
  const t = Math.min(1, Math.max(0, 0.5 * (v0 - v1 + 1)));
  q[start] = t;
  q[start + 1] = 1 - t;
}

/**
 * PAIR's MAP at adj[start], adj[start + 1] into out, the score being weight[0]: off, either one,
 * or both; the maximum into weight[1] (a returned double is boxed where the call is not inlined).
 */
export function mapPair(
  adj: Float64Array,
  out: Float64Array,
  start: number,
  weight: Float64Array,
): void {
  const a = adj[start]!;
  const b = adj[start + 1]!;
  const both = a + b + weight[0]!;
  let value = 0;
  let z0 = 0;
  let z1 = 0;
  if (a > value) {
    value = a;
    z0 = 1;
  }
  if (b > value) {
    value = b;
    z0 = 0;
    z1 = 1;
  }
  if (both > value) {
    value = both;
    z0 = 1;
    z1 = 1;
  }
  out[start] = z0;
  out[start + 1] = z1;
  weight[1] = value;
}

/**
 * AD3's PAIR: two variables, `score` added when both are 1. Its score over [0,1]² is the concave
 * extension score·min(q1, q2) (score ≥ 0) or score·max(0, q1 + q2 − 1) (score < 0); the projection
 * tries the two linear pieces in closed form and otherwise lies on the line between them.
 */
export function pairFactor(score: number): BinaryFactor {
  checkFinite("pairFactor.score", score);
  const weight = new Float64Array(2);
  return {
    name: "pair",
    size: 2,
    map(adjustment, out) {
      weight[0] = score;
      mapPair(adjustment, out, 0, weight);
      return weight[1]!;
    },
    project(v, scale, out) {
      weight[0] = scale * score;
      projectPair(v, out, 0, weight);
    },
    kernel: { kind: "pair", score },
    score(z) {
      return (z[0] ?? 0) > 0.5 && (z[1] ?? 0) > 0.5 ? score : 0;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Dense

/**
 * AD3's DENSE factor: several multi-valued variables, variable k with cardinalities[k] states, as
 * the concatenation of their one-hot indicator blocks (size Σ cardinalities). `scores` has one
 * entry per joint configuration (s_0, …, s_{K−1}), at index Σ_k s_k·Π_{j>k} cardinalities[j]: the
 * LAST variable varies fastest (AD3's order). `map` enumerates the joint configurations; there is no
 * `project` (the master's active-set method works through `map`). A 0/1 vector that is not one-hot
 * per block scores −∞.
 */
export function denseFactor(cardinalities: Int32Array, scores: Float64Array): BinaryFactor {
  const k = cardinalities.length;
  if (k === 0)
    throw new ProblemValidationError("denseFactor.cardinalities", "expected at least one variable");
  const offsets = new Int32Array(k + 1);
  const strides = new Int32Array(k);
  let total = 1;
  for (let j = 0; j < k; j++) {
    const c = cardinalities[j]!;
    if (!Number.isInteger(c) || c < 1) {
      throw new ProblemValidationError(
        `denseFactor.cardinalities[${j}]`,
        `expected an integer ≥ 1, got ${c}`,
      );
    }
    offsets[j + 1] = offsets[j]! + c;
  }
  for (let j = k - 1; j >= 0; j--) {
    strides[j] = total;
    total *= cardinalities[j]!;
  }
  if (scores.length !== total) {
    throw new ProblemValidationError(
      "denseFactor.scores",
      `expected ${total} entries (the product of the cardinalities), got ${scores.length}`,
    );
  }
  for (let i = 0; i < total; i++) {
    const s = scores[i]!;
    if (Number.isNaN(s) || s === Number.POSITIVE_INFINITY) {
      throw new ProblemValidationError(
        `denseFactor.scores[${i}]`,
        `expected a number < ∞, got ${s}`,
      );
    }
  }
  const size = offsets[k]!;
  const state = new Int32Array(k);
  // partial[j] = Σ_{i<j} adjustment of variable i's current state.
  const partial = new Float64Array(k + 1);
  return {
    name: "dense",
    size,
    map(adjustment, out) {
      state.fill(0);
      for (let j = 0; j < k; j++) partial[j + 1] = partial[j]! + adjustment[offsets[j]!]!;
      let best = Number.NEGATIVE_INFINITY;
      let bestIndex = 0;
      for (let index = 0; ; ) {
        const value = scores[index]! + partial[k]!;
        if (value > best) {
          best = value;
          bestIndex = index;
        }
        if (++index === total) break;
        let j = k - 1;
        while (state[j]! + 1 === cardinalities[j]!) state[j--] = 0;
        state[j] = state[j]! + 1;
        for (let i = j; i < k; i++)
          partial[i + 1] = partial[i]! + adjustment[offsets[i]! + state[i]!]!;
      }
      out.fill(0, 0, size);
      for (let j = 0; j < k; j++) {
        const s = Math.floor(bestIndex / strides[j]!) % cardinalities[j]!;
        out[offsets[j]! + s] = 1;
      }
      return best;
    },
    kernel: { kind: "dense", cardinalities: Int32Array.from(cardinalities), scores },
    score(z) {
      let index = 0;
      for (let j = 0; j < k; j++) {
        let chosen = -1;
        for (let s = 0; s < cardinalities[j]!; s++) {
          if ((z[offsets[j]! + s] ?? 0) > 0.5) {
            if (chosen >= 0) return Number.NEGATIVE_INFINITY;
            chosen = s;
          }
        }
        if (chosen < 0) return Number.NEGATIVE_INFINITY;
        index += chosen * strides[j]!;
      }
      return scores[index]!;
    },
  };
}
