import { AbortError, type LinearConstraint, linearConstraint, type Slave } from "@lagrange/core";
import {
  constraintEffects,
  DualDecomposition,
  type DualDecompositionOptions,
} from "@lagrange/core/dual-decomposition";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { constrainedObjective, hardDDPolicy, softDDMaster, softDDPolicy } from "./soft-dd.js";
import {
  bruteForce,
  randomChain,
  randomConstraints,
  randomInt,
  rng,
  viterbiSlave,
} from "./testing/random-problems.js";

interface ConstrainedProblem {
  readonly slave: Slave;
  readonly constraints: readonly LinearConstraint[];
}

/** Soft-DD (or hard DD) over one given slave: the shape of anzaroot2014's experiments. */
function solver(policy: DualDecompositionOptions = softDDPolicy()) {
  const master = new DualDecomposition(policy);
  return {
    solve: (problem: ConstrainedProblem, options: DualDecompositionOptions = {}) =>
      master.solve(
        {
          n: problem.slave.n,
          L: problem.slave.L,
          slaves: [{ slave: problem.slave }],
          constraints: problem.constraints,
        },
        options,
      ),
  };
}
const softDD = (options: Parameters<typeof softDDPolicy>[0] = {}) => solver(softDDPolicy(options));
const hardDD = () => solver(hardDDPolicy());
const objective = (problem: ConstrainedProblem, y: ArrayLike<number>, mode?: "hard") =>
  constrainedObjective(problem.slave, problem.constraints, y, mode === undefined ? {} : { mode });

function randomProblem(seed: number, hardShare: number, maskDensity = 0): ConstrainedProblem {
  const random = rng(seed);
  const n = randomInt(random, 1, 5);
  const L = randomInt(random, 2, n <= 3 ? 4 : 3);
  const chain = randomChain(random, n, L, maskDensity);
  const constraints = randomConstraints(random, n, L, randomInt(random, 0, 5), hardShare);
  return { slave: viterbiSlave(chain), constraints };
}

const EPS = 1e-7;

