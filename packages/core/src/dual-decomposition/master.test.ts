import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { type ChainScores, scoreLabelling } from "../chain.js";
import { chainSlave } from "../chain-slave.js";
import { constraintPenalty, type LinearConstraint, linearConstraint } from "../constraints.js";
import { AbortError, lagrangeErrorCode, ProblemValidationError } from "../errors.js";
import { factorScore, type PatternFactor } from "../factor-graph.js";
import { createRandom, type Random } from "../random.js";
import { Deadline, defineSlave, type IterationStats, type Slave } from "../solver.js";
import {
  bruteForceBest,
  enumerationSlave,
  randomChainScores,
  randomConstraints,
} from "../testing/index.js";
import {
  DUAL_DECOMPOSITION_STEPS,
  DualDecomposition,
  type DualDecompositionOptions,
  type DualDecompositionProblem,
  type DualDecompositionSolution,
  solveDualDecomposition,
} from "./master.js";
import type { StepRule } from "./step-rule.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const TOLERANCE = 1e-6;

/** The chain restricted to positions [from, to) (start/end dropped). */
function chainWindow(scores: ChainScores, from: number, to: number): ChainScores {
  const { L } = scores;
  const LL = L * L;
  const shared = scores.transition.length === LL;
  return {
    n: to - from,
    L,
    unary: scores.unary.slice(from * L, to * L),
    transition: shared
      ? scores.transition
      : scores.transition.slice(from * LL, Math.max(from + 1, to - 1) * LL),
    ...(scores.allowed === undefined ? {} : { allowed: scores.allowed }),
  };
}

/** A slave that scores each position independently: maximize is a per-position argmax. */
function independentSlave(unary: Float64Array, n: number, L: number): Slave {
  const labels = new Int32Array(n);
  const result = { labels, value: 0 };
  return defineSlave({
    name: "independent",
    n,
    L,
    maximize: (adjustment) => {
      result.value = 0;
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++) {
          if (
            unary[i * L + t]! + adjustment[i * L + t]! >
            unary[i * L + best]! + adjustment[i * L + best]!
          )
            best = t;
        }
        labels[i] = best;
        result.value += unary[i * L + best]! + adjustment[i * L + best]!;
      }
      return result;
    },
    score: (y) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += unary[i * L + y[i]!]!;
      return s;
    },
  });
}

interface Instance {
  readonly problem: DualDecompositionProblem;
  /** The objective Σ_s score_s(y|P_s) of a global labelling, without constraints. */
  readonly score: (y: Int32Array) => number;
}

/** Random DD instances of three shapes, all with exact slaves. */
function randomInstance(random: Random, constraints: "none" | "hard" | "soft" | "mixed"): Instance {
  const n = random.int(1, 6);
  const L = random.int(1, 3);
  const shape = random.pick(["two-chains", "overlapping-windows", "chain+independent"] as const);
  const first = randomChainScores(random, {
    n,
    L,
    positionSpecific: random.bool(0.3),
    startEnd: random.bool(0.3),
    forbiddenFraction: random.pick([0, 0, 0.15]),
  });
  const second = randomChainScores(random, { n, L });
  const cs: LinearConstraint[] =
    constraints === "none"
      ? []
      : randomConstraints(random, n, L, {
          count: random.int(1, 3),
          hardFraction: constraints === "hard" ? 1 : constraints === "soft" ? 0 : 0.5,
        });
  const identity = (from: number, to: number) =>
    Int32Array.from({ length: to - from }, (_, j) => from + j);
  if (shape === "two-chains") {
    const a = chainSlave(first, "a");
    const b = chainSlave(second, "b");
    return {
      problem: { n, L, slaves: [{ slave: a }, { slave: b }], constraints: cs },
      score: (y) => a.score(y) + b.score(y),
    };
  }
  if (shape === "overlapping-windows") {
    const cut = random.int(0, n - 1);
    const end = random.int(cut, n - 1) + 1; // a covers [0, end), b covers [cut, n)
    const a = chainSlave(chainWindow(first, 0, end), "left");
    const b = chainSlave(chainWindow(second, cut, n), "right");
    return {
      problem: {
        n,
        L,
        slaves: [
          { slave: a, positions: identity(0, end) },
          { slave: b, positions: identity(cut, n) },
        ],
        constraints: cs,
      },
      score: (y) => a.score(y.subarray(0, end)) + b.score(y.subarray(cut)),
    };
  }
  const a = chainSlave(first, "chain");
  const b = independentSlave(second.unary, n, L);
  return {
    problem: { n, L, slaves: [{ slave: a }, { slave: b }], constraints: cs },
    score: (y) => a.score(y) + b.score(y),
  };
}

