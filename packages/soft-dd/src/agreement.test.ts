import { chainSlave, solveDualDecomposition } from "@lagrange/core";
import { bruteForceBest, randomChainScores, randomConstraints } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hardDD, softDD } from "./soft-dd.ts";

/** Instances from core's seeded generators (a second, independent source of random problems). */
function instance(seed: number) {
  const n = 1 + (seed % 5);
  const L = 2 + ((seed >>> 3) % 3);
  const scores = randomChainScores(seed, { n, L, startEnd: true, forbiddenFraction: 0.1 });
  const constraints = randomConstraints(seed + 1, n, L, { count: 1 + ((seed >>> 5) % 4) });
  return { n, L, scores, constraints };
}

describe("agreement with core's oracle and generic DD master", () => {
  it("certified Soft-DD equals core's constrained brute force (hard and soft mixed)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 30 }), (seed) => {
        const { scores, constraints } = instance(seed);
        const best = bruteForceBest(scores, { constraints });
        const solution = softDD().solve(
          { slave: chainSlave(scores), constraints },
          { maxIterations: 300 },
        );
        expect(Number.isNaN(solution.primal)).toBe(false);
        if (best.score === Number.NEGATIVE_INFINITY) {
          expect(solution.status).toBe("infeasible");
          return;
        }
        expect(solution.dual).toBeGreaterThanOrEqual(best.score - 1e-7);
        if (solution.status === "optimal") expect(solution.primal).toBeCloseTo(best.score, 6);
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it("Soft-DD and core's multi-slave DD agree wherever both certify", () => {
    let both = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 30 }), fc.boolean(), (seed, allHard) => {
        const { n, L, scores, constraints } = instance(seed);
        const hard = allHard ? constraints.map(({ penalty: _, ...c }) => c) : constraints;
        const ours = (allHard ? hardDD() : softDD()).solve(
          { slave: chainSlave(scores), constraints: hard },
          { maxIterations: 300 },
        );
        const theirs = solveDualDecomposition(
          { n, L, slaves: [{ slave: chainSlave(scores) }], constraints: hard },
          { maxIterations: 300 },
        );
        if (ours.status === "optimal" && theirs.status === "optimal") {
          both++;
          expect(ours.primal).toBeCloseTo(theirs.primal, 6);
        }
      }),
      { numRuns: 300, seed: 9 },
    );
    expect(both).toBeGreaterThan(100);
  });
});