describe("softDD (Algorithm 2)", () => {
  it("a certified solution is the brute-force optimum of score − Σ c·max(0, a·y − b)", () => {
    const solver = softDD();
    let certified = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0);
        const { n, L } = problem.slave;
        const best = bruteForce(n, L, (y) => objective(problem, y));
        const solution = solver.solve(problem, { maxIterations: 300 });
        runs++;
        expect(Number.isNaN(solution.primal)).toBe(false);
        expect(Number.isNaN(solution.dual)).toBe(false);
        // Soft constraints never make a problem infeasible: every iterate is a primal candidate.
        expect(solution.status).not.toBe("infeasible");
        expect(objective(problem, solution.labels)).toBeCloseTo(solution.primal, 9);
        // Weak duality: primal ≤ optimum ≤ dual, whatever the status.
        expect(solution.primal).toBeLessThanOrEqual(best.value + EPS);
        expect(solution.dual).toBeGreaterThanOrEqual(best.value - EPS);
        if (solution.status === "optimal") {
          certified++;
          expect(solution.primal).toBeCloseTo(best.value, 6);
          expect(solution.certified).toBe(true);
        }
      }),
      { numRuns: 400, seed: 20140601 },
    );
    // Random integer programs can have a duality gap; most still certify.
    expect(certified / runs).toBeGreaterThan(0.5);
  });

  it("keeps the best primal when stopped early and reports an honest gap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0);
        const { n, L } = problem.slave;
        const best = bruteForce(n, L, (y) => objective(problem, y));
        const solution = softDD().solve(problem, { maxIterations: 2 });
        expect(solution.iterations).toBeLessThanOrEqual(2);
        expect(solution.gap).toBeGreaterThanOrEqual(0);
        expect(solution.primal + solution.gap).toBeGreaterThanOrEqual(best.value - EPS);
        if (solution.status !== "optimal") expect(solution.status).toBe("iteration-limit");
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it("stops a stalled run early as `converged`, never with a certificate it does not have", () => {
    let stalled = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0);
        const { n, L } = problem.slave;
        const full = softDD({ stallIterations: 0 }).solve(problem, { maxIterations: 300 });
        const early = softDD().solve(problem, { maxIterations: 300 });
        if (full.status === "optimal") {
          expect(full.iterations).toBeLessThan(300);
          return;
        }
        expect(full.iterations).toBe(300);
        expect(early.status).not.toBe("optimal");
        if (early.status === "converged") {
          stalled++;
          expect(early.iterations).toBeLessThan(300);
          const best = bruteForce(n, L, (y) => objective(problem, y));
          expect(early.primal).toBeLessThanOrEqual(best.value + EPS);
          expect(early.dual).toBeGreaterThanOrEqual(best.value - EPS);
        }
      }),
      { numRuns: 300, seed: 31 },
    );
    expect(stalled).toBeGreaterThan(0);
  });

  it("with all penalties zero returns plain Viterbi after one slave call", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const random = rng(seed);
        const n = randomInt(random, 1, 6);
        const L = randomInt(random, 2, 4);
        const slave = viterbiSlave(randomChain(random, n, L));
        const constraints = randomConstraints(random, n, L, 4, 0).map((c) =>
          linearConstraint({
            terms: [...c.indices].map((i, k) => [i, c.coefficients[k]!]),
            rhs: c.rhs,
            penalty: 0,
          }),
        );
        const viterbi = slave.maximize(new Float64Array(n * L)).labels.slice();
        const solution = softDD().solve({ slave, constraints });
        expect(solution.iterations).toBe(1);
        expect(solution.status).toBe("optimal");
        expect([...solution.labels]).toEqual([...viterbi]);
      }),
      { numRuns: 100, seed: 3 },
    );
  });

  it("a singleton constraint keeps only the strongest occurrence of a label", () => {
    // Unary scores prefer label 1 everywhere; "label 1 at most once" with a large penalty.
    const n = 4;
    const L = 2;
    const unary = Float64Array.from([0, 1, 0, 3, 0, 2, 0, 0.5]);
    const slave = viterbiSlave({ n, L, unary, transition: new Float64Array(L * L) });
    const atMostOnce = linearConstraint({
      terms: Array.from({ length: n }, (_, i) => [i * L + 1, 1] as const),
      rhs: 1,
      penalty: 10,
      name: "label 1 at most once",
    });
    const solution = softDD().solve({ slave, constraints: [atMostOnce] });
    expect([...solution.labels]).toEqual([0, 1, 0, 0]);
    expect(solution.primal).toBeCloseTo(3, 12);
    expect(solution.status).toBe("optimal");
    expect(solution.iterations).toBeGreaterThan(1);
    expect(solution.constraintStats.firstViolated).toBe(1);
    expect([...solution.constraintStats.firstLabels]).toEqual([1, 1, 1, 1]);
    expect(solution.constraintStats.violated).toBe(0);
    expect(solution.constraintStats.multipliers[0]).toBeGreaterThan(0);
    expect(constraintEffects([atMostOnce], solution, L)).toEqual([
      {
        index: 0,
        name: "label 1 at most once",
        violationBefore: 3,
        violationAfter: 0,
        multiplier: solution.constraintStats.multipliers[0],
      },
    ]);
  });

  it("a cheap soft constraint is left violated when obeying it costs more than its penalty", () => {
    const n = 3;
    const L = 2;
    const unary = Float64Array.from([0, 2, 0, 2, 0, 2]);
    const slave = viterbiSlave({ n, L, unary, transition: new Float64Array(L * L) });
    const constraint = linearConstraint({
      terms: Array.from({ length: n }, (_, i) => [i * L + 1, 1] as const),
      rhs: 1,
      penalty: 0.5,
    });
    const solution = softDD().solve({ slave, constraints: [constraint] });
    expect([...solution.labels]).toEqual([1, 1, 1]);
    expect(solution.primal).toBeCloseTo(6 - 0.5 * 2, 12);
    expect(solution.status).toBe("optimal");
    expect(solution.constraintStats.violated).toBe(1);
  });

  it("passes the slave one reused adjustment buffer", () => {
    const random = rng(11);
    const inner = viterbiSlave(randomChain(random, 5, 3));
    const seen = new Set<Float64Array>();
    const spy: Slave = {
      ...inner,
      maximize: (adj) => {
        seen.add(adj);
        return inner.maximize(adj);
      },
    };
    const constraints = randomConstraints(random, 5, 3, 6, 0);
    const solution = softDD().solve({ slave: spy, constraints }, { maxIterations: 50 });
    expect(solution.iterations).toBeGreaterThan(0);
    expect(seen.size).toBe(1);
  });

  it("stops when onIteration returns false and throws AbortError on an aborted signal", () => {
    // Label 0 is best everywhere, but a hard rule forbids it at positions 0 and 1: a tiny
    // constant step keeps λ too small to move the slave for many iterations.
    const n = 4;
    const L = 3;
    const unary = Float64Array.from({ length: n * L }, (_, j) => (j % L === 0 ? 5 : 0));
    const slave = viterbiSlave({ n, L, unary, transition: new Float64Array(L * L) });
    const strict = linearConstraint({
      terms: [
        [0, 1],
        [3, 1],
      ],
      rhs: 0,
    });
    const calls: number[] = [];
    const solution = solver({
      ...softDDPolicy(),
      stepRule: { kind: "constant", size: 1e-6 },
    }).solve(
      { slave, constraints: [strict] },
      {
        maxIterations: 100,
        onIteration: (s) => {
          calls.push(s.iteration);
          return s.iteration < 3;
        },
      },
    );
    expect(calls).toEqual([1, 2, 3]);
    expect(solution.iterations).toBe(3);
    expect(solution.status).toBe("iteration-limit");
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      softDD().solve({ slave, constraints: [strict] }, { signal: controller.signal }),
    ).toThrow(AbortError);
  });

  it("recompiles a constraint array that was refilled between solves", () => {
    const solver = softDD();
    const reused: LinearConstraint[] = [];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0);
        reused.length = 0;
        reused.push(...problem.constraints);
        const viaReused = solver.solve({ slave: problem.slave, constraints: reused });
        const viaFresh = softDD().solve({ ...problem, constraints: [...problem.constraints] });
        expect(viaReused.primal).toBe(viaFresh.primal);
        expect([...viaReused.labels]).toEqual([...viaFresh.labels]);
      }),
      { numRuns: 100, seed: 21 },
    );
  });

  it("rejects malformed constraints with a message naming the field", () => {
    const slave = viterbiSlave(randomChain(rng(1), 2, 2));
    const bad = linearConstraint({ terms: [[9, 1]], rhs: 0, penalty: 1 });
    expect(() => softDD().solve({ slave, constraints: [bad] })).toThrow(
      /constraints\[0\]\.indices/,
    );
    expect(() =>
      softDDMaster({ stepRule: { kind: "shrink-on-dual-increase", initial: 0 } }),
    ).toThrow(/stepRule\.initial/);
  });

  it("a warm start from the final multipliers reaches the same objective", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0);
        const cold = softDD().solve(problem);
        fc.pre(cold.status === "optimal");
        const warm = softDD().solve(problem, {
          initialMultipliers: cold.constraintStats.multipliers,
        });
        expect(warm.status).toBe("optimal");
        expect(warm.primal).toBeCloseTo(cold.primal, 6);
      }),
      { numRuns: 100, seed: 99 },
    );
  });
});

