import { chainSlave, type Slave, solveDualDecomposition } from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { randomChainScores } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
// The generic quadratic step the projection replaces (core keeps it internal).
import { ActiveSetSolver } from "../../../core/src/dual-decomposition/ad3/active-set.js";
import type { BinaryFactor } from "../../../core/src/dual-decomposition/ad3/binary-factor.js";
import { minCutSlave } from "./cut-slave.js";

/** Pattern factors of orders 2..4 over n positions, scores of either sign, optional defaults. */
function patterns(seed: number, n: number, L: number, count: number): PatternFactor[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const out: PatternFactor[] = [];
  for (let f = 0; f < count; f++) {
    const arity = Math.min(n, int(2, 4));
    const pool = Array.from({ length: n }, (_, v) => v);
    for (let j = 0; j < arity; j++) {
      const at = int(j, n - 1);
      [pool[j], pool[at]] = [pool[at]!, pool[j]!];
    }
    const seen = new Set<string>();
    const values: number[] = [];
    const scores: number[] = [];
    for (let p = int(1, 4); p > 0; p--) {
      const a = Array.from({ length: arity }, () => int(0, L - 1));
      if (seen.has(a.join())) continue;
      seen.add(a.join());
      values.push(...a);
      const magnitude = 0.1 + 2 * next();
      scores.push(next() < 0.5 ? magnitude : -magnitude);
    }
    out.push({
      kind: "pattern",
      variables: Int32Array.from(pool.slice(0, arity)),
      patterns: Int32Array.from(values),
      scores: Float64Array.from(scores),
      defaultScore: next() < 0.5 ? 0 : Math.round((next() - 0.5) * 20) / 10,
    });
  }
  return out;
}

/** The slave as a factor with its MAP oracle only (what core's SlaveFactor gives the active set). */
function oracle(slave: Slave): BinaryFactor {
  const size = slave.n * slave.L;
  return {
    name: slave.name,
    size,
    map(adjustment, out) {
      const result = slave.maximize(adjustment);
      for (let i = 0; i < size; i++) out[i] = result.indicators![i]!;
      return result.value;
    },
    score: () => Number.NEGATIVE_INFINITY,
  };
}

/** g(Z) for every Z ∈ {0,1}^size (Z as a bit mask), from the slave's cut with Z forced. */
function allValues(slave: Slave): Float64Array {
  const size = slave.n * slave.L;
  const g = new Float64Array(2 ** size);
  const force = 1e3;
  const adjustment = new Float64Array(size);
  for (let mask = 0; mask < g.length; mask++) {
    let on = 0;
    for (let i = 0; i < size; i++) {
      const bit = (mask >> i) & 1;
      adjustment[i] = bit === 1 ? force : -force;
      on += bit;
    }
    g[mask] = slave.maximize(adjustment).value - force * on;
  }
  return g;
}

/** scale·ĝ(q) + v·q − ½‖q‖², ĝ the concave closure of g: minus the Lovász extension of −g. */
function objective(g: Float64Array, q: Float64Array, v: Float64Array, scale: number): number {
  const size = q.length;
  const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => q[b]! - q[a]!);
  let closure = g[0]!;
  let mask = 0;
  for (const i of order) {
    const before = g[mask]!;
    mask |= 1 << i;
    closure += q[i]! * (g[mask]! - before);
  }
  let total = scale * closure;
  for (let i = 0; i < size; i++) total += v[i]! * q[i]! - 0.5 * q[i]! * q[i]!;
  return total;
}

const arbitrary = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  n: fc.integer({ min: 2, max: 4 }),
  L: fc.integer({ min: 2, max: 3 }),
  factors: fc.integer({ min: 1, max: 3 }),
  linear: fc.boolean(),
  scale: fc.constantFrom(0.2, 1, 4),
  v: fc.array(fc.double({ min: -2, max: 3, noNaN: true }), { minLength: 12, maxLength: 12 }),
});

