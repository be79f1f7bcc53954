import {
  factorGraph,
  patternFactor,
  scoreAssignment,
  unaryFactor,
} from "@lagrange/core/factor-graph";
import { bruteForceBest, randomFactorGraph } from "@lagrange/core/testing";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FactorGraphIlp } from "./factor-graph-ilp.js";
import { prepareIlp } from "./highs-runtime.js";

beforeAll(prepareIlp);

const close = (a: number, b: number) =>
  a === b || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

describe("factor-graph ILP (unary, pairwise and pattern factors)", () => {
  it("equals brute-force enumeration on random graphs, −∞ entries included", () => {
    const ilp = new FactorGraphIlp();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 30 }),
        fc.constantFrom(0, 0.15),
        (seed, forbidden) => {
          const graph = randomFactorGraph(seed, {
            variables: 2 + (seed % 5),
            maxDomain: 3,
            patterns: 1 + (seed % 3),
            maxArity: 3,
            forbiddenFraction: forbidden,
          });
          const truth = bruteForceBest(graph);
          const result = ilp.solve(graph);
          if (truth.score === Number.NEGATIVE_INFINITY) {
            expect(result.status).toBe("infeasible");
            return;
          }
          expect(result.status).toBe("optimal");
          expect(close(result.value, truth.score)).toBe(true);
          expect(close(scoreAssignment(graph, result.assignment!), truth.score)).toBe(true);
        },
      ),
      { numRuns: 100, seed: 20261124 },
    );
  });

  it("a pattern with a −∞ default forces one of its listed patterns", () => {
    const graph = factorGraph(
      [2, 2],
      [
        unaryFactor(0, [0, 5]),
        unaryFactor(1, [0, 5]),
        patternFactor({
          variables: [0, 1],
          patterns: [
            { assignment: [0, 1], score: 1 },
            { assignment: [1, 0], score: 2 },
          ],
          defaultScore: Number.NEGATIVE_INFINITY,
        }),
      ],
    );
    const result = new FactorGraphIlp().solve(graph);
    expect([...result.assignment!]).toEqual([1, 0]);
    expect(result.value).toBe(7);
  });
});
