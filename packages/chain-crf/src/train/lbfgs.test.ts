import { AbortError, createRandom, type Random } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LineSearch, minimizeLbfgs, minimizeLbfgsSync, type Objective } from "./lbfgs.js";

/** A random symmetric positive-definite n×n matrix MᵀM + εI (row-major), with a spread spectrum. */
function randomSpd(random: Random, n: number): Float64Array {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) m[i] = random.float(-1, 1);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += m[k * n + i]! * m[k * n + j]!;
      a[i * n + j] = s + (i === j ? 0.1 : 0);
    }
  }
  return a;
}

/** Solves A x = b by Gaussian elimination with partial pivoting (an independent reference). */
function solve(a: Float64Array, b: Float64Array): Float64Array {
  const n = b.length;
  const m = Float64Array.from(a);
  const x = Float64Array.from(b);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) {
      if (Math.abs(m[r * n + col]!) > Math.abs(m[pivot * n + col]!)) pivot = r;
    }
    for (let c = 0; c < n; c++) {
      const t = m[col * n + c]!;
      m[col * n + c] = m[pivot * n + c]!;
      m[pivot * n + c] = t;
    }
    const tb = x[col]!;
    x[col] = x[pivot]!;
    x[pivot] = tb;
    for (let r = col + 1; r < n; r++) {
      const f = m[r * n + col]! / m[col * n + col]!;
      for (let c = col; c < n; c++) m[r * n + c] = m[r * n + c]! - f * m[col * n + c]!;
      x[r] = x[r]! - f * x[col]!;
    }
  }
  for (let r = n - 1; r >= 0; r--) {
    let s = x[r]!;
    for (let c = r + 1; c < n; c++) s -= m[r * n + c]! * x[c]!;
    x[r] = s / m[r * n + r]!;
  }
  return x;
}

