import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateChainScores } from "../chain.js";
import { linearConstraint, validateConstraint } from "../constraints.js";
import { validateFactorGraph } from "../factor-graph.js";
import { createRandom, seededRandom } from "../random.js";
import {
  bruteForceBest,
  bruteForceCount,
  bruteForceKBest,
  bruteForceMarginals,
  forEachLabelling,
  MAX_ENUMERATED,
  randomChainScores,
  randomConstraints,
  randomFactorGraph,
} from "./index.js";

describe("seeded generators", () => {
  it("seededRandom is deterministic, in [0, 1), and seeds differ", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xs = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 100 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("generators give the same problem for the same seed, and valid problems", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 6);
        const L = random.int(1, 4);
        const options = { n, L, positionSpecific: true, startEnd: true, forbiddenFraction: 0.3 };
        const chain = randomChainScores(seed, options);
        expect(randomChainScores(seed, options)).toEqual(chain);
        validateChainScores(chain);
        const constraints = randomConstraints(seed, n, L, { count: 4 });
        expect(randomConstraints(seed, n, L, { count: 4 })).toEqual(constraints);
        constraints.forEach((c, k) => {
          validateConstraint(c, n, L, `constraints[${k}]`);
        });
        const graph = randomFactorGraph(seed, { variables: n, patterns: 3, maxArity: 4 });
        expect(randomFactorGraph(seed, { variables: n, patterns: 3, maxArity: 4 })).toEqual(graph);
        validateFactorGraph(graph);
        const int = random.int(-3, 3);
        expect(Number.isInteger(int) && int >= -3 && int <= 3).toBe(true);
      }),
      { numRuns: 300, seed: 31 },
    );
  });
});

describe("brute-force enumerators", () => {
  it("forEachLabelling visits every labelling once, lexicographically", () => {
    const seen: string[] = [];
    forEachLabelling([2, 1, 3], (y) => seen.push(y.join("")));
    expect(seen).toEqual(["000", "001", "002", "100", "101", "102"]);
    expect(() => forEachLabelling(new Int32Array(30).fill(2), () => {})).toThrow(
      new RegExp(`limit ${MAX_ENUMERATED}`),
    );
  });

  it("best, k-best, count and marginals agree with each other", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const graph = randomFactorGraph(random, {
          variables: random.int(1, 4),
          forbiddenFraction: 0.2,
        });
        const best = bruteForceBest(graph);
        const all = bruteForceKBest(graph, Number.MAX_SAFE_INTEGER);
        expect(all.length).toBe(bruteForceCount(graph));
        if (all.length === 0) {
          expect(best.labels).toBeNull();
          expect([...bruteForceMarginals(graph)].every((p) => p === 0)).toBe(true);
          return;
        }
        expect(best.score).toBe(all[0]!.score);
        for (let r = 1; r < all.length; r++)
          expect(all[r]!.score).toBeLessThanOrEqual(all[r - 1]!.score);
        const marginals = bruteForceMarginals(graph);
        let offset = 0;
        for (const d of graph.domainSizes) {
          let sum = 0;
          for (let x = 0; x < d; x++) sum += marginals[offset + x]!;
          expect(sum).toBeCloseTo(1, 9);
          offset += d;
        }
      }),
      { numRuns: 300, seed: 32 },
    );
  });

  it("constraints: hard ones exclude, soft ones subtract c·violation", () => {
    // Two tokens, two labels, all scores 0 except label 1 at token 0 (+3) and token 1 (+2).
    const space = {
      domainSizes: [2, 2],
      score: (y: Int32Array) => (y[0] === 1 ? 3 : 0) + (y[1] === 1 ? 2 : 0),
    };
    const atMostOne = (penalty?: number) =>
      linearConstraint({
        terms: [
          [1, 1],
          [3, 1],
        ],
        rhs: 1,
        ...(penalty === undefined ? {} : { penalty }),
      });
    expect(bruteForceBest(space).score).toBe(5);
    const hard = bruteForceBest(space, { constraints: [atMostOne()] });
    expect(hard).toEqual({ score: 3, labels: Int32Array.of(1, 0) });
    expect(bruteForceBest(space, { constraints: [atMostOne(1)] }).score).toBe(4);
    expect(bruteForceBest(space, { constraints: [atMostOne(5)] }).score).toBe(3);
    const impossible = linearConstraint({
      terms: [
        [0, 1],
        [1, 1],
      ],
      rhs: 0,
    });
    expect(bruteForceBest(space, { constraints: [impossible] })).toEqual({
      score: Number.NEGATIVE_INFINITY,
      labels: null,
    });
  });
});