function exactOptimum(instance: Instance): number {
  const { n, L, constraints = [] } = instance.problem;
  return bruteForceBest(
    { domainSizes: new Int32Array(n).fill(L), score: instance.score },
    { constraints },
  ).score;
}

/** Soundness that holds for every run, certified or not. */
function checkSound(
  instance: Instance,
  solution: DualDecompositionSolution,
  optimum: number,
): void {
  const { L, constraints = [] } = instance.problem;
  expect(Number.isNaN(solution.primal)).toBe(false);
  expect(Number.isNaN(solution.dual)).toBe(false);
  if (solution.status === "infeasible") {
    expect(optimum).toBe(NEG_INF);
    expect(solution.primal).toBe(NEG_INF);
    return;
  }
  // The dual is an upper bound on the optimum.
  if (optimum > NEG_INF) expect(solution.dual).toBeGreaterThanOrEqual(optimum - 1e-7);
  // The primal is the true objective of the returned labels, and never above the optimum.
  if (solution.primal > NEG_INF) {
    const value =
      instance.score(solution.labels) - constraintPenalty(constraints, solution.labels, L);
    expect(value).toBeCloseTo(solution.primal, 9);
    expect(solution.primal).toBeLessThanOrEqual(optimum + 1e-9);
  }
  if (solution.status === "optimal") {
    expect(Math.abs(solution.primal - optimum)).toBeLessThanOrEqual(
      TOLERANCE * Math.max(1, Math.abs(optimum)),
    );
  }
}

function runProperty(
  constraints: "none" | "hard" | "soft" | "mixed",
  seed: number,
  stepRule?: StepRule,
  extra: DualDecompositionOptions = {},
  numRuns = 300,
) {
  let certified = 0;
  let feasible = 0;
  fc.assert(
    fc.property(fc.integer(), (s) => {
      const instance = randomInstance(createRandom(s), constraints);
      const optimum = exactOptimum(instance);
      const solution = solveDualDecomposition(instance.problem, {
        maxIterations: 200,
        tolerance: TOLERANCE,
        ...(stepRule === undefined ? {} : { stepRule }),
        ...extra,
      });
      checkSound(instance, solution, optimum);
      if (optimum > NEG_INF) feasible++;
      if (solution.status === "optimal") certified++;
    }),
    { numRuns, seed },
  );
  return { certified, feasible };
}

