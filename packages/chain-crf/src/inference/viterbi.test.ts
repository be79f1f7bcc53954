import { createRandom } from "@lagrange/core";
import { chainArgmax } from "@lagrange/core/chain";
import { randomChainScores } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { viterbi } from "./api.js";
import { InferenceContext } from "./context.js";

describe("Viterbi's bounded recursion (shared transitions): the same answer as the semiring DP", () => {
  it("on chains with a wide score spread, ties, −∞ transitions, masks and larger label sets", () => {
    const ctx = new InferenceContext(4, 0, { simd: false });
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 12);
        const L = random.int(1, 16);
        const scores = randomChainScores(random, {
          n,
          L,
          startEnd: random.bool(),
          forbiddenFraction: random.pick([0, 0.3, 0.7]),
          integer: random.bool(0.4),
          scale: random.pick([1, 4, 12]),
        });
        // A confident model: a few labels far above the rest at each position.
        if (random.bool(0.5)) {
          for (let j = 0; j < scores.unary.length; j++) {
            if (random.bool(0.2)) scores.unary[j]! += random.pick([8, 15, 30]);
          }
        }
        // Forbidden transitions written as −∞ scores instead of (or as well as) a mask.
        if (random.bool(0.2)) {
          for (let k = 0; k < scores.transition.length; k++) {
            if (random.bool(0.2)) scores.transition[k] = Number.NEGATIVE_INFINITY;
          }
        }
        const fast = viterbi(scores, { context: ctx });
        const reference = chainArgmax(scores);
        if (reference.labels === null) {
          expect(fast.score).toBe(Number.NEGATIVE_INFINITY);
          return;
        }
        expect(fast.score).toBeCloseTo(reference.score, 9);
        expect(Array.from(fast.labels)).toEqual(Array.from(reference.labels));
      }),
      { numRuns: 1500, seed: 17 },
    );
  });
});

describe("Viterbi's column plan: heavy columns bounded by the leaders, light ones by their lists", () => {
  it("equals the semiring DP on large structured masks (full columns, two-predecessor columns), with ties and adjustments", () => {
    const ctx = new InferenceContext(4, 0, { simd: false });
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 14);
        const L = random.int(2, 48);
        const scores = randomChainScores(random, {
          n,
          L,
          startEnd: random.bool(),
          integer: random.bool(0.5),
          scale: random.pick([1, 3, 10]),
        });
        // BIO-like: even labels ≥ 2 are I-x (B-x = the label before, or I-x itself, may precede);
        // the others admit every label, except a few forbidden pairs.
        const allowed = new Uint8Array(L * L);
        for (let b = 0; b < L; b++) {
          const inside = b >= 2 && b % 2 === 0;
          for (let a = 0; a < L; a++) {
            allowed[a * L + b] = inside
              ? a === b || a === b - 1
                ? 1
                : 0
              : random.bool(0.9)
                ? 1
                : 0;
          }
        }
        const masked = { ...scores, allowed };
        const adjustment = Float64Array.from({ length: n * L }, () =>
          random.bool(0.3) ? random.pick([-1, 0.5, 2]) : 0,
        );
        const fast = viterbi(masked, { context: ctx, adjustment });
        const adjusted = { ...masked, unary: masked.unary.map((u, k) => u + adjustment[k]!) };
        const reference = chainArgmax(adjusted);
        if (reference.labels === null) {
          expect(fast.score).toBe(Number.NEGATIVE_INFINITY);
          return;
        }
        expect(fast.score).toBeCloseTo(reference.score, 9);
        expect(Array.from(fast.labels)).toEqual(Array.from(reference.labels));
      }),
      { numRuns: 600, seed: 16 },
    );
  });

  it("notices transition values changed in place under the same block", () => {
    const ctx = new InferenceContext(4, 0, { simd: false });
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(2, 8);
        const L = random.int(2, 20);
        const scores = randomChainScores(random, { n, L, forbiddenFraction: 0.4, scale: 4 });
        for (let round = 0; round < 3; round++) {
          const fast = viterbi(scores, { context: ctx });
          const reference = chainArgmax(scores);
          if (reference.labels === null) expect(fast.score).toBe(Number.NEGATIVE_INFINITY);
          else expect(Array.from(fast.labels)).toEqual(Array.from(reference.labels));
          scores.transition[random.int(0, L * L - 1)]! += random.pick([-6, 6]);
        }
      }),
      { numRuns: 300, seed: 17 },
    );
  });
});
