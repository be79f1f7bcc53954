import { chainArgmax, createRandom } from "@lagrange/core";
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
