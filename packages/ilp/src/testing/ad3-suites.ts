/**
 * HiGHS referees core's AD3 engine (issue 29), as suites the unit tier runs a few hundred times
 * (`ad3-referee.test.ts`) and the integration tier thousands of times (`ad3-referee.slow.test.ts`):
 * - on random small binary factor graphs (logic factors with random negations, PAIR, DENSE,
 *   knapsack and linear constraints, multi-valued variables as one-hot blocks), AD3's dual never
 *   goes below the local-polytope LP value HiGHS finds and, once the run has converged, equals it;
 *   a certificate is never wrong against HiGHS's ILP optimum; exact mode (branch and bound)
 *   always finds that optimum;
 * - the same certificates for the positions master (`step: "ad3"`: two chains and linear
 *   constraints) against the chain ILP decoder, which solves the same constrained problem.
 * Test support only (not built, not published).
 */
import {
  type ChainScores,
  chainSlave,
  createRandom,
  type LinearConstraint,
  type Random,
  solveDualDecomposition,
} from "@lagrange/core";
import { solveBinaryProblem } from "@lagrange/core/dual-decomposition";
import { randomChainScores, randomConstraints } from "@lagrange/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainIlp } from "../chain-ilp.js";
import { prepareIlp } from "../highs-runtime.js";
import {
  binaryProblem,
  bruteForce,
  LocalPolytopeReferee,
  randomBinaryInstance,
  scoreAssignment,
} from "./ad3-referee.js";

/** fast-check runs per property. */
export interface RefereeRuns {
  readonly selfCheck: number;
  readonly converged: number;
  readonly certificates: number;
  readonly exact: number;
  readonly positionsCertificates: number;
  readonly positionsExact: number;
}

const NEG_INF = Number.NEGATIVE_INFINITY;
const relative = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
/** How far below a bound a value may lie and still count as meeting it (HiGHS's own tolerances). */
const slack = (value: number) => 1e-6 * Math.max(1, Math.abs(value));
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

/** Runs per test: a test that holds its worker for a minute makes vitest's RPC time out. */
const CHUNK = 500;

/** A property of `total` runs as tests of at most CHUNK runs each, each with its own seed. */
function chunked(
  name: string,
  total: number,
  seed: number,
  body: (runs: number, seed: number) => void,
): void {
  const parts = Math.ceil(total / CHUNK);
  for (let part = 0; part < parts; part++) {
    const runs = Math.min(CHUNK, total - part * CHUNK);
    it(parts === 1 ? name : `${name} (${part + 1}/${parts})`, () => body(runs, seed + 1000 * part));
  }
}