describe("hardDD (Algorithm 1)", () => {
  it("a certified solution equals the constrained brute force; infeasible is never certified", () => {
    let certified = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0.5);
        const { n, L } = problem.slave;
        const best = bruteForce(n, L, (y) => objective(problem, y, "hard"));
        const solution = hardDD().solve(problem, { maxIterations: 300 });
        runs++;
        expect(Number.isNaN(solution.primal)).toBe(false);
        expect(Number.isNaN(solution.dual)).toBe(false);
        if (best.value === Number.NEGATIVE_INFINITY) {
          // Nothing feasible exists: never certified; the least-violating labelling comes back.
          expect(solution.status).not.toBe("optimal");
          expect(solution.primal).toBe(Number.NEGATIVE_INFINITY);
          expect(solution.constraintStats.hardViolated).toBeGreaterThan(0);
          return;
        }
        // "infeasible" is a proof, never claimed for a feasible problem.
        expect(solution.status).not.toBe("infeasible");
        expect(solution.dual).toBeGreaterThanOrEqual(best.value - EPS);
        if (solution.primal > Number.NEGATIVE_INFINITY) {
          expect(solution.constraintStats.hardViolated).toBe(0);
          expect(solution.primal).toBeLessThanOrEqual(best.value + EPS);
        }
        if (solution.status === "optimal") {
          certified++;
          expect(solution.primal).toBeCloseTo(best.value, 6);
          expect(objective(problem, solution.labels, "hard")).toBeCloseTo(best.value, 6);
        }
      }),
      { numRuns: 400, seed: 20140602 },
    );
    expect(certified / runs).toBeGreaterThan(0.4);
  });

  it("reports a slave with no labelling at all (every path masked) as infeasible", () => {
    const n = 3;
    const L = 2;
    const slave = viterbiSlave({
      n,
      L,
      unary: new Float64Array(n * L),
      transition: new Float64Array(L * L),
      allowed: new Uint8Array(L * L),
    });
    const solution = softDD().solve({ slave, constraints: [] });
    expect(solution.status).toBe("infeasible");
    expect(solution.primal).toBe(Number.NEGATIVE_INFINITY);
  });

  it("handles transition masks: certified answers equal the brute force over allowed paths", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const problem = randomProblem(seed, 0.3, 0.3);
        const { n, L } = problem.slave;
        const best = bruteForce(n, L, (y) => objective(problem, y));
        const solution = softDD().solve(problem, { maxIterations: 300 });
        expect(Number.isNaN(solution.primal)).toBe(false);
        if (best.value === Number.NEGATIVE_INFINITY) expect(solution.primal).toBe(-Infinity);
        else expect(solution.status).not.toBe("infeasible");
        if (solution.status === "optimal") expect(solution.primal).toBeCloseTo(best.value, 6);
      }),
      { numRuns: 200, seed: 1234 },
    );
  });
});
