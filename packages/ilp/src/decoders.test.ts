import {
  type ChainScores,
  constraintViolation,
  type LinearConstraint,
  linearConstraint,
  scoreLabelling,
} from "@lagrange/core";
import { chainArgmax } from "@lagrange/core/chain";
import {
  bruteForceBest,
  forEachLabelling,
  randomChainScores,
  randomConstraints,
} from "@lagrange/core/testing";
import { softDD } from "@lagrange/soft-dd";
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ChainIlp, softPenalty } from "./chain-ilp.js";
import { exactIlpDecoder, twoPhaseIlpDecoder } from "./decoders.js";
import { prepareIlp } from "./highs-runtime.js";
import { ILP_OPTION_RANGES } from "./ilp-decoding.js";
import { MipSolver } from "./mip-builder.js";

beforeAll(prepareIlp);

const NEG_INF = Number.NEGATIVE_INFINITY;
const close = (a: number, b: number) =>
  a === b || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

function instance(seed: number, options: { hardFraction?: number; count?: number } = {}) {
  const n = 1 + (seed % 5);
  const L = 2 + ((seed >>> 3) % 3);
  const scores = randomChainScores(seed, {
    n,
    L,
    startEnd: true,
    forbiddenFraction: 0.1,
    positionSpecific: seed % 7 === 0,
    integer: seed % 5 === 0,
  });
  const constraints = randomConstraints(seed + 1, n, L, {
    count: options.count ?? 1 + ((seed >>> 5) % 4),
    hardFraction: options.hardFraction ?? 0.5,
  });
  return { n, L, scores, constraints };
}

const seeds = fc.integer({ min: 0, max: 2 ** 30 });

describe("the chain ILP is the shortest-path ILP: it equals Viterbi", () => {
  it("without constraints, pruned or not, on random chains (masks, position-specific, ties)", () => {
    const ilp = new ChainIlp();
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores } = instance(seed);
        const viterbi = chainArgmax(scores);
        for (const prune of [false, true]) {
          const result = ilp.solve(
            scores,
            [],
            {
              scoreWeight: 1,
              penaltyWeight: -1,
              minScore: NEG_INF,
              maxPenalty: Infinity,
              pruneBelow: viterbi.score,
            },
            { prune },
          );
          if (viterbi.labels === null) {
            expect(result.status).toBe("infeasible");
            continue;
          }
          expect(result.status).toBe("optimal");
          expect(close(result.objective, viterbi.score)).toBe(true);
          expect(close(scoreLabelling(scores, result.labels!), viterbi.score)).toBe(true);
        }
      }),
      { numRuns: 60, seed: 20261124 },
    );
  });
});