export function ad3RefereeSuites(runs: RefereeRuns, seed: number): void {
  beforeAll(prepareIlp);
  const referee = new LocalPolytopeReferee();
  afterAll(() => referee.dispose());

  describe("the referee itself", () => {
    chunked(
      "its ILP is the brute-force optimum, and core's factors score assignments as the specs do",
      runs.selfCheck,
      seed,
      (numRuns, chunkSeed) => {
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomBinaryInstance(createRandom(s), {
              binaries: [2, 5],
              multi: [0, 2],
            });
            const ilp = referee.solve(instance, true);
            expect(ilp.status).toBe("optimal");
            const truth = bruteForce(instance);
            expect(relative(ilp.value, truth)).toBeLessThan(1e-7);
            expect(relative(referee.both(instance).ilp, truth)).toBeLessThan(1e-7);
            const problem = binaryProblem(instance);
            const random = createRandom(s ^ 0x5bd1e995);
            for (let trial = 0; trial < 20; trial++) {
              const z = Uint8Array.from({ length: instance.variables }, () =>
                random.bool() ? 1 : 0,
              );
              let total = 0;
              for (let i = 0; i < instance.variables; i++) total += instance.unary[i]! * z[i]!;
              for (const { factor, variables } of problem.factors) {
                total += factor.score(Array.from(variables, (i) => z[i]!));
              }
              const expected = scoreAssignment(instance, z);
              if (expected === NEG_INF) expect(total).toBe(NEG_INF);
              else expect(relative(total, expected)).toBeLessThan(1e-9);
            }
          }),
          { numRuns, seed: chunkSeed },
        );
      },
    );
  });

  describe("AD3 on binary factor graphs against HiGHS", () => {
    chunked(
      "its dual never goes below the LP value, and equals it once the run has converged",
      runs.converged,
      seed + 1,
      (numRuns, chunkSeed) => {
        let converged = 0;
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomBinaryInstance(createRandom(s));
            const lp = referee.solve(instance, false);
            expect(lp.status).toBe("optimal");
            const solution = solveBinaryProblem(binaryProblem(instance), {
              maxIterations: 3000,
              residualThreshold: 1e-8,
              tolerance: 1e-9,
            });
            expect(solution.dual).toBeGreaterThanOrEqual(lp.value - slack(lp.value));
            if (solution.status === "iteration-limit") return;
            converged++;
            expect(relative(solution.dual, lp.value)).toBeLessThan(1e-5);
          }),
          { numRuns, seed: chunkSeed },
        );
        // A few slow instances may use up their iterations; nearly all converge.
        expect(converged).toBeGreaterThanOrEqual(0.95 * numRuns);
      },
    );

    chunked(
      "no wrong certificate: certified ⇒ its primal is the ILP optimum",
      runs.certificates,
      seed + 2,
      (numRuns, chunkSeed) => {
        let certified = 0;
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomBinaryInstance(createRandom(s));
            const solution = solveBinaryProblem(binaryProblem(instance), { maxIterations: 300 });
            const { ilp } = referee.both(instance);
            expect(ilp).toBeGreaterThan(NEG_INF);
            // Every run, certified or not: the dual bounds the optimum, the primal is its
            // assignment's objective and at most the optimum.
            expect(solution.dual).toBeGreaterThanOrEqual(ilp - slack(ilp));
            if (solution.primal > NEG_INF) {
              const scored = scoreAssignment(instance, solution.assignment);
              expect(relative(scored, solution.primal)).toBeLessThan(1e-9);
              expect(solution.primal).toBeLessThanOrEqual(ilp + slack(ilp));
            }
            if (!solution.certified) return;
            certified++;
            expect(relative(solution.primal, ilp)).toBeLessThan(1e-5);
          }),
          { numRuns, seed: chunkSeed },
        );
        expect(certified).toBeGreaterThan(0.5 * numRuns);
      },
    );

    chunked(
      "exact mode returns the ILP optimum on every instance",
      runs.exact,
      seed + 3,
      (numRuns, chunkSeed) => {
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomBinaryInstance(createRandom(s));
            const solution = solveBinaryProblem(binaryProblem(instance), { exact: true });
            const { ilp } = referee.both(instance);
            expect(solution.certified).toBe(true);
            expect(relative(solution.primal, ilp)).toBeLessThan(1e-5);
            expect(relative(scoreAssignment(instance, solution.assignment), ilp)).toBeLessThan(
              1e-5,
            );
          }),
          { numRuns, seed: chunkSeed },
        );
      },
    );
  });

  describe("the positions master with the AD3 step against the chain ILP", () => {
    const chainIlp = new ChainIlp();
    afterAll(() => chainIlp.dispose());
    const objective = {
      scoreWeight: 1,
      penaltyWeight: -1,
      minScore: NEG_INF,
      maxPenalty: Number.POSITIVE_INFINITY,
      pruneBelow: NEG_INF,
    };
    const optimum = (instance: ChainInstance) =>
      chainIlp.solve(sumChains(instance.first, instance.second), instance.constraints, objective);
    const decode = (instance: ChainInstance, exact: boolean) =>
      solveDualDecomposition(
        {
          n: instance.first.n,
          L: instance.first.L,
          slaves: [
            { slave: chainSlave(instance.first, "a") },
            { slave: chainSlave(instance.second, "b") },
          ],
          constraints: instance.constraints,
        },
        { step: "ad3", exact },
      );

    chunked(
      "no wrong certificate; the dual bounds the ILP optimum and the primal stays below it",
      runs.positionsCertificates,
      seed + 4,
      (numRuns, chunkSeed) => {
        let certified = 0;
        let feasible = 0;
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomChainInstance(createRandom(s));
            const ilp = optimum(instance);
            const solution = decode(instance, false);
            if (ilp.status === "infeasible") {
              expect(solution.primal).toBe(NEG_INF);
              expect(solution.certified && solution.status !== "infeasible").toBe(false);
              return;
            }
            feasible++;
            expect(ilp.status).toBe("optimal");
            expect(solution.dual).toBeGreaterThanOrEqual(ilp.objective - slack(ilp.objective));
            expect(solution.primal).toBeLessThanOrEqual(ilp.objective + slack(ilp.objective));
            if (!solution.certified) return;
            certified++;
            expect(relative(solution.primal, ilp.objective)).toBeLessThan(1e-5);
          }),
          { numRuns, seed: chunkSeed },
        );
        expect(certified).toBeGreaterThan(0.5 * feasible);
      },
    );

    chunked(
      "exact mode returns the ILP optimum on every feasible instance",
      runs.positionsExact,
      seed + 5,
      (numRuns, chunkSeed) => {
        fc.assert(
          fc.property(seeds, (s) => {
            const instance = randomChainInstance(createRandom(s));
            const ilp = optimum(instance);
            // Hard constraints no labelling meets: the run above already checks that no labelling is
            // claimed; exact mode would branch to its node limit (seconds) before saying so, since
            // AD3 only detects infeasibility within one factor.
            if (ilp.status === "infeasible") return;
            const solution = decode(instance, true);
            expect(solution.certified).toBe(true);
            expect(relative(solution.primal, ilp.objective)).toBeLessThan(1e-5);
          }),
          { numRuns, seed: chunkSeed },
        );
      },
    );
  });
}