describe("min-cut slave project", () => {
  it("is the concave closure's quadratic step: the active set's point, as good an objective", () => {
    fc.assert(
      fc.property(arbitrary, ({ seed, n, L, factors, linear, scale, v: raw }) => {
        const f = patterns(seed, n, L, factors);
        const extra = linear
          ? { linear: Float64Array.from({ length: n * L }, (_, k) => Math.sin(seed + k)) }
          : {};
        const { slave } = minCutSlave(f, L, extra);
        const size = slave.n * L;
        const v = Float64Array.from({ length: size }, (_, k) => raw[k]!);
        const q = new Float64Array(size);
        slave.project!(v, scale, q);
        expect(slave.stats.projections).toBe(1);
        for (const x of q) expect(x >= 0 && x <= 1).toBe(true);

        const solver = new ActiveSetSolver(oracle(minCutSlave(f, L, extra).slave));
        const reference = new Float64Array(size);
        // Warm calls go on from the last active set: a few reach the optimum from cold.
        for (let round = 0; round < 6; round++) solver.project(v, scale, reference);
        const g = allValues(minCutSlave(f, L, { ...extra, reuse: false }).slave);
        const mine = objective(g, q, v, scale);
        const theirs = objective(g, reference, v, scale);
        expect(mine).toBeGreaterThanOrEqual(theirs - 1e-9 * (1 + Math.abs(theirs)));
        for (let i = 0; i < size; i++) expect(Math.abs(q[i]! - reference[i]!)).toBeLessThan(1e-9);
        // No feasible step nearby does better (the objective is strongly concave).
        const moved = new Float64Array(size);
        for (let t = 0; t < 8; t++) {
          for (let i = 0; i < size; i++) {
            const d = Math.sin(seed * (t + 1) + 7 * i) * 1e-3;
            moved[i] = Math.min(1, Math.max(0, q[i]! + d));
          }
          expect(objective(g, moved, v, scale)).toBeLessThanOrEqual(mine + 1e-12);
        }
        // maximize after a projection answers as a fresh slave does.
        const adjustment = Float64Array.from({ length: size }, (_, k) => Math.cos(seed + 3 * k));
        const fresh = minCutSlave(f, L, { ...extra, reuse: false }).slave.maximize(adjustment);
        const freshValue = fresh.value;
        const freshZ = Array.from(fresh.indicators!);
        const again = slave.maximize(adjustment);
        expect(again.value).toBeCloseTo(freshValue, 9);
        expect(Array.from(again.indicators!)).toEqual(freshZ);
      }),
      { numRuns: 150 },
    );
  });

  it("costs two cuts when the projection is 0/1", () => {
    const f = patterns(11, 3, 2, 2);
    const { slave } = minCutSlave(f, 2);
    const size = slave.n * 2;
    const q = new Float64Array(size);
    const v = Float64Array.from({ length: size }, (_, k) => (k % 2 === 0 ? 50 : -50));
    slave.project!(v, 1, q);
    expect(Array.from(q)).toEqual(Array.from({ length: size }, (_, k) => (k % 2 === 0 ? 1 : 0)));
    expect(slave.stats.maxflowCalls).toBe(2);
  });

  it("leaves the AD3 step's answer unchanged on chain + cut decompositions", () => {
    let compared = 0;
    let projected = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const n = 3 + (seed % 4);
      const L = 2 + (seed % 2);
      const chain = randomChainScores(seed, { n, L, startEnd: true, scale: 2 });
      const f = patterns(seed * 7919, n, L, 2 + (seed % 3));
      const solve = (withProject: boolean) => {
        const { slave, positions } = minCutSlave(f, L);
        const { project: _, ...plain } = slave;
        const solution = solveDualDecomposition(
          {
            n,
            L,
            slaves: [
              { slave: chainSlave(chain) },
              { slave: withProject ? slave : plain, positions },
            ],
          },
          { step: "ad3", maxIterations: 300 },
        );
        projected += slave.stats.projections;
        return solution;
      };
      const exact = solve(true);
      const generic = solve(false);
      expect(exact.certified).toBe(generic.certified);
      expect(exact.dual!).toBeCloseTo(generic.dual!, 4);
      if (exact.certified) {
        expect(exact.primal).toBeCloseTo(generic.primal, 9);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(3);
    expect(projected).toBeGreaterThan(100);
  });
});