describe("exact: the optimum of score − soft penalties under hard constraints", () => {
  it("equals brute-force enumeration on small random instances", () => {
    const decoder = exactIlpDecoder();
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores, constraints, L } = instance(seed);
        const truth = bruteForceBest(scores, { constraints });
        const d = decoder.decode({ scores, constraints });
        if (truth.score === NEG_INF) {
          expect(d.status).toBe("infeasible");
          expect([...d.labels].every((y) => y === -1)).toBe(true);
          return;
        }
        expect(d.status).toBe("optimal");
        expect(d.certified).toBe(true);
        expect(d.constraintStats.hardViolated).toBe(0);
        expect(close(d.primal, truth.score)).toBe(true);
        const objective =
          scoreLabelling(scores, d.labels) - softPenalty(constraints, d.labels, L, "hinge");
        expect(close(objective, truth.score)).toBe(true);
      }),
      { numRuns: 300, seed: 20261124 },
    );
  });

  it("names a minimal set of jointly infeasible hard constraints, and returns no labelling", () => {
    const decoder = exactIlpDecoder();
    let found = 0;
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores, constraints, L } = instance(seed, { hardFraction: 1, count: 5 });
        if (chainArgmax(scores).labels === null) return;
        if (bruteForceBest(scores, { constraints }).score > NEG_INF) return;
        found++;
        const d = decoder.decode({ scores, constraints });
        expect(d.status).toBe("infeasible");
        expect(d.labels.every((y) => y === -1)).toBe(true);
        const named = new Set(d.conflict);
        const subset = constraints.filter((c) => named.has(c.name!));
        expect(subset.length).toBeGreaterThan(0);
        // The named constraints alone are infeasible; without any one of them, feasible.
        expect(bruteForceBest(scores, { constraints: subset }).score).toBe(NEG_INF);
        if (new Set(constraints.map((c) => c.name)).size === constraints.length) {
          for (const drop of subset) {
            const rest = subset.filter((c) => c !== drop);
            expect(bruteForceBest(scores, { constraints: rest }).score).toBeGreaterThan(NEG_INF);
          }
        }
        void L;
      }),
      { numRuns: 150, seed: 7 },
    );
    expect(found).toBeGreaterThan(5);
  });

  it("on named, distinct constraints the conflict is exactly the contradicting pair", () => {
    const scores = randomChainScores(3, { n: 4, L: 3 });
    const count = (label: number, coefficient: number) =>
      Array.from({ length: 4 }, (_, i) => [i * 3 + label, coefficient] as const);
    const constraints: LinearConstraint[] = [
      linearConstraint({ terms: count(0, 1), rhs: 4, name: "label 0 at most 4×" }),
      linearConstraint({ terms: count(1, -1), rhs: -3, name: "label 1 at least 3×" }),
      linearConstraint({ terms: count(2, -1), rhs: -2, name: "label 2 at least 2×" }),
      linearConstraint({ terms: count(2, 1), rhs: 3, penalty: 1, name: "soft" }),
    ];
    const d = exactIlpDecoder().decode({ scores, constraints });
    expect(d.status).toBe("infeasible");
    expect(d.conflict).toEqual(["label 1 at least 3×", "label 2 at least 2×"]);
  });

  it("names a minimal conflict once per constraint (by identity) and once per name", () => {
    // Random hard constraints share names ("sparse rule"), and a problem may hold one constraint
    // object twice (overlapping templates): the old deletion filter named "sparse rule" as often as
    // it had rows of that name.
    let found = 0;
    fc.assert(
      fc.property(
        seeds,
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom("exact", "two-phase"),
        (seed, repeats, which) => {
          const { scores, constraints } = instance(seed, { hardFraction: 1, count: 6 });
          if (chainArgmax(scores).labels === null) return;
          const given = [
            ...constraints,
            ...repeats.map((r) => constraints[r % constraints.length]!),
          ];
          const tau = 0.5;
          const floor = which === "exact" ? NEG_INF : chainArgmax(scores).score + Math.log(tau);
          // Feasible: some labelling meets the constraints (and, for two-phase, the score bound).
          const feasible = (subset: readonly LinearConstraint[]) =>
            bruteForceBest(scores, { constraints: subset }).score >= floor &&
            bruteForceBest(scores, { constraints: subset }).score > NEG_INF;
          if (feasible(given)) return;
          found++;
          const decoder = which === "exact" ? exactIlpDecoder() : twoPhaseIlpDecoder();
          const d = decoder.decode({ scores, constraints: given }, { tau });
          expect(d.status).toBe("infeasible");
          expect(d.conflictMinimal).toBe(true);
          const members = d.conflictConstraints.map((k) => given[k]!);
          expect(new Set(members).size).toBe(members.length);
          expect(new Set(d.conflict).size).toBe(d.conflict.length);
          const names = [...new Set(members.map((c) => c.name!))];
          const bound = which === "exact" ? [] : ["the score bound s(y) ≥ Z* + log τ"];
          expect(d.conflict).toEqual([...names, ...bound]);
          // Together infeasible; without any one of them, feasible: minimal.
          expect(feasible(members)).toBe(false);
          for (const drop of members)
            expect(feasible(members.filter((c) => c !== drop))).toBe(true);
        },
      ),
      { numRuns: 300, seed: 28 },
    );
    expect(found).toBeGreaterThan(10);
  });

  it("answers without HiGHS when the Viterbi labelling meets every constraint", () => {
    const scores = randomChainScores(11, { n: 6, L: 4 });
    const viterbi = chainArgmax(scores);
    const loose = linearConstraint({ terms: [[0, 1]], rhs: 1, penalty: 5 });
    const d = exactIlpDecoder().decode({ scores, constraints: [loose] });
    expect(d.solves).toBe(0);
    expect([...d.labels]).toEqual([...viterbi.labels!]);
    expect(d.primal).toBe(viterbi.score);
  });

  it("the max-marginal pruning changes nothing: pruned and full ILPs agree", () => {
    const ilp = new ChainIlp();
    fc.assert(
      fc.property(seeds, (seed) => {
        const n = 3 + (seed % 6);
        const L = 3 + ((seed >>> 4) % 4);
        const scores = randomChainScores(seed, { n, L, startEnd: true });
        const constraints = randomConstraints(seed + 2, n, L, { count: 4, hardFraction: 0 });
        const viterbi = chainArgmax(scores);
        const bound = viterbi.score - softPenalty(constraints, viterbi.labels!, L, "hinge");
        const objective = {
          scoreWeight: 1,
          penaltyWeight: -1,
          minScore: NEG_INF,
          maxPenalty: Infinity,
          pruneBelow: bound,
        };
        const pruned = ilp.solve(scores, constraints, objective);
        const full = ilp.solve(scores, constraints, objective, { prune: false });
        expect(close(pruned.objective, full.objective)).toBe(true);
        expect(pruned.columns).toBeLessThanOrEqual(full.columns);
      }),
      { numRuns: 50, seed: 5 },
    );
  });
});