describe("dual decomposition master", () => {
  it("two exact slaves: certified ⇒ the brute-force optimum; the dual bounds it; most certify", () => {
    const { certified, feasible } = runProperty("none", 1);
    expect(certified / feasible).toBeGreaterThan(0.9);
  });

  it("hard constraints: certified ⇒ the constrained brute-force optimum", () => {
    const { certified, feasible } = runProperty("hard", 2);
    expect(certified / feasible).toBeGreaterThan(0.8);
  });

  it("soft constraints: certified ⇒ the brute-force optimum of score − Σ c·violation", () => {
    const { certified, feasible } = runProperty("soft", 3);
    expect(certified / feasible).toBeGreaterThan(0.85);
  });

  it("mixed hard and soft constraints, under every step rule", () => {
    const rules: StepRule[] = [
      { kind: "constant", size: 0.5 },
      { kind: "one-over-t" },
      { kind: "polyak", scale: 1 },
      { kind: "shrink-on-dual-increase", initial: 2 },
    ];
    rules.forEach((rule, r) => {
      const { certified, feasible } = runProperty("mixed", 10 + r, rule);
      expect(certified / feasible).toBeGreaterThan(0.7);
    });
  });

  it("one chain slave with constraints (the soft-DD shape): certified ⇒ optimum", () => {
    let certified = 0;
    let feasible = 0;
    fc.assert(
      fc.property(fc.integer(), (s) => {
        const random = createRandom(s);
        const n = random.int(1, 6);
        const L = random.int(1, 3);
        const scores = randomChainScores(random, { n, L, startEnd: random.bool() });
        const constraints = randomConstraints(random, n, L, {
          count: random.int(1, 3),
          hardFraction: 0.3,
        });
        const slave = chainSlave(scores);
        const instance: Instance = {
          problem: { n, L, slaves: [{ slave }], constraints },
          score: (y) => scoreLabelling(scores, y),
        };
        const optimum = exactOptimum(instance);
        const solution = solveDualDecomposition(instance.problem, { maxIterations: 200 });
        checkSound(instance, solution, optimum);
        if (optimum > NEG_INF) feasible++;
        if (solution.status === "optimal") certified++;
      }),
      { numRuns: 300, seed: 4 },
    );
    expect(certified / feasible).toBeGreaterThan(0.8);
  });

  it("a soft constraint with penalty 0 changes no label, bound, iteration or other multiplier", () => {
    // Penalty learning keeps templates at 0 in (one compiled matrix per sentence length).
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(...DUAL_DECOMPOSITION_STEPS), (s, step) => {
        const random = createRandom(s);
        const n = random.int(1, 6);
        const L = random.int(1, 3);
        const scores = randomChainScores(random, { n, L, startEnd: random.bool() });
        // From none: penalty learning's first epoch has every template at 0.
        const constraints = randomConstraints(random, n, L, {
          count: random.int(0, 3),
          hardFraction: 0.3,
        });
        const idle = randomConstraints(random, n, L, { count: random.int(1, 3) }).map((c) => ({
          ...c,
          penalty: 0,
        }));
        const at = random.int(0, constraints.length);
        const withIdle = [...constraints.slice(0, at), ...idle, ...constraints.slice(at)];
        const exact = step === "ad3" && random.bool();
        const solve = (cs: readonly LinearConstraint[]) =>
          new DualDecomposition({ step, exact, maxIterations: 60 }).solve({
            n,
            L,
            slaves: [{ slave: chainSlave(scores) }],
            constraints: cs,
          });
        const plain = solve(constraints);
        const padded = solve(withIdle);
        expect(Array.from(padded.labels)).toEqual(Array.from(plain.labels));
        expect(Object.is(padded.primal, plain.primal)).toBe(true);
        expect(Object.is(padded.dual, plain.dual)).toBe(true);
        expect(padded.iterations).toBe(plain.iterations);
        expect(padded.status).toBe(plain.status);
        const multipliers = padded.constraintStats.multipliers;
        const kept = [...multipliers.subarray(0, at), ...multipliers.subarray(at + idle.length)];
        expect(kept).toEqual(Array.from(plain.constraintStats.multipliers));
        expect(Array.from(multipliers.subarray(at, at + idle.length)).every((x) => x === 0)).toBe(
          true,
        );
      }),
      { numRuns: 200, seed: 57 },
    );
  });

  it("naive DD (qian-liu2014): a chain slave plus one slave per higher-order pattern factor", () => {
    let certified = 0;
    let feasible = 0;
    fc.assert(
      fc.property(fc.integer(), (s) => {
        const random = createRandom(s);
        const n = random.int(2, 6);
        const L = random.int(2, 3);
        const chain = chainSlave(randomChainScores(random, { n, L, startEnd: random.bool() }));
        const slaves: Array<{ slave: Slave; positions?: Int32Array }> = [{ slave: chain }];
        const factors: PatternFactor[] = [];
        for (let f = random.int(1, 3); f > 0; f--) {
          const arity = random.int(2, Math.min(3, n));
          const start = random.int(0, n - arity);
          // Distinct positions: a window, or a skip pattern when there is room.
          const variables = new Int32Array(arity);
          for (let j = 0; j < arity; j++) variables[j] = start + j;
          if (arity === 2 && start + 2 < n && random.bool()) variables[1] = start + 2;
          const patterns = Int32Array.from({ length: arity * 2 }, () => random.int(0, L - 1));
          if (patterns.subarray(0, arity).join() === patterns.subarray(arity).join()) {
            patterns[arity] = (patterns[arity]! + 1) % L;
          }
          const factor: PatternFactor = {
            kind: "pattern",
            variables,
            patterns,
            scores: Float64Array.of(random.float(-2, 2), random.float(-2, 2)),
            defaultScore: 0,
          };
          factors.push(factor);
          const local = new Int32Array(n);
          slaves.push({
            slave: enumerationSlave({
              name: `pattern ${f}`,
              n: arity,
              L,
              score: (y) => {
                for (let j = 0; j < arity; j++) local[variables[j]!] = y[j]!;
                return factorScore(factor, local, new Int32Array(n).fill(L));
              },
            }),
            positions: variables,
          });
        }
        const domains = new Int32Array(n).fill(L);
        const instance: Instance = {
          problem: { n, L, slaves },
          score: (y) =>
            chain.score(y) + factors.reduce((sum, f) => sum + factorScore(f, y, domains), 0),
        };
        const optimum = exactOptimum(instance);
        const solution = solveDualDecomposition(instance.problem, { maxIterations: 200 });
        checkSound(instance, solution, optimum);
        if (optimum > NEG_INF) feasible++;
        if (solution.status === "optimal") certified++;
      }),
      { numRuns: 300, seed: 6 },
    );
    expect(certified / feasible).toBeGreaterThan(0.8);
  });

  it("a single slave without constraints certifies at iteration 1", () => {
    const scores = randomChainScores(5, { n: 5, L: 3 });
    const solution = solveDualDecomposition({
      n: 5,
      L: 3,
      slaves: [{ slave: chainSlave(scores) }],
    });
    expect(solution.status).toBe("optimal");
    expect(solution.iterations).toBe(1);
    expect(solution.primal).toBe(solution.dual);
  });
});

