// The fast kernels against the core's semiring DP (a second, independent algorithm) and the
// core's brute-force oracles, on the core's seeded random chains.

import { chainDecoder } from "@lagrange/core";
import {
  chainArgmax,
  chainCount,
  chainKBest,
  chainLogPartition,
  chainMarginals,
} from "@lagrange/core/chain";
import {
  bruteForceBest,
  bruteForceKBest,
  bruteForceLogPartition,
  bruteForceMarginals,
  randomChainScores,
} from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crfChainSlaves } from "../slave.js";
import { forwardBackward, kBest, viterbi } from "./api.js";
import { InferenceContext } from "./context.js";

const chains = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 6 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
    startEnd: fc.boolean(),
    forbiddenFraction: fc.constantFrom(0, 0.3, 0.8, 1),
    integer: fc.boolean(),
  })
  .map(({ seed, ...options }) => randomChainScores(seed, options));

const close = (a: number, b: number) =>
  a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

describe("kernels vs the core's semiring DP and brute force", () => {
  const ctx = new InferenceContext();
  // One reused slave across every chain: the decoders' way of calling it.
  const decoder = chainDecoder(crfChainSlaves());

  it("Viterbi = max-semiring DP (same tie rule, same labels) = brute force", () => {
    fc.assert(
      fc.property(chains, (scores) => {
        const fast = viterbi(scores, { context: ctx });
        const dp = chainArgmax(scores);
        const brute = bruteForceBest(scores);
        expect(close(fast.score, dp.score)).toBe(true);
        expect(close(fast.score, brute.score)).toBe(true);
        if (dp.labels !== null) expect(Array.from(fast.labels)).toEqual(Array.from(dp.labels));
        expect(decoder.decode({ scores }).status).toBe(
          chainCount(scores) === 0 ? "infeasible" : "optimal",
        );
      }),
      { numRuns: 400 },
    );
  });

  it("forward-backward = log-semiring DP = brute force (log Z, token and edge marginals)", () => {
    fc.assert(
      fc.property(chains, (scores) => {
        const fb = forwardBackward(scores, { pairwise: true, context: ctx });
        const dp = chainMarginals(scores);
        expect(close(fb.logPartition, chainLogPartition(scores))).toBe(true);
        expect(close(fb.logPartition, bruteForceLogPartition(scores))).toBe(true);
        const brute = bruteForceMarginals(scores);
        for (let k = 0; k < brute.length; k++) {
          expect(fb.marginals[k]).toBeCloseTo(brute[k]!, 9);
          expect(fb.marginals[k]).toBeCloseTo(dp.token[k]!, 9);
        }
        for (let k = 0; k < dp.edge.length; k++)
          expect(fb.pairwise![k]).toBeCloseTo(dp.edge[k]!, 9);
        expect(fb.marginals.every((p) => !Number.isNaN(p))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("k-best = k-best semiring = brute-force sorted list", () => {
    fc.assert(
      fc.property(chains, fc.integer({ min: 1, max: 10 }), (scores, k) => {
        const fast = kBest(scores, k, { context: ctx });
        const dp = chainKBest(scores, k);
        const brute = bruteForceKBest(scores, k);
        expect(fast.scores.length).toBe(brute.length);
        expect(dp.length).toBe(brute.length);
        for (let r = 0; r < brute.length; r++) {
          expect(close(fast.scores[r]!, brute[r]!.score)).toBe(true);
          expect(close(dp[r]!.score, brute[r]!.score)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