/** f(x) = ½ xᵀAx − bᵀx + const (const keeps f positive near the optimum, as CRF losses are). */
function quadratic(a: Float64Array, b: Float64Array, constant: number): Objective {
  const n = b.length;
  return (x, g) => {
    let f = constant;
    for (let i = 0; i < n; i++) {
      let ax = 0;
      for (let j = 0; j < n; j++) ax += a[i * n + j]! * x[j]!;
      g[i] = ax - b[i]!;
      f += 0.5 * x[i]! * ax - b[i]! * x[i]!;
    }
    return f;
  };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe("minimizeLbfgs on convex quadratics", () => {
  for (const lineSearch of ["more-thuente", "backtracking-strong-wolfe"] as LineSearch[]) {
    it(`reaches the solution of A x = b (${lineSearch})`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          fc.integer({ min: 1, max: 12 }),
          (seed, n) => {
            const random = createRandom(seed);
            const a = randomSpd(random, n);
            const b = Float64Array.from({ length: n }, () => random.float(-2, 2));
            const exact = solve(a, b);
            const x = new Float64Array(n);
            const r = minimizeLbfgsSync(x, quadratic(a, b, 100), {
              lineSearch,
              epsilon: 1e-10,
              delta: 0,
              maxIterations: 500,
            });
            expect(["converged", "already-minimized", "line-search-failed"]).toContain(r.status);
            // The gradient A x − b is small relative to b (a line search that stops at the limits
            // of double precision leaves a residual that scales with the problem), so x is close
            // to the exact solution.
            const g = new Float64Array(n);
            quadratic(a, b, 100)(x, g);
            expect(Math.hypot(...g)).toBeLessThan(1e-6 * Math.max(1, Math.hypot(...b)));
            expect(maxAbsDiff(x, exact)).toBeLessThan(1e-4 * Math.max(1, Math.hypot(...exact)));
          },
        ),
        // [162784288, 9]: a residual of 1.006e-6 once failed an absolute 1e-6 bound (‖b‖ ≈ 3.4).
        { numRuns: 40, examples: [[162784288, 9]] },
      );
    });
  }

  it("solves the Rosenbrock function (non-convex) to (1, 1)", () => {
    const rosenbrock: Objective = (x, g) => {
      const [u, v] = [x[0]!, x[1]!];
      g[0] = -2 * (1 - u) - 400 * u * (v - u * u);
      g[1] = 200 * (v - u * u);
      return (1 - u) ** 2 + 100 * (v - u * u) ** 2;
    };
    const x = Float64Array.of(-1.2, 1);
    const r = minimizeLbfgsSync(x, rosenbrock, { epsilon: 1e-9, delta: 0, maxIterations: 200 });
    expect(r.f).toBeLessThan(1e-12);
    expect(maxAbsDiff(x, [1, 1])).toBeLessThan(1e-5);
  });

  it("stops by the delta rule of CRFsuite: relative decrease over `period` iterations", () => {
    const random = createRandom(7);
    const n = 30;
    const a = randomSpd(random, n);
    const b = Float64Array.from({ length: n }, () => random.float(-2, 2));
    const fs: number[] = [];
    const f0 = quadratic(a, b, 50)(new Float64Array(n), new Float64Array(n));
    const r = minimizeLbfgsSync(new Float64Array(n), quadratic(a, b, 50), {
      epsilon: 0,
      delta: 1e-3,
      period: 3,
      onIteration: (p) => {
        fs.push(p.f);
      },
    });
    expect(r.status).toBe("no-progress");
    const all = [f0, ...fs];
    const k = all.length - 1;
    expect((all[k - 3]! - all[k]!) / all[k]!).toBeLessThan(1e-3);
    for (let j = 3; j < k; j++)
      expect((all[j - 3]! - all[j]!) / all[j]!).toBeGreaterThanOrEqual(1e-3);
  });

  it("honours maxIterations, a callback returning false, and an aborted signal", async () => {
    const random = createRandom(3);
    const a = randomSpd(random, 20);
    const b = Float64Array.from({ length: 20 }, () => random.float(-2, 2));
    const q = quadratic(a, b, 10);
    const opts = { epsilon: 0, delta: 0 };
    expect(minimizeLbfgsSync(new Float64Array(20), q, { ...opts, maxIterations: 4 })).toMatchObject(
      {
        status: "max-iterations",
        iterations: 4,
      },
    );
    expect(
      minimizeLbfgsSync(new Float64Array(20), q, { ...opts, onIteration: (p) => p.iteration < 3 }),
    ).toMatchObject({ status: "stopped", iterations: 3 });
    const controller = new AbortController();
    let evaluations = 0;
    const run = minimizeLbfgs(
      new Float64Array(20),
      (x, g) => {
        evaluations++;
        if (evaluations === 5) controller.abort();
        return q(x, g);
      },
      { ...opts, signal: controller.signal },
    );
    await expect(run).rejects.toBeInstanceOf(AbortError);
    expect(evaluations).toBe(5);
  });

  it("runs asynchronous objectives and agrees with the synchronous driver", async () => {
    const random = createRandom(11);
    const a = randomSpd(random, 15);
    const b = Float64Array.from({ length: 15 }, () => random.float(-2, 2));
    const q = quadratic(a, b, 10);
    const xSync = new Float64Array(15);
    const xAsync = new Float64Array(15);
    const rs = minimizeLbfgsSync(xSync, q, { maxIterations: 25 });
    const ra = await minimizeLbfgs(xAsync, async (x, g) => q(x, g), { maxIterations: 25 });
    expect(ra).toEqual(rs);
    expect(Array.from(xAsync)).toEqual(Array.from(xSync));
  });

  it("rejects bad options and starting points with a clear message", () => {
    const q: Objective = (x, g) => {
      g[0] = x[0]!;
      return 0.5 * x[0]! ** 2;
    };
    expect(() => minimizeLbfgsSync(new Float64Array(1), q, { memory: 0 })).toThrow(/memory/);
    expect(() => minimizeLbfgsSync(Float64Array.of(Number.NaN), q)).toThrow(/x\[0\]/);
    expect(() => minimizeLbfgsSync(new Float64Array(1), q, { l1: -1 })).toThrow(/l1/);
  });
});