describe("the AD3 step (Martins et al. 2015) over the same slaves and constraints", () => {
  // Sound in every run (the dual bounds the optimum, the primal is its labelling's objective, a
  // certificate is the optimum), and it certifies more often than the subgradient step.
  it("two exact slaves", () => {
    const { certified, feasible } = runProperty("none", 1, undefined, { step: "ad3" });
    expect(certified / feasible).toBeGreaterThan(0.95);
  });

  it("hard, soft and mixed constraints", () => {
    for (const [kind, seed] of [
      ["hard", 2],
      ["soft", 3],
      ["mixed", 10],
    ] as const) {
      const { certified, feasible } = runProperty(kind, seed, undefined, { step: "ad3" });
      expect(certified / feasible).toBeGreaterThan(0.85);
    }
  });

  it("exact mode: branch and bound certifies every feasible instance", () => {
    for (const [kind, seed] of [
      ["none", 21],
      ["mixed", 22],
    ] as const) {
      // Branch and bound certifies all or fails: a hundred instances tell as much as more.
      const { certified, feasible } = runProperty(
        kind,
        seed,
        undefined,
        { step: "ad3", exact: true },
        100,
      );
      expect(certified).toBe(feasible);
    }
  });

  it("a single slave without constraints certifies at iteration 1, as under subgradient", () => {
    const scores = randomChainScores(5, { n: 5, L: 3 });
    const solution = solveDualDecomposition(
      { n: 5, L: 3, slaves: [{ slave: chainSlave(scores) }] },
      { step: "ad3" },
    );
    expect(solution.status).toBe("optimal");
    expect(solution.iterations).toBe(1);
    expect(solution.primal).toBe(solution.dual);
  });

  it("a row no early labelling breaks joins when the relaxation's solution breaks it", () => {
    // Every position prefers label 0, then 1, then 2. Viterbi breaks only "at most one 0", so the
    // run starts with that row alone; its solution then puts 1 on two positions, which breaks
    // "at most one 1": that row must join for the run to reach the optimum (one label of each).
    const n = 3;
    const L = 3;
    const unary = new Float64Array(n * L);
    for (let i = 0; i < n; i++) unary.set([3 + i, 2, 0], i * L);
    const scores: ChainScores = { n, L, unary, transition: new Float64Array(L * L) };
    const atMostOne = (t: number) =>
      linearConstraint({ terms: [0, 1, 2].map((i) => [i * L + t, 1] as const), rhs: 1 });
    const constraints = [atMostOne(0), atMostOne(1)];
    const problem = { n, L, slaves: [{ slave: chainSlave(scores) }], constraints };
    const instance: Instance = {
      problem,
      score: (y) => scoreLabelling(scores, y) - constraintPenalty(constraints, y, L),
    };
    const optimum = exactOptimum(instance);
    const solution = solveDualDecomposition(problem, { step: "ad3" });
    checkSound(instance, solution, optimum);
    expect(solution.status).toBe("optimal");
    expect(solution.primal).toBeCloseTo(optimum, 9);
    expect([...solution.labels].sort()).toEqual([0, 1, 2]);
    expect(solution.constraintStats.firstViolated).toBe(1);
    expect(solution.constraintStats.multipliers[1]).toBeGreaterThan(0);
  });

  it("an unknown step is a clear error", () => {
    const scores = randomChainScores(5, { n: 2, L: 2 });
    expect(() =>
      solveDualDecomposition(
        { n: 2, L: 2, slaves: [{ slave: chainSlave(scores) }] },
        { step: "admm" as "ad3" },
      ),
    ).toThrow(/options\.step.*subgradient, ad3/);
  });
});

