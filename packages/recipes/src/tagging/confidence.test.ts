// Marginals and sequence probabilities against brute-force enumeration on small random chains.
import { bcrfDecoder, meanFieldDecoder } from "@lagrange/bcrf";
import { chainDecoder, scoreLabelling } from "@lagrange/core";
import {
  bruteForceLogPartition,
  bruteForceMarginals,
  randomChainScores,
} from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { labellingConfidence, marginalMaps } from "./confidence.js";

const chains = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 5 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
    startEnd: fc.boolean(),
    forbiddenFraction: fc.constantFrom(0, 0.3),
    pick: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  })
  .map(({ seed, pick, ...options }) => ({ scores: randomChainScores(seed, options), pick }));

/** Chains without forbidden transitions (mean field cannot represent them). */
const unmaskedChains = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 5 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
  })
  .map(({ seed, ...options }) => randomChainScores(seed, options));

const close = (a: number, b: number, tolerance = 1e-9) =>
  a === b || Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a));

/** A labelling drawn from `pick` (not necessarily feasible). */
function labellingOf(pick: number, n: number, L: number): Int32Array {
  const labels = new Int32Array(n);
  let x = pick;
  for (let i = 0; i < n; i++) {
    labels[i] = x % L;
    x = Math.floor(x / L);
  }
  return labels;
}

describe("labellingConfidence on the chain", () => {
  const viterbi = chainDecoder();

  it("marginals sum to 1 per token and equal brute-force enumeration", () => {
    fc.assert(
      fc.property(chains, ({ scores }) => {
        if (bruteForceLogPartition(scores) === Number.NEGATIVE_INFINITY) return;
        const { labels } = viterbi.decode({ scores });
        const c = labellingConfidence(scores, labels, viterbi, false, { marginals: true });
        const brute = bruteForceMarginals(scores);
        const { n, L } = scores;
        expect(c.marginalsOf).toBe("chain");
        for (let i = 0; i < n; i++) {
          let sum = 0;
          for (let t = 0; t < L; t++) {
            sum += c.marginals![i * L + t]!;
            expect(close(c.marginals![i * L + t]!, brute[i * L + t]!, 1e-9)).toBe(true);
          }
          expect(close(sum, 1, 1e-9)).toBe(true);
          expect(c.confidence![i]).toBe(c.marginals![i * L + labels[i]!]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("probability = exp(score − log Z) by enumeration, for any labelling (0 when forbidden)", () => {
    fc.assert(
      fc.property(chains, ({ scores, pick }) => {
        const logZ = bruteForceLogPartition(scores);
        if (logZ === Number.NEGATIVE_INFINITY) return;
        const labels = labellingOf(pick, scores.n, scores.L);
        const c = labellingConfidence(scores, labels, viterbi, false, { probability: true });
        const score = scoreLabelling(scores, labels);
        const expected = score === Number.NEGATIVE_INFINITY ? 0 : Math.exp(score - logZ);
        expect(close(c.probability!, expected, 1e-9)).toBe(true);
        expect(c.marginals).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("the probabilities of every labelling sum to 1", () => {
    const scores = randomChainScores(7, { n: 4, L: 3, startEnd: true, forbiddenFraction: 0.3 });
    let total = 0;
    for (let pick = 0; pick < 3 ** 4; pick++) {
      const labels = labellingOf(pick, 4, 3);
      total += labellingConfidence(scores, labels, viterbi, false, { probability: true })
        .probability!;
    }
    expect(close(total, 1, 1e-9)).toBe(true);
  });

  it("marks the chain's marginals unconstrained when the labels were decoded under constraints", () => {
    const scores = randomChainScores(3, { n: 3, L: 2 });
    const c = labellingConfidence(scores, new Int32Array(3), viterbi, true, { marginals: true });
    expect(c.marginalsOf).toBe("chain-unconstrained");
  });
});

describe("decoders with marginals of their own", () => {
  for (const [name, decoder] of [
    ["bcrf", bcrfDecoder()],
    ["mean-field", meanFieldDecoder()],
  ] as const) {
    it(`${name}: its own marginals, a distribution per token`, () => {
      fc.assert(
        fc.property(unmaskedChains, (scores) => {
          const { labels } = decoder.decode({ scores });
          const c = labellingConfidence(scores, labels, decoder, false, { marginals: true });
          expect(c.marginalsOf).toBe(name);
          const { n, L } = scores;
          for (let i = 0; i < n; i++) {
            let sum = 0;
            for (let t = 0; t < L; t++) sum += c.marginals![i * L + t]!;
            expect(close(sum, 1, 1e-6)).toBe(true);
          }
        }),
        { numRuns: 100 },
      );
    });
  }

  it("mean field on a chain without transitions is exact", () => {
    const scores = randomChainScores(11, { n: 4, L: 3 });
    const independent = { ...scores, transition: new Float64Array(scores.transition.length) };
    const decoder = meanFieldDecoder();
    const { labels } = decoder.decode({ scores: independent });
    const c = labellingConfidence(independent, labels, decoder, false, { marginals: true });
    const brute = bruteForceMarginals(independent);
    for (let k = 0; k < brute.length; k++)
      expect(close(c.marginals![k]!, brute[k]!, 1e-9)).toBe(true);
  });
});

describe("marginalMaps", () => {
  it("keeps labels at or above the threshold, most probable first", () => {
    const maps = marginalMaps(Float64Array.from([0.2, 0.7995, 0.0005, 1, 0, 0]), ["A", "B", "C"]);
    expect(maps).toEqual([{ B: 0.7995, A: 0.2 }, { A: 1 }]);
    expect(Object.keys(maps[0]!)).toEqual(["B", "A"]);
  });
});
