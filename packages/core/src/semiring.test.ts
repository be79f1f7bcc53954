import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChainScores } from "./chain.js";
import { scoreLabelling } from "./chain.js";
import { ProblemValidationError } from "./errors.js";
import { createRandom } from "./random.js";
import {
  chainArgmax,
  chainBackward,
  chainCount,
  chainForward,
  chainKBest,
  chainLogPartition,
  chainMarginals,
  countSemiring,
  logAddExp,
  logSemiring,
  maxSemiring,
} from "./semiring.js";
import {
  bruteForceBest,
  bruteForceCount,
  bruteForceKBest,
  bruteForceLogPartition,
  bruteForceMarginals,
  forEachLabelling,
  randomChainScores,
} from "./testing/index.js";

const RUNS = { numRuns: 300, seed: 20141104 };

/** A random tiny chain covering every feature: position-specific, start/end, masks, ties. */
function tinyChain(seed: number): ChainScores {
  const random = createRandom(seed);
  return randomChainScores(random, {
    n: random.int(1, 5),
    L: random.int(1, 3),
    positionSpecific: random.bool(),
    startEnd: random.bool(),
    forbiddenFraction: random.pick([0, 0, 0.3, 0.7]),
    integer: random.bool(0.2),
  });
}

const close = (a: number, b: number, tol = 1e-9): boolean =>
  a === b || Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

describe("semiring chain DP equals brute force", () => {
  it("max: Viterbi score and a labelling that attains it", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const scores = tinyChain(seed);
        const exact = bruteForceBest(scores);
        const dp = chainArgmax(scores);
        expect(Number.isNaN(dp.score)).toBe(false);
        if (exact.labels === null) {
          expect(dp.score).toBe(Number.NEGATIVE_INFINITY);
          expect(dp.labels).toBeNull();
          return;
        }
        expect(close(dp.score, exact.score)).toBe(true);
        expect(dp.labels).not.toBeNull();
        expect(close(scoreLabelling(scores, dp.labels!), exact.score)).toBe(true);
      }),
      RUNS,
    );
  });

  it("log: the log-partition function", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const scores = tinyChain(seed);
        const exact = bruteForceLogPartition(scores);
        const dp = chainLogPartition(scores);
        expect(Number.isNaN(dp)).toBe(false);
        expect(close(dp, exact)).toBe(true);
      }),
      RUNS,
    );
  });

  it("log: token and edge marginals by forward-backward", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const scores = tinyChain(seed);
        const { n, L } = scores;
        const { logPartition, token, edge } = chainMarginals(scores);
        const exactToken = bruteForceMarginals(scores);
        for (let k = 0; k < n * L; k++) expect(token[k]).toBeCloseTo(exactToken[k]!, 9);
        const exactEdge = new Float64Array(Math.max(0, n - 1) * L * L);
        if (logPartition > Number.NEGATIVE_INFINITY) {
          forEachLabelling(new Int32Array(n).fill(L), (y) => {
            const p = Math.exp(scoreLabelling(scores, y) - logPartition);
            for (let i = 1; i < n; i++) exactEdge[(i - 1) * L * L + y[i - 1]! * L + y[i]!]! += p;
          });
        }
        for (let k = 0; k < exactEdge.length; k++) expect(edge[k]).toBeCloseTo(exactEdge[k]!, 9);
        // Marginals of a feasible chain sum to one per position.
        if (logPartition > Number.NEGATIVE_INFINITY) {
          for (let i = 0; i < n; i++) {
            let sum = 0;
            for (let t = 0; t < L; t++) sum += token[i * L + t]!;
            expect(sum).toBeCloseTo(1, 9);
          }
        }
      }),
      RUNS,
    );
  });

  it("k-best: the k best scores, each labelling distinct and scored right", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 6 }), (seed, k) => {
        const scores = tinyChain(seed);
        const exact = bruteForceKBest(scores, k);
        const dp = chainKBest(scores, k);
        expect(dp.length).toBe(exact.length);
        const seen = new Set<string>();
        dp.forEach((entry, r) => {
          expect(close(entry.score, exact[r]!.score)).toBe(true);
          expect(close(scoreLabelling(scores, entry.labels), entry.score)).toBe(true);
          seen.add(entry.labels.join(","));
        });
        expect(seen.size).toBe(dp.length);
      }),
      RUNS,
    );
  });

  it("count: the number of feasible labellings", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const scores = tinyChain(seed);
        expect(chainCount(scores)).toBe(bruteForceCount(scores));
      }),
      RUNS,
    );
  });

  it("backward totals equal forward totals in every numeric semiring", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const scores = tinyChain(seed);
        for (const semiring of [maxSemiring, logSemiring, countSemiring]) {
          const forward = chainForward(scores, semiring).total;
          const backward = chainBackward(scores, semiring).total;
          expect(close(forward, backward)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("without a mask, count is L^n (torch-struct's counting check)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4 }), (n, L) => {
        const scores = randomChainScores(n * 31 + L, { n, L, positionSpecific: true });
        expect(chainCount(scores)).toBe(L ** n);
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});

describe("edge cases", () => {
  it("all transitions forbidden: −∞, count 0, no labelling, zero marginals, never NaN", () => {
    const scores: ChainScores = {
      n: 3,
      L: 2,
      unary: new Float64Array(6).fill(1),
      transition: new Float64Array(4),
      allowed: new Uint8Array(4),
    };
    expect(chainArgmax(scores)).toEqual({ score: Number.NEGATIVE_INFINITY, labels: null });
    expect(chainLogPartition(scores)).toBe(Number.NEGATIVE_INFINITY);
    expect(chainCount(scores)).toBe(0);
    expect(chainKBest(scores, 3)).toEqual([]);
    const m = chainMarginals(scores);
    expect([...m.token, ...m.edge].every((p) => p === 0)).toBe(true);
  });

  it("n = 1 reduces to start + unary + end", () => {
    const scores: ChainScores = {
      n: 1,
      L: 3,
      unary: Float64Array.of(1, 2, 0.5),
      transition: new Float64Array(9),
      start: Float64Array.of(0, -5, 0),
      end: Float64Array.of(0, 0, 1),
    };
    expect(chainArgmax(scores)).toEqual({ score: 1.5, labels: Int32Array.of(2) });
    expect(chainCount(scores)).toBe(3);
    expect(chainLogPartition(scores)).toBeCloseTo(Math.log(Math.E + Math.exp(-3) + Math.exp(1.5)));
  });

  it("L = 1 has exactly one labelling", () => {
    const scores = randomChainScores(3, { n: 4, L: 1, startEnd: true });
    const best = chainArgmax(scores);
    expect(best.labels).toEqual(new Int32Array(4));
    expect(chainLogPartition(scores)).toBeCloseTo(best.score, 12);
    expect(chainMarginals(scores).token).toEqual(new Float64Array(4).fill(1));
  });

  it("empty input (n = 0) is a clear error", () => {
    const empty: ChainScores = {
      n: 0,
      L: 2,
      unary: new Float64Array(0),
      transition: new Float64Array(4),
    };
    expect(() => chainArgmax(empty)).toThrow(ProblemValidationError);
    expect(() => chainLogPartition(empty)).toThrow(/chain\.n: expected an integer ≥ 1/);
  });

  it("logAddExp never returns NaN on infinite operands", () => {
    const inf = Number.NEGATIVE_INFINITY;
    expect(logAddExp(inf, inf)).toBe(inf);
    expect(logAddExp(inf, 2)).toBe(2);
    expect(logAddExp(1000, 1000)).toBeCloseTo(1000 + Math.LN2, 9);
  });
});