describe("the auto step: subgradient, then AD3 where the subgradient stalls uncertified", () => {
  it("certified ⇒ the brute-force optimum; it certifies every run the subgradient does, and more", () => {
    let stalled = 0;
    let rescued = 0;
    fc.assert(
      fc.property(fc.integer(), (s) => {
        const instance = randomInstance(createRandom(s), "mixed");
        const optimum = exactOptimum(instance);
        // A short stall window, so that the subgradient step gives up often.
        const options = { maxIterations: 200, tolerance: TOLERANCE, stallIterations: 3 };
        const alone = solveDualDecomposition(instance.problem, { ...options, step: "subgradient" });
        const auto = solveDualDecomposition(instance.problem, { ...options, step: "auto" });
        checkSound(instance, auto, optimum);
        if (alone.status !== "converged") {
          // Nothing to go on with: the very run the subgradient step makes.
          expect(auto.labels).toEqual(alone.labels);
          expect(auto.status).toBe(alone.status);
          return;
        }
        stalled++;
        expect(auto.iterations).toBeGreaterThan(alone.iterations);
        // AD3 starts from the bounds the subgradient reached: never a worse labelling or bound.
        expect(auto.primal).toBeGreaterThanOrEqual(alone.primal);
        expect(auto.dual).toBeLessThanOrEqual(alone.dual);
        if (auto.status === "optimal") rescued++;
      }),
      { numRuns: 300, seed: 31 },
    );
    expect(stalled).toBeGreaterThan(0);
    expect(rescued).toBeGreaterThan(0);
  });
});

