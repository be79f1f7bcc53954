import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scoreLabelling } from "./chain.js";
import { chainSlave } from "./chain-slave.js";
import { createRandom } from "./random.js";
import { chainArgmax } from "./semiring.js";
import { bruteForceBest, randomChainScores } from "./testing/index.js";

describe("chainSlave", () => {
  it("maximises score + adjustment·y exactly (brute force) and reports the value of its labels", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 5);
        const L = random.int(1, 3);
        const scores = randomChainScores(random, {
          n,
          L,
          positionSpecific: random.bool(),
          startEnd: random.bool(),
          forbiddenFraction: random.pick([0, 0.3]),
        });
        const adjustment = Float64Array.from({ length: n * L }, () => random.float(-2, 2));
        const slave = chainSlave(scores);
        const result = slave.maximize(adjustment);
        const exact = bruteForceBest({
          domainSizes: new Int32Array(n).fill(L),
          score: (y) => {
            let s = scoreLabelling(scores, y);
            for (let i = 0; i < n; i++) s += adjustment[i * L + y[i]!]!;
            return s;
          },
        });
        if (exact.labels === null) {
          expect(result.value).toBe(Number.NEGATIVE_INFINITY);
          return;
        }
        expect(result.value).toBeCloseTo(exact.score, 9);
        let own = slave.score(result.labels);
        for (let i = 0; i < n; i++) own += adjustment[i * L + result.labels[i]!]!;
        expect(own).toBeCloseTo(result.value, 9);
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it("agrees with the semiring Viterbi (same tie rule) at zero adjustment", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const scores = randomChainScores(random, {
          n: random.int(1, 7),
          L: random.int(1, 4),
          integer: true, // ties on purpose
          startEnd: random.bool(),
        });
        const reference = chainArgmax(scores);
        const result = chainSlave(scores).maximize(new Float64Array(scores.n * scores.L));
        expect(result.value).toBe(reference.score);
        expect(result.labels).toEqual(reference.labels);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it("reuses its result buffer between calls and checks the adjustment length", () => {
    const scores = randomChainScores(1, { n: 3, L: 2 });
    const slave = chainSlave(scores);
    const first = slave.maximize(new Float64Array(6));
    const second = slave.maximize(new Float64Array(6).fill(1));
    expect(second.labels).toBe(first.labels);
    expect(() => slave.maximize(new Float64Array(5))).toThrow(/expected length n·L = 6, got 5/);
  });
});
