import { forwardBackward } from "@lagrange/chain-crf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bruteForceCrf, forEachFeasible, randomInput } from "../testing/random-input.js";
import { BcrfWorkspace, materializeBlock } from "./bcrf-workspace.js";
import type { ChainGradient, ChainInput } from "./chain-input.js";
import { bcrfInference } from "./ibp.js";
import { foldScores, logDomainIbp } from "./log-domain.js";
import { addBcrfStatistics, bcrfValue } from "./value.js";

const CONVERGE = { iterations: 20_000, tolerance: 1e-12 } as const;

function blocks(ws: BcrfWorkspace, n: number, L: number): Float64Array {
  const out = new Float64Array(Math.max(1, n - 1) * L * L);
  for (let j = 0; j < n - 1; j++) materializeBlock(ws, j, out, j * L * L);
  return out;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number) {
  expect(actual.length).toBe(expected.length);
  // One expect per array: thousands per run make the property tests seconds slower.
  const misses: string[] = [];
  for (let q = 0; q < actual.length; q++) {
    const a = actual[q]!;
    if (Number.isNaN(a) || !(Math.abs(a - expected[q]!) <= tol))
      misses.push(`[${q}] ${a} vs ${expected[q]}`);
  }
  expect(misses).toEqual([]);
}

/** Largest violation of (7)/(10) at the inner clusters of the dense iterate. */
function polytopeViolation(q: Float64Array, n: number, L: number): number {
  const LL = L * L;
  let worst = 0;
  for (let p = 1; p <= n - 2; p++) {
    let total = 0;
    for (let t = 0; t < L; t++) {
      let inflow = 0;
      let outflow = 0;
      for (let s = 0; s < L; s++) inflow += q[(p - 1) * LL + s * L + t]!;
      for (let u = 0; u < L; u++) outflow += q[p * LL + t * L + u]!;
      total += inflow;
      worst = Math.max(worst, Math.abs(inflow - outflow));
    }
    worst = Math.max(worst, Math.abs(total - 1));
  }
  for (let j = 0; j < n - 1; j++) {
    let total = 0;
    for (let ab = 0; ab < LL; ab++) total += q[j * LL + ab]!;
    worst = Math.max(worst, Math.abs(total - 1));
  }
  return worst;
}

/**
 * The Bcrf optimum by an independent method: exponentiated-gradient ascent over distributions
 * p on the enumerated labellings of max_p ⟨p, Mᵀw⟩ + τ·H(Mp) (the definition of B_Y, §3.1).
 */
function mirrorAscent(input: ChainInput, tau: number, steps: number): Float64Array {
  const { n, L } = input;
  const LL = L * L;
  const ys: Int32Array[] = [];
  const scores: number[] = [];
  forEachFeasible(input, (y, s) => {
    ys.push(y.slice());
    scores.push(s);
  });
  let p = new Float64Array(ys.length).fill(1 / ys.length);
  const q = new Float64Array((n - 1) * LL);
  const eta = 0.5 / tau;
  for (let step = 0; step < steps; step++) {
    q.fill(0);
    ys.forEach((y, k) => {
      for (let j = 0; j < n - 1; j++) q[j * LL + y[j]! * L + y[j + 1]!]! += p[k]!;
    });
    const g = ys.map((y, k) => {
      let h = 0;
      for (let j = 0; j < n - 1; j++) h += Math.log(q[j * LL + y[j]! * L + y[j + 1]!]!) + 1;
      return scores[k]! - tau * h;
    });
    const m = Math.max(...g);
    const next = new Float64Array(ys.length);
    let z = 0;
    for (let k = 0; k < ys.length; k++) {
      next[k] = p[k]! * Math.exp(eta * (g[k]! - m));
      z += next[k]!;
    }
    for (let k = 0; k < ys.length; k++) next[k]! /= z;
    p = next;
  }
  q.fill(0);
  ys.forEach((y, k) => {
    for (let j = 0; j < n - 1; j++) q[j * LL + y[j]! * L + y[j + 1]!]! += p[k]!;
  });
  return q;
}