describe("edge cases", () => {
  const chain = (n: number, L: number, seed = 1) => chainSlave(randomChainScores(seed, { n, L }));

  it("n = 1 and L = 1", () => {
    for (const [n, L] of [
      [1, 1],
      [1, 3],
      [4, 1],
    ] as const) {
      const a = chain(n, L, 1);
      const b = chain(n, L, 2);
      const solution = solveDualDecomposition({ n, L, slaves: [{ slave: a }, { slave: b }] });
      const optimum = bruteForceBest({
        domainSizes: new Int32Array(n).fill(L),
        score: (y) => a.score(y) + b.score(y),
      }).score;
      expect(solution.status).toBe("optimal");
      expect(solution.primal).toBeCloseTo(optimum, 9);
    }
  });

  it("all transitions forbidden: status infeasible, −∞, never NaN", () => {
    const blocked: ChainScores = {
      n: 3,
      L: 2,
      unary: new Float64Array(6),
      transition: new Float64Array(4),
      allowed: new Uint8Array(4),
    };
    const solution = solveDualDecomposition({
      n: 3,
      L: 2,
      slaves: [{ slave: chainSlave(blocked) }, { slave: chain(3, 2) }],
      constraints: [linearConstraint({ terms: [[0, 1]], rhs: 0, penalty: 1 })],
    });
    expect(solution.status).toBe("infeasible");
    expect(solution.primal).toBe(NEG_INF);
    expect(solution.dual).toBe(NEG_INF);
    expect(solution.labels).toHaveLength(3);
  });

  it("a hard constraint no labelling meets: infeasible before any iteration", () => {
    const solution = solveDualDecomposition({
      n: 2,
      L: 2,
      slaves: [{ slave: chain(2, 2) }],
      // label 0 and label 1 at position 0 together at least twice: impossible one-hot.
      constraints: [
        linearConstraint({
          terms: [
            [0, -1],
            [1, -1],
          ],
          rhs: -2,
        }),
      ],
    });
    expect(solution.status).toBe("infeasible");
    expect(solution.iterations).toBe(0);
  });

  it("empty input and malformed problems are clear errors", () => {
    const slave = chain(3, 2);
    const bad = (problem: DualDecompositionProblem) => () => solveDualDecomposition(problem);
    expect(bad({ n: 0, L: 2, slaves: [] })).toThrow(
      /problem\.n: expected an integer ≥ 1 \(an empty sequence/,
    );
    expect(bad({ n: 3, L: 2, slaves: [] })).toThrow(/problem\.slaves: expected at least one slave/);
    expect(bad({ n: 3, L: 3, slaves: [{ slave }] })).toThrow(/slaves\[0\]\.slave\.L/);
    expect(bad({ n: 4, L: 2, slaves: [{ slave }] })).toThrow(
      /slaves\[0\]\.positions: slave "chain" labels 3 positions/,
    );
    expect(bad({ n: 4, L: 2, slaves: [{ slave, positions: Int32Array.of(0, 1, 4) }] })).toThrow(
      /positions\[2\]: expected a position in 0\.\.3/,
    );
    expect(bad({ n: 4, L: 2, slaves: [{ slave, positions: Int32Array.of(0, 1, 1) }] })).toThrow(
      /appears twice/,
    );
    expect(bad({ n: 4, L: 2, slaves: [{ slave, positions: Int32Array.of(0, 1, 2) }] })).toThrow(
      /position 3 is covered by no slave/,
    );
    expect(
      bad({
        n: 3,
        L: 2,
        slaves: [{ slave }],
        constraints: [linearConstraint({ terms: [[6, 1]], rhs: 0 })],
      }),
    ).toThrow(/problem\.constraints\[0\]\.indices\[0\]/);
    expect(() =>
      solveDualDecomposition({ n: 3, L: 2, slaves: [{ slave }] }, { maxIterations: 0 }),
    ).toThrow(ProblemValidationError);
    // 1e308 is an integer too: a run that never ends in practice.
    expect(() =>
      solveDualDecomposition({ n: 3, L: 2, slaves: [{ slave }] }, { maxIterations: 1e308 }),
    ).toThrow(/options\.maxIterations: expected an integer from 1 to 2147483647/);
    expect(() =>
      solveDualDecomposition(
        { n: 3, L: 2, slaves: [{ slave }] },
        { stepRule: { kind: "constant", size: -1 } },
      ),
    ).toThrow(/options\.stepRule/);
  });

  it("a slave returning NaN is reported by name", () => {
    const broken = defineSlave({
      name: "broken",
      n: 2,
      L: 2,
      maximize: () => ({ labels: new Int32Array(2), value: Number.NaN }),
      score: () => 0,
    });
    for (const step of ["subgradient", "ad3"] as const) {
      let caught: unknown;
      try {
        solveDualDecomposition({ n: 2, L: 2, slaves: [{ slave: broken }] }, { step });
      } catch (error) {
        caught = error;
      }
      expect(lagrangeErrorCode(caught)).toBe("bad-input");
      expect((caught as Error).message).toMatch(/slave "broken" returned NaN/);
    }
  });
});

describe("control", () => {
  /** Two chains that disagree for a while, so runs last several iterations. */
  const hardPair = () => {
    const random = createRandom(99);
    const a = chainSlave(randomChainScores(random, { n: 6, L: 3 }));
    const b = chainSlave(randomChainScores(random, { n: 6, L: 3 }));
    return { n: 6, L: 3, slaves: [{ slave: a }, { slave: b }] };
  };

  it("onIteration sees a non-increasing best gap and can stop the run", () => {
    const seen: IterationStats[] = [];
    const solution = solveDualDecomposition(hardPair(), {
      onIteration: (stats) => {
        seen.push(stats);
        return stats.iteration < 2 ? undefined : false;
      },
    });
    expect(seen.length).toBe(solution.iterations);
    expect(seen.length).toBeLessThanOrEqual(3);
    seen.forEach((stats, k) => {
      expect(stats.iteration).toBe(k + 1);
      expect(stats.gap).toBeGreaterThanOrEqual(0);
      expect(stats.dual).toBeGreaterThanOrEqual(stats.primal);
      // Best dual only falls and best primal only rises, so the gap never grows.
      if (k > 0) expect(stats.gap).toBeLessThanOrEqual(seen[k - 1]!.gap);
    });
    if (solution.status !== "optimal") expect(solution.status).toBe("iteration-limit");

    // A longer run on random instances: the reported best gap never grows.
    fc.assert(
      fc.property(fc.integer(), (s) => {
        const gaps: number[] = [];
        solveDualDecomposition(randomInstance(createRandom(s), "mixed").problem, {
          maxIterations: 40,
          onIteration: (stats) => {
            gaps.push(stats.gap);
          },
        });
        for (let k = 1; k < gaps.length; k++) expect(gaps[k]).toBeLessThanOrEqual(gaps[k - 1]!);
      }),
      { numRuns: 100, seed: 8 },
    );
  });

  it("an aborted signal throws AbortError", () => {
    const controller = new AbortController();
    controller.abort();
    expect(() => solveDualDecomposition(hardPair(), { signal: controller.signal })).toThrow(
      AbortError,
    );
    let calls = 0;
    const later = new AbortController();
    expect(() =>
      solveDualDecomposition(hardPair(), {
        signal: later.signal,
        tolerance: 0,
        stepRule: { kind: "constant", size: 1e-3 },
        onIteration: () => {
          if (++calls === 3) later.abort();
        },
      }),
    ).toThrow(AbortError);
    expect(calls).toBe(3);
  });

  it("the iteration cap keeps the best primal; a slave sees the same adjustment buffer every iteration", () => {
    const buffers = new Set<Float64Array>();
    const inner = chainSlave(randomChainScores(7, { n: 6, L: 3 }));
    const watched = defineSlave({
      name: "watched",
      n: 6,
      L: 3,
      maximize: (adjustment) => {
        buffers.add(adjustment);
        return inner.maximize(adjustment);
      },
      score: inner.score,
    });
    const other = chainSlave(randomChainScores(8, { n: 6, L: 3 }));
    const solution = solveDualDecomposition(
      { n: 6, L: 3, slaves: [{ slave: watched }, { slave: other }] },
      { maxIterations: 3, tolerance: 0, stepRule: { kind: "constant", size: 1e-4 } },
    );
    expect(buffers.size).toBe(1);
    expect(solution.status).toBe("iteration-limit");
    expect(solution.iterations).toBe(3);
    expect(solution.primal).toBeCloseTo(
      watched.score(solution.labels) + other.score(solution.labels),
      9,
    );
  });

  it("a master's default options merge with per-call ones", () => {
    const solver = new DualDecomposition({ maxIterations: 2, tolerance: 0 });
    expect(solver.name).toBe("dual-decomposition");
    const capped = solver.solve(hardPair(), { stepRule: { kind: "constant", size: 1e-4 } });
    expect(capped.iterations).toBeLessThanOrEqual(2);
    const longer = solver.solve(hardPair(), { maxIterations: 200, tolerance: 1e-6 });
    expect(longer.iterations).toBeGreaterThanOrEqual(capped.iterations);
  });

  it("soft constraint multipliers stay in [0, c], hard ones ≥ 0", () => {
    fc.assert(
      fc.property(fc.integer(), (s) => {
        const instance = randomInstance(createRandom(s), "mixed");
        const solution = solveDualDecomposition(instance.problem, { maxIterations: 50 });
        const { constraints = [] } = instance.problem;
        constraints.forEach((c, k) => {
          const l = solution.constraintStats.multipliers[k]!;
          expect(l).toBeGreaterThanOrEqual(0);
          if (c.penalty !== undefined) expect(l).toBeLessThanOrEqual(c.penalty);
        });
      }),
      { numRuns: 100, seed: 5 },
    );
  });
});

describe("fallback answers", () => {
  it("a labelling a slave forbids is never returned as the least-violating one", () => {
    // A prefers label 1 everywhere; B forbids label 1 at position 0; a hard rule wants label 1
    // everywhere: jointly infeasible, and the majority vote [1, 1] is one B forbids.
    const a = chainSlave({
      n: 2,
      L: 2,
      unary: Float64Array.of(0, 3, 0, 3),
      transition: new Float64Array(4),
    });
    const b = defineSlave({
      name: "no-1-first",
      n: 2,
      L: 2,
      maximize: (adjustment) => {
        const labels = Int32Array.of(0, adjustment[3]! > adjustment[2]! ? 1 : 0);
        return { labels, value: adjustment[0]! + adjustment[2 + labels[1]!]! };
      },
      score: (y) => (y[0] === 1 ? NEG_INF : 0),
    });
    const solution = solveDualDecomposition(
      {
        n: 2,
        L: 2,
        slaves: [{ slave: a }, { slave: b }],
        constraints: [
          linearConstraint({
            terms: [
              [0, 1],
              [2, 1],
            ],
            rhs: 0,
          }),
        ],
      },
      { maxIterations: 20 },
    );
    expect(solution.status).not.toBe("optimal");
    expect(solution.primal).toBe(NEG_INF);
    expect(solution.labels[0]).toBe(0);
    expect(solution.constraintStats.hardViolated).toBeGreaterThan(0);
  });
});

describe("the sentence's deadline", () => {
  /** A slave that spends `ms` of the (fake) clock on every call, around an exact chain. */
  function slowChain(scores: ChainScores, ms: number, name: string): Slave {
    const chain = chainSlave(scores, name);
    return defineSlave({
      name,
      n: scores.n,
      L: scores.L,
      maximize: (adjustment) => {
        vi.advanceTimersByTime(ms);
        return chain.maximize(adjustment);
      },
      score: (y) => chain.score(y),
    });
  }

  /** Two disagreeing chains and hard constraints: no certificate comes early at any step. */
  function hardInstance(seed: number): DualDecompositionProblem {
    const random = createRandom(seed);
    const n = 6;
    const L = 3;
    const a = randomChainScores(random, { n, L });
    const b = randomChainScores(random, { n, L });
    return {
      n,
      L,
      slaves: [{ slave: slowChain(a, 10, "a") }, { slave: slowChain(b, 10, "b") }],
      constraints: randomConstraints(random, n, L, { count: 3, hardFraction: 0.5 }),
    };
  }

  it("stops every step within an iteration of the limit, AD3's branch and bound included (fake clock)", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const steps: DualDecompositionOptions[] = [
        { step: "subgradient" },
        { step: "ad3" },
        { step: "ad3", exact: true },
      ];
      let limited = 0;
      for (let seed = 0; seed < 20; seed++) {
        for (const step of steps) {
          const started = performance.now();
          const solution = solveDualDecomposition(hardInstance(seed), {
            ...step,
            maxIterations: 100_000,
            timeLimitMs: 200,
          });
          const spent = performance.now() - started;
          // Past the limit by at most the iteration under way: its slave calls (AD3's MAP pass and
          // active-set projections call each slave a few times; 50 ms measured, 5 calls).
          expect(spent, JSON.stringify(step)).toBeLessThanOrEqual(200 + 10 * 10);
          expect(["optimal", "time-limit", "converged", "infeasible"]).toContain(solution.status);
          if (solution.status === "time-limit") {
            limited++;
            expect(solution.certified).toBe(false);
          }
        }
      }
      expect(limited).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a deadline the caller shares wins over the time limit, and an expired one still returns the first labelling", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.constantFrom("subgradient", "ad3"),
        fc.boolean(),
        (s, step, exact) => {
          const instance = randomInstance(createRandom(s), "mixed");
          const optimum = exactOptimum(instance);
          const solution = solveDualDecomposition(instance.problem, {
            step,
            ...(step === "ad3" ? { exact } : {}),
            timeLimitMs: 1e9,
            deadline: Deadline.in(0),
          });
          checkSound(instance, solution, optimum);
          expect(["optimal", "infeasible", "time-limit", "converged"]).toContain(solution.status);
          if (step === "subgradient") expect(solution.iterations).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 200, seed: 42 },
    );
  });
});