interface ChainInstance {
  readonly first: ChainScores;
  readonly second: ChainScores;
  readonly constraints: LinearConstraint[];
}

/** Two chains over the same n positions and constraints of the shapes real decoders use. */
function randomChainInstance(random: Random): ChainInstance {
  const n = random.int(1, 7);
  const L = random.int(2, 3);
  const first = randomChainScores(random, {
    n,
    L,
    positionSpecific: random.bool(0.3),
    startEnd: random.bool(0.3),
    forbiddenFraction: random.pick([0, 0, 0.15]),
  });
  const second = randomChainScores(random, { n, L, positionSpecific: random.bool(0.3) });
  const constraints = randomConstraints(random, n, L, {
    count: random.int(1, 4),
    hardFraction: random.pick([0, 0.5, 1]),
  });
  return { first, second, constraints };
}

/** The one chain the ILP decodes: two chains' scores summed (the mask is the first's). */
function sumChains(a: ChainScores, b: ChainScores): ChainScores {
  const { n, L } = a;
  const LL = L * L;
  const block = (s: ChainScores, i: number) =>
    s.transition.length === LL ? s.transition : s.transition.subarray(i * LL, (i + 1) * LL);
  const steps = a.transition.length !== LL || b.transition.length !== LL ? Math.max(1, n - 1) : 1;
  const transition = new Float64Array(steps * LL);
  for (let i = 0; i < steps; i++) {
    const ta = block(a, i);
    const tb = block(b, i);
    for (let k = 0; k < LL; k++) transition[i * LL + k] = ta[k]! + tb[k]!;
  }
  const add = (x?: Float64Array, y?: Float64Array) =>
    x === undefined && y === undefined
      ? undefined
      : Float64Array.from({ length: L }, (_, t) => (x?.[t] ?? 0) + (y?.[t] ?? 0));
  const start = add(a.start, b.start);
  const end = add(a.end, b.end);
  const allowed = a.allowed ?? b.allowed;
  return {
    n,
    L,
    unary: Float64Array.from(a.unary, (u, k) => u + b.unary[k]!),
    transition,
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(allowed === undefined ? {} : { allowed }),
  };
}