describe("Bcrf inference (iterative Bregman projections)", () => {
  it("the factorised kernel equals the dense log-domain kernel after every number of half-steps", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom(1, 0.1, 3),
        fc.constantFrom(0, 0.3),
        (seed, iterations, tau, forbid) => {
          const input = randomInput(seed, { maxN: 9, maxL: 4, forbid });
          const fast = new BcrfWorkspace();
          const dense = new BcrfWorkspace();
          const a = bcrfInference(input, { iterations, temperature: tau }, fast);
          const b = logDomainIbp(input, { iterations, temperature: tau }, dense);
          expect(a.status).toBe(b.status);
          const { n, L } = input;
          expectClose(fast.marginals.subarray(0, n * L), dense.marginals.subarray(0, n * L), 1e-9);
          if (a.status !== "infeasible" && n >= 2) {
            expectClose(blocks(fast, n, L), blocks(dense, n, L), 1e-9);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the WebAssembly SIMD half-steps give the JavaScript kernel's results", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 15 }),
        fc.constantFrom(1, 0.1),
        fc.constantFrom(0, 0.3),
        (seed, iterations, tau, forbid) => {
          const input = randomInput(seed, { maxN: 30, maxL: 9, forbid });
          const simd = new BcrfWorkspace();
          const js = new BcrfWorkspace({ simd: false });
          const traceA: number[] = [];
          const traceB: number[] = [];
          const a = bcrfInference(
            input,
            { iterations, temperature: tau, onIteration: (_i, v) => traceA.push(v) },
            simd,
          );
          const b = bcrfInference(
            input,
            { iterations, temperature: tau, onIteration: (_i, v) => traceB.push(v) },
            js,
          );
          expect(a.status).toBe(b.status);
          expect(a.iterations).toBe(b.iterations);
          expect(traceA.length).toBe(traceB.length);
          traceA.forEach((v, k) => {
            if (Number.isFinite(v)) expect(Math.abs(v - traceB[k]!)).toBeLessThan(1e-9);
            else expect(traceB[k]).toBe(v);
          });
          const { n, L } = input;
          expectClose(simd.marginals.subarray(0, n * L), js.marginals.subarray(0, n * L), 1e-12);
          if (a.status !== "infeasible" && n >= 2)
            expectClose(blocks(simd, n, L), blocks(js, n, L), 1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("converges to the optimum of max ⟨q, w⟩ + τH(q) over the marginal polytope (mirror ascent on enumerated labellings)", () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const input = randomInput(seed, { minN: 3, maxN: 4, maxL: 3, forbid: seed > 4 ? 0.25 : 0 });
      const tau = seed % 2 === 0 ? 1 : 0.5;
      const ws = new BcrfWorkspace();
      const result = bcrfInference(input, { ...CONVERGE, temperature: tau }, ws);
      if (result.status === "infeasible") continue;
      expect(result.status).toBe("converged");
      const q = blocks(ws, input.n, input.L);
      expect(polytopeViolation(q, input.n, input.L)).toBeLessThan(1e-10);
      expectClose(q, mirrorAscent(input, tau, 30_000), 2e-5);
    }
  });

  it("is the forward-backward marginals of the chain reweighted by −τ·log μ at inner positions (KKT, exact)", () => {
    // Bcrf drops the CRF entropy's node terms −Σ H(μ_i); adding u_i = −log μ_i to the scores/τ
    // gives them back, so the converged Bcrf marginals are a CRF's exact marginals.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.constantFrom(1, 0.5), (seed, tau) => {
        const input = randomInput(seed, { minN: 3, maxN: 12, maxL: 5, positionSpecific: 0 });
        const { n, L } = input;
        const ws = new BcrfWorkspace();
        const result = bcrfInference(input, { ...CONVERGE, temperature: tau }, ws);
        expect(result.status).toBe("converged");
        const unary = Float64Array.from(input.local, (v) => v / tau);
        for (let i = 1; i < n - 1; i++) {
          for (let t = 0; t < L; t++) unary[i * L + t]! -= Math.log(ws.marginals[i * L + t]!);
        }
        const transition = Float64Array.from(input.transition, (v) => v / tau);
        const fb = forwardBackward({ n, L, unary, transition }, { pairwise: true });
        expectClose(blocks(ws, n, L), fb.pairwise!, 1e-8);
        expectClose(ws.marginals.subarray(0, n * L), fb.marginals, 1e-8);
      }),
      { numRuns: 100 },
    );
  });

  it("n = 1 is the softmax of the local scores and n = 2 the exact pairwise CRF marginals", () => {
    for (let seed = 0; seed < 40; seed++) {
      const input = randomInput(seed, {
        minN: 1,
        maxN: 2,
        maxL: 5,
        forbid: seed % 2 === 0 ? 0.3 : 0,
      });
      const ws = new BcrfWorkspace();
      const result = bcrfInference(input, { iterations: 3 }, ws);
      const exact = bruteForceCrf(input);
      if (exact.count === 0) {
        expect(result.status).toBe("infeasible");
        continue;
      }
      expect(result.status).toBe("converged");
      expectClose(ws.marginals.subarray(0, input.n * input.L), exact.marginals, 1e-12);
      if (input.n === 2) expectClose(blocks(ws, 2, input.L), exact.pairwise, 1e-12);
    }
  });

  it("gives forbidden arcs and dead labels exactly zero mass, never NaN, and reports infeasible chains", () => {
    let infeasible = 0;
    for (let seed = 0; seed < 400; seed++) {
      const input = randomInput(seed, { minN: 3, maxN: 8, maxL: 4, forbid: 0.45 });
      const ws = new BcrfWorkspace();
      const result = bcrfInference(input, { iterations: 7, temperature: 0.1 }, ws);
      const { n, L } = input;
      const exact = bruteForceCrf(input);
      if (exact.count === 0) {
        infeasible++;
        expect(result.status).toBe("infeasible");
        expect(ws.marginals.subarray(0, n * L).every((p) => p === 0)).toBe(true);
        continue;
      }
      const q = blocks(ws, n, L);
      // Exactly the arcs on some feasible labelling carry mass.
      for (let j = 0; j < n - 1; j++) {
        for (let ab = 0; ab < L * L; ab++) {
          expect(Number.isNaN(q[j * L * L + ab]!)).toBe(false);
          expect(q[j * L * L + ab]! > 0).toBe(exact.pairwise[j * L * L + ab]! > 0);
        }
      }
    }
    expect(infeasible).toBeGreaterThan(10);
  });

  it("B_Y's gradient with respect to the local and transition scores is the converged iterate (finite differences)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (seed) => {
        const input = randomInput(seed, { minN: 1, maxN: 6, maxL: 3 });
        const { n, L } = input;
        const ws = new BcrfWorkspace();
        const value = (inp: ChainInput) => {
          bcrfInference(inp, CONVERGE, ws);
          return bcrfValue(inp, ws);
        };
        bcrfInference(input, CONVERGE, ws);
        const grad: ChainGradient = {
          rows: new Float64Array(n * L),
          pairwise: new Float64Array(L * L),
          perPosition: input.transitionStride === 0 ? null : new Float64Array((n - 1) * L * L),
        };
        addBcrfStatistics(input, ws, 1, grad);
        const h = 1e-6;
        const check = (array: Float64Array, at: number, expected: number) => {
          const keep = array[at]!;
          array[at] = keep + h;
          const up = value(input);
          array[at] = keep - h;
          const down = value(input);
          array[at] = keep;
          expect(Math.abs((up - down) / (2 * h) - expected)).toBeLessThan(1e-5);
        };
        for (let q = 0; q < n * L; q++) check(input.local as Float64Array, q, grad.rows[q]!);
        const pairs = input.transitionStride === 0 ? grad.pairwise : grad.perPosition!;
        for (let q = 0; q < pairs.length; q++)
          check(input.transition as Float64Array, q, pairs[q]!);
      }),
      { numRuns: 60 },
    );
  });

  it("approaches the MAP score as τ → 0 (Prop. 3.1)", () => {
    const input = randomInput(11, { minN: 6, maxN: 6, maxL: 4 });
    const exact = bruteForceCrf(input);
    const ws = new BcrfWorkspace();
    const w = new Float64Array((input.n - 1) * input.L * input.L);
    foldScores(input, w);
    const gaps = [1, 0.3, 0.1, 0.03].map((tau) => {
      bcrfInference(input, { iterations: 50_000, tolerance: 1e-11, temperature: tau }, ws);
      const q = blocks(ws, input.n, input.L);
      let linear = 0;
      for (let k = 0; k < q.length; k++) if (q[k]! > 0) linear += q[k]! * w[k]!;
      return exact.best - linear;
    });
    for (let k = 1; k < gaps.length; k++) expect(gaps[k]!).toBeLessThanOrEqual(gaps[k - 1]! + 1e-9);
    expect(gaps[gaps.length - 1]!).toBeGreaterThanOrEqual(-1e-9);
    expect(gaps[gaps.length - 1]!).toBeLessThan(0.05);
  });

  it("survives scores whose exps underflow (falls back to the log domain) without NaN", () => {
    const input = randomInput(5, { minN: 8, maxN: 8, maxL: 4, spread: 400 });
    const ws = new BcrfWorkspace();
    const dense = new BcrfWorkspace();
    const a = bcrfInference(input, { iterations: 10, temperature: 0.1 }, ws);
    const b = logDomainIbp(input, { iterations: 10, temperature: 0.1 }, dense);
    expect(a.status).toBe(b.status);
    const mu = ws.marginals.subarray(0, input.n * input.L);
    expect(mu.every((p) => Number.isFinite(p))).toBe(true);
    expectClose(mu, dense.marginals.subarray(0, input.n * input.L), 1e-6);
  });

  it("shifts the exps by the best live label: a dead label holding a position's maximum cannot underflow the live ones", () => {
    // Position 1's label 0 scores 100 but is dead (no allowed successor); the live labels sit
    // 76 to 80 below it, so exp((v − max)/τ) with the dead label's max would underflow at τ = 0.1.
    const L = 3;
    const local = Float64Array.of(0, 0, 0, 100, 24, 20, 0, 0, 0, 0, 0, 0);
    const allowed = Uint8Array.of(0, 1, 1, 0, 1, 1, 0, 1, 1);
    const input = {
      n: 4,
      L,
      local,
      localBase: 0,
      transition: new Float64Array(L * L),
      transitionBase: 0,
      transitionStride: 0,
      allowed,
    };
    const fast = new BcrfWorkspace();
    const dense = new BcrfWorkspace();
    bcrfInference(input, { iterations: 10, temperature: 0.1 }, fast);
    logDomainIbp(input, { iterations: 10, temperature: 0.1 }, dense);
    expectClose(fast.marginals.subarray(0, 12), dense.marginals.subarray(0, 12), 1e-12);
    expect(fast.marginals[4]!).toBeGreaterThan(0.99); // label 1 at position 1: the live best
  });

  it("reports each half-step once, also when a sequence falls back to the log domain", () => {
    for (let seed = 0; seed < 30; seed++) {
      const input = randomInput(seed, { minN: 6, maxN: 12, maxL: 4, spread: 400 });
      const seen: number[] = [];
      bcrfInference(
        input,
        { iterations: 8, temperature: 0.1, onIteration: (i) => seen.push(i) },
        new BcrfWorkspace(),
      );
      expect(seen).toEqual(seen.map((_v, k) => k + 1));
    }
  });

  it("rejects NaN and +∞ scores with the position named", () => {
    const make = () => ({
      n: 4,
      L: 3,
      local: new Float64Array(12),
      localBase: 0,
      transition: new Float64Array(9),
      transitionBase: 0,
      transitionStride: 0,
      allowed: null,
    });
    const a = make();
    a.local[5] = Number.NaN;
    expect(() => bcrfInference(a, {}, new BcrfWorkspace())).toThrow(
      /local score at position 1, label 2/,
    );
    const b = make();
    b.transition[1] = Number.POSITIVE_INFINITY;
    expect(() => bcrfInference(b, {}, new BcrfWorkspace())).toThrow(/transition score 0 → 1/);
  });

  it("reports the violation per half-step and stops at the tolerance", () => {
    let seed = 3;
    while (randomInput(seed, { minN: 20, maxN: 20, maxL: 5 }).L < 4) seed++;
    const input = randomInput(seed, { minN: 20, maxN: 20, maxL: 5, positionSpecific: 0 });
    const trace: number[] = [];
    const ws = new BcrfWorkspace();
    const result = bcrfInference(
      input,
      { iterations: 500, tolerance: 1e-8, onIteration: (_i, v) => trace.push(v) },
      ws,
    );
    expect(result.status).toBe("converged");
    expect(result.iterations).toBe(trace.length);
    expect(result.violation).toBeLessThanOrEqual(1e-8);
    expect(trace[0]).toBe(Number.POSITIVE_INFINITY);
    expect(trace.length).toBeGreaterThan(6);
    expect(trace[6]!).toBeLessThan(trace[3]!);
  });
});