/** The two-phase optimum by enumeration: least indicator cost within the bound, then best score. */
function twoPhaseByEnumeration(
  scores: ChainScores,
  constraints: readonly LinearConstraint[],
  tau: number,
) {
  const best = chainArgmax(scores).score;
  const minScore = best + Math.log(tau);
  let cost = Infinity;
  let score = NEG_INF;
  forEachLabelling(new Int32Array(scores.n).fill(scores.L), (y) => {
    const s = scoreLabelling(scores, y);
    if (s === NEG_INF || s < minScore - 1e-9) return;
    const c = softPenalty(constraints, y, scores.L, "indicator");
    if (c === Infinity) return;
    if (c < cost - 1e-9 || (Math.abs(c - cost) <= 1e-9 && s > score)) {
      cost = c;
      score = s;
    }
  });
  return { cost, score };
}

describe("two-phase: least rule-violation cost within a factor τ of the best, then best score", () => {
  it("equals enumeration on small random instances, for several τ", () => {
    const decoder = twoPhaseIlpDecoder();
    fc.assert(
      fc.property(seeds, fc.constantFrom(1, 0.5, 0.1, 0.001), (seed, tau) => {
        const { scores, constraints } = instance(seed, { hardFraction: 0.2 });
        if (chainArgmax(scores).labels === null) return;
        const truth = twoPhaseByEnumeration(scores, constraints, tau);
        const d = decoder.decode({ scores, constraints }, { tau });
        if (truth.cost === Infinity) {
          expect(d.status).toBe("infeasible");
          expect(d.conflict).toContain("the score bound s(y) ≥ Z* + log τ");
          return;
        }
        expect(d.status).toBe("optimal");
        expect(close(d.violationCost, truth.cost)).toBe(true);
        expect(close(d.primal, truth.score)).toBe(true);
        expect(close(scoreLabelling(scores, d.labels), truth.score)).toBe(true);
      }),
      { numRuns: 300, seed: 20261124 },
    );
  });

  it("τ = 1 keeps the Viterbi labelling; a small τ repairs a rule the Viterbi labelling breaks", () => {
    // Two labels; Viterbi says 0 0 0, a rule (cost 1) wants label 1 somewhere.
    const scores: ChainScores = {
      n: 3,
      L: 2,
      unary: Float64Array.from([1, 0, 1, 0.5, 1, 0]),
      transition: new Float64Array(4),
    };
    const rule = linearConstraint({
      terms: [
        [1, -1],
        [3, -1],
        [5, -1],
      ],
      rhs: -1,
      penalty: 1,
      name: "some label 1",
    });
    const strict = twoPhaseIlpDecoder().decode({ scores, constraints: [rule] }, { tau: 1 });
    expect([...strict.labels]).toEqual([0, 0, 0]);
    const loose = twoPhaseIlpDecoder().decode({ scores, constraints: [rule] }, { tau: 0.5 });
    // Within log 0.5 ≈ −0.69 of the best: only position 1 can switch (it costs 0.5).
    expect([...loose.labels]).toEqual([0, 1, 0]);
    expect(constraintViolation(rule, loose.labels, 2)).toBe(0);
  });

  it("under a time limit it reports the labelling it returns: its score and its own violation cost", () => {
    const decoder = twoPhaseIlpDecoder();
    const statuses = new Set<string>();
    for (let seed = 0; seed < 6; seed++) {
      const n = 40;
      const L = 8;
      const scores = randomChainScores(seed, { n, L, startEnd: true });
      const constraints = randomConstraints(seed + 9, n, L, { count: 60, hardFraction: 0 });
      const started = performance.now();
      const d = decoder.decode({ scores, constraints }, { tau: 1e-4, timeLimitMs: 1 });
      const elapsed = performance.now() - started;
      statuses.add(d.status);
      expect(["optimal", "time-limit"]).toContain(d.status);
      expect(d.violationCost).toBeCloseTo(softPenalty(constraints, d.labels, L, "indicator"), 9);
      expect(d.primal).toBeCloseTo(scoreLabelling(scores, d.labels), 9);
      expect(d.certified).toBe(d.status === "optimal");
      // Two phases, each bounded by what is left of the limit (plus HiGHS's own check interval).
      if (d.status === "time-limit") expect(elapsed).toBeLessThan(2000);
    }
    // 60 rules over 40 tokens do not solve in 1 ms: the limit path is what this test exercises.
    expect(statuses.has("time-limit")).toBe(true);
  });

  it("refuses τ outside [1e-300, 1]: a subnormal τ is no bound", () => {
    const scores = randomChainScores(1, { n: 2, L: 2 });
    for (const tau of [0, -1, 2, Number.NaN, Infinity, 1e-320, 5e-324]) {
      expect(() => twoPhaseIlpDecoder().decode({ scores }, { tau })).toThrow(
        /options\.tau: expected 1e-300 ≤ τ ≤ 1/,
      );
    }
    expect(twoPhaseIlpDecoder().decode({ scores }, { tau: 1e-300 }).status).toBe("optimal");
  });
});