/** ½‖Mx − b‖² for an m×n matrix M; the smooth part of a lasso problem. */
function leastSquares(mat: Float64Array, b: Float64Array, n: number): Objective {
  const m = b.length;
  const r = new Float64Array(m);
  return (x, g) => {
    let f = 0;
    for (let i = 0; i < m; i++) {
      let s = -b[i]!;
      for (let j = 0; j < n; j++) s += mat[i * n + j]! * x[j]!;
      r[i] = s;
      f += 0.5 * s * s;
    }
    g.fill(0);
    for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) g[j] = g[j]! + mat[i * n + j]! * r[i]!;
    return f;
  };
}

/** FISTA (accelerated proximal gradient) for f + c‖x‖₁ — the second, independent algorithm. */
function fista(f: Objective, n: number, c: number, lipschitz: number, iterations: number) {
  const x = new Float64Array(n);
  const xPrev = new Float64Array(n);
  const z = new Float64Array(n);
  const g = new Float64Array(n);
  let t = 1;
  for (let it = 0; it < iterations; it++) {
    f(z, g);
    xPrev.set(x);
    for (let j = 0; j < n; j++) {
      const v = z[j]! - g[j]! / lipschitz;
      x[j] = Math.sign(v) * Math.max(0, Math.abs(v) - c / lipschitz);
    }
    const tNext = (1 + Math.sqrt(1 + 4 * t * t)) / 2;
    for (let j = 0; j < n; j++) z[j] = x[j]! + ((t - 1) / tNext) * (x[j]! - xPrev[j]!);
    t = tNext;
  }
  return x;
}

describe("OWL-QN (l1 > 0)", () => {
  it("matches proximal gradient on lasso problems, with exact zeros", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const random = createRandom(seed);
        const n = random.int(3, 10);
        const m = random.int(n, 2 * n);
        const mat = Float64Array.from({ length: m * n }, () => random.float(-1, 1));
        const b = Float64Array.from({ length: m }, () => random.float(-3, 3));
        const smooth = leastSquares(mat, b, n);
        // A c that zeroes some but not all coefficients: a fraction of max |∇f(0)|.
        const g0 = new Float64Array(n);
        smooth(new Float64Array(n), g0);
        const c = random.float(0.2, 0.7) * Math.max(...g0.map(Math.abs));
        let lipschitz = 0;
        for (let i = 0; i < m * n; i++) lipschitz += mat[i]! ** 2; // Frobenius² ≥ σ_max²
        const reference = fista(smooth, n, c, lipschitz, 20000);

        const x = new Float64Array(n);
        const r = minimizeLbfgsSync(x, smooth, {
          l1: c,
          epsilon: 1e-10,
          delta: 0,
          maxIterations: 1000,
        });
        expect(r.status).not.toBe("max-iterations");
        expect(maxAbsDiff(x, reference)).toBeLessThan(1e-4);
        for (let j = 0; j < n; j++) {
          if (Math.abs(reference[j]!) < 1e-7) expect(x[j]).toBe(0);
        }
        // The objective includes the L1 term.
        const gx = new Float64Array(n);
        let l1 = 0;
        for (let j = 0; j < n; j++) l1 += Math.abs(x[j]!);
        expect(r.f).toBeCloseTo(smooth(x, gx) + c * l1, 10);
      }),
      { numRuns: 25 },
    );
  });

  it("zeroes every coefficient when c exceeds max |∇f(0)|", () => {
    const random = createRandom(5);
    const n = 6;
    const mat = Float64Array.from({ length: 12 * n }, () => random.float(-1, 1));
    const b = Float64Array.from({ length: 12 }, () => random.float(-1, 1));
    const smooth = leastSquares(mat, b, n);
    const g0 = new Float64Array(n);
    smooth(new Float64Array(n), g0);
    const x = new Float64Array(n);
    const r = minimizeLbfgsSync(x, smooth, { l1: 1.01 * Math.max(...g0.map(Math.abs)) });
    expect(r.status).toBe("already-minimized");
    expect(Array.from(x)).toEqual(new Array(n).fill(0));
  });
});
