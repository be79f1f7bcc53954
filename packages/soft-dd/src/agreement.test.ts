import { chainSlave, defineSlave, type Slave, solveDualDecomposition } from "@lagrange/core";
import { bruteForceBest, randomChainScores, randomConstraints } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hardDD, softDD } from "./soft-dd.js";

/**
 * A slave with no score of its own: its maximiser is a per-position argmax of the adjustment. Added
 * beside the chain it leaves the objective unchanged but sends the master down its multi-slave
 * path (agreement multipliers, majority vote, scoring by the slaves' own `score`).
 */
function silentSlave(n: number, L: number): Slave {
  const result = { labels: new Int32Array(n), value: 0 };
  return defineSlave({
    name: "silent",
    n,
    L,
    maximize(adjustment) {
      result.value = 0;
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++)
          if (adjustment[i * L + t]! > adjustment[i * L + best]!) best = t;
        result.labels[i] = best;
        result.value += adjustment[i * L + best]!;
      }
      return result;
    },
    score: () => 0,
  });
}

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
        const solution = softDD({ maxIterations: 300 }).decode({ scores, constraints });
        expect(Number.isNaN(solution.primal)).toBe(false);
        if (best.score === Number.NEGATIVE_INFINITY) {
          expect(solution.primal).toBe(Number.NEGATIVE_INFINITY);
          expect(solution.status).not.toBe("optimal");
          return;
        }
        expect(solution.dual).toBeGreaterThanOrEqual(best.score - 1e-7);
        if (solution.status === "optimal") expect(solution.primal).toBeCloseTo(best.score, 6);
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it("the master's one-slave path (Soft-DD) and its multi-slave path agree wherever both certify", () => {
    let both = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 30 }), fc.boolean(), (seed, allHard) => {
        const { n, L, scores, constraints } = instance(seed);
        const hard = allHard ? constraints.map(({ penalty: _, ...c }) => c) : constraints;
        const ours = (allHard ? hardDD() : softDD()).decode(
          { scores, constraints: hard },
          { maxIterations: 300 },
        );
        const theirs = solveDualDecomposition(
          {
            n,
            L,
            slaves: [{ slave: chainSlave(scores) }, { slave: silentSlave(n, L) }],
            constraints: hard,
          },
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