describe("the ILP decoders' options", () => {
  it("refuse a time limit that is not a finite number of milliseconds in (0, 2^31 − 1]", () => {
    const scores = randomChainScores(1, { n: 2, L: 2 });
    const limits = [0, -1, Number.NaN, Infinity, 1e308 * 1000, 2 ** 31, "10" as unknown as number];
    for (const decoder of [exactIlpDecoder(), twoPhaseIlpDecoder()]) {
      for (const timeLimitMs of limits) {
        expect(() => decoder.decode({ scores }, { timeLimitMs })).toThrow(
          expect.objectContaining({
            code: "invalid-problem",
            message: expect.stringMatching(
              /^options\.timeLimitMs: expected a number > 0 and ≤ 2147483647/,
            ),
          }),
        );
      }
      const most = ILP_OPTION_RANGES.maxTimeLimitMs;
      expect(decoder.decode({ scores }, { timeLimitMs: most }).status).toBe("optimal");
      for (const mipGap of [-1, Number.NaN, Infinity]) {
        expect(() => decoder.decode({ scores }, { mipGap })).toThrow(/options\.mipGap/);
      }
    }
  });
});

describe("the time limit bounds all of a sentence's solves together", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Moves performance.now() a day ahead from the moment `when` says so: the limit is spent. */
  function spendTheLimitAfter(when: () => boolean): void {
    const now = performance.now.bind(performance);
    vi.spyOn(performance, "now").mockImplementation(() => now() + (when() ? 86_400_000 : 0));
  }

  it("a large model with a bound row runs only HiGHS's steps that watch the clock", () => {
    // HiGHS's presolve ran 7 s past a 1 s limit on a two-phase model of one 51-token citation,
    // and its feasibility jump a second more: neither looks at the clock.
    const run = vi.spyOn(MipSolver.prototype, "run");
    const n = 40;
    const L = 8;
    const scores = randomChainScores(2, { n, L, startEnd: true });
    const constraints = randomConstraints(11, n, L, { count: 60, hardFraction: 0 });
    // Limited: the test reads what HiGHS is asked to do, not what it finds.
    twoPhaseIlpDecoder().decode({ scores, constraints }, { tau: 1e-4, timeLimitMs: 100 });
    expect(run).toHaveBeenCalled();
    for (const [builder, limits] of run.mock.calls) {
      // Phase 2 and the tie-break both bound the score: s(y) ≥ Z* + log τ, a row over every node.
      expect(builder.entries).toBeGreaterThan(1000);
      expect(limits.clockedOnly).toBe(true);
    }
    run.mockClear();
    exactIlpDecoder().decode({ scores, constraints }, { timeLimitMs: 100 });
    expect(run).toHaveBeenCalled();
    for (const [, limits] of run.mock.calls) expect(limits.clockedOnly).toBe(false);
  });

  it("a conflict search that finds the limit spent starts no solve and keeps a conflict that holds", () => {
    let checked = 0;
    for (let seed = 0; checked < 5 && seed < 2000; seed++) {
      const { scores, constraints } = instance(seed, { hardFraction: 1, count: 6 });
      if (chainArgmax(scores).labels === null) continue;
      if (bruteForceBest(scores, { constraints }).score > NEG_INF) continue;
      let searching = false;
      const subsets = ChainIlp.prototype.subsets;
      vi.spyOn(ChainIlp.prototype, "subsets").mockImplementation(function (this: ChainIlp, ...a) {
        searching = true;
        return subsets.apply(this, a);
      });
      spendTheLimitAfter(() => searching);
      const rerun = vi.spyOn(MipSolver.prototype, "rerun");
      const d = exactIlpDecoder().decode({ scores, constraints }, { timeLimitMs: 60_000 });
      vi.restoreAllMocks();
      expect(d.status).toBe("infeasible");
      expect(rerun).not.toHaveBeenCalled();
      expect(d.conflictMinimal).toBe(false);
      const members = d.conflictConstraints.map((k) => constraints[k]!);
      expect(bruteForceBest(scores, { constraints: members }).score).toBe(NEG_INF);
      checked++;
    }
    expect(checked).toBe(5);
  });

  it("two-phase: a limit spent by phase 2 leaves the tie-break unstarted (status time-limit)", () => {
    const scores: ChainScores = {
      n: 3,
      L: 2,
      unary: Float64Array.from([1, 0, 1, 0.5, 1, 0]),
      transition: new Float64Array(4),
    };
    const rule = linearConstraint({
      terms: [
        [1, -1],
        [3, -1],
        [5, -1],
      ],
      rhs: -1,
      penalty: 1,
      name: "some label 1",
    });
    const unlimited = twoPhaseIlpDecoder().decode({ scores, constraints: [rule] }, { tau: 0.5 });
    expect(unlimited.solves).toBe(2);
    let solved = 0;
    const solve = ChainIlp.prototype.solve;
    vi.spyOn(ChainIlp.prototype, "solve").mockImplementation(function (this: ChainIlp, ...a) {
      const result = solve.apply(this, a);
      solved++;
      return result;
    });
    spendTheLimitAfter(() => solved > 0);
    const d = twoPhaseIlpDecoder().decode(
      { scores, constraints: [rule] },
      { tau: 0.5, timeLimitMs: 60_000 },
    );
    expect(solved).toBe(1);
    expect(d.solves).toBe(1);
    expect(d.status).toBe("time-limit");
    expect(d.certified).toBe(false);
    // Phase 2's labelling: the least rule-violation cost, as the unlimited decoding's.
    expect(d.violationCost).toBe(unlimited.violationCost);
  });
});

describe("every certified soft-DD solution is the ILP optimum of the same soft objective", () => {
  it("on random instances (soft constraints only)", () => {
    const exact = exactIlpDecoder();
    const dd = softDD();
    let certified = 0;
    fc.assert(
      fc.property(seeds, (seed) => {
        const n = 2 + (seed % 8);
        const L = 2 + ((seed >>> 4) % 4);
        const scores = randomChainScores(seed, { n, L, startEnd: true });
        const constraints = randomConstraints(seed + 3, n, L, { count: 3, hardFraction: 0 });
        const relaxed = dd.decode({ scores, constraints });
        if (!relaxed.certified) return;
        certified++;
        const truth = exact.decode({ scores, constraints });
        expect(close(relaxed.primal, truth.primal)).toBe(true);
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(certified).toBeGreaterThan(100);
  });
});
