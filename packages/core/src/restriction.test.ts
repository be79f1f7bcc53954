import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scoreLabelling } from "./chain.js";
import { chainDecoder } from "./decoder.js";
import {
  FREE_LABEL,
  fixedLabelsRestriction,
  meetsRestriction,
  restrictProblem,
} from "./restriction.js";
import { forEachLabelling, randomChainScores } from "./testing/index.js";

const cases = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 6 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
    startEnd: fc.boolean(),
    forbiddenFraction: fc.constantFrom(0, 0.3, 0.8),
    fixings: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 6, maxLength: 6 }),
  })
  .map(({ seed, fixings, ...options }) => {
    const scores = randomChainScores(seed, options);
    // A negative draw leaves the position free: about half the positions are fixed.
    const fixed = fixings.slice(0, options.n).map((f) => (f < 0 ? FREE_LABEL : f % options.L));
    return { scores, fixed };
  });

describe("forced decoding: a restriction's −∞ unaries", () => {
  it("forced Viterbi is the brute-force argmax over the labellings that agree with the fixings", () => {
    const viterbi = chainDecoder();
    fc.assert(
      fc.property(cases, ({ scores, fixed }) => {
        const { n, L } = scores;
        const restriction = fixedLabelsRestriction(n, L, fixed);
        const decoding = viterbi.decode(restrictProblem({ scores }, restriction));
        // The reference: every labelling of the unrestricted chain, those breaking a fixing dropped.
        let best = Number.NEGATIVE_INFINITY;
        forEachLabelling(new Int32Array(n).fill(L), (y) => {
          if (!fixed.every((f, i) => f === FREE_LABEL || f === y[i])) return;
          best = Math.max(best, scoreLabelling(scores, y));
        });
        if (best === Number.NEGATIVE_INFINITY) {
          expect(decoding.status).toBe("infeasible");
          return;
        }
        expect(decoding.status).toBe("optimal");
        expect(meetsRestriction(restriction, L, decoding.labels)).toBe(true);
        expect(scoreLabelling(scores, decoding.labels)).toBeCloseTo(best, 9);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves every labelling that meets it its own score, and the rest −∞", () => {
    fc.assert(
      fc.property(cases, ({ scores, fixed }) => {
        const restriction = fixedLabelsRestriction(scores.n, scores.L, fixed);
        const restricted = restrictProblem({ scores }, restriction).scores;
        forEachLabelling(new Int32Array(scores.n).fill(scores.L), (y) => {
          const expected = meetsRestriction(restriction, scores.L, y)
            ? scoreLabelling(scores, y)
            : Number.NEGATIVE_INFINITY;
          expect(scoreLabelling(restricted, y)).toBe(expected);
        });
      }),
      { numRuns: 100 },
    );
  });

  it("refuses fixings of the wrong length or out of range, naming the entry", () => {
    expect(() => fixedLabelsRestriction(3, 2, [0, 1])).toThrow(/fixed: expected 3 entries/);
    expect(() => fixedLabelsRestriction(2, 2, [0, 2])).toThrow(/fixed\[1\]/);
  });
});
