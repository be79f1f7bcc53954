import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProblemValidationError } from "../../errors.js";
import type { BinaryFactor } from "./binary-factor.js";
import { denseFactor, pairFactor } from "./dense-factors.js";
import {
  andOutFactor,
  atMostOneFactor,
  budgetFactor,
  implyFactor,
  knapsackFactor,
  linearConstraintFactor,
  orFactor,
  orOutFactor,
  xorFactor,
} from "./logic-factors.js";

// ---------------------------------------------------------------------------------------------
// Independent references

type Vec = number[];

function allConfigs(n: number): Vec[] {
  const out: Vec[] = [];
  for (let m = 0; m < 1 << n; m++) out.push(Array.from({ length: n }, (_, i) => (m >> i) & 1));
  return out;
}

const dot = (x: ArrayLike<number>, y: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * y[i]!;
  return s;
};

/** Solves M x = b by Gaussian elimination with partial pivoting; undefined when singular. */
function solve(matrix: number[][], rhs: number[]): number[] | undefined {
  const n = rhs.length;
  const m = matrix.map((row, i) => [...row, rhs[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-13) return undefined;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Wolfe's minimum-norm-point algorithm (1976): the point of hull(points) nearest to `target`,
 * exact up to rounding once the optimal face is found (finite steps).
 */
function projectOntoHull(points: Vec[], target: Vec): Vec {
  const p = points.map((x) => x.map((xi, i) => xi - target[i]!));
  const scale = Math.max(1, ...p.map((x) => dot(x, x)));
  let best = 0;
  for (let j = 1; j < p.length; j++) if (dot(p[j]!, p[j]!) < dot(p[best]!, p[best]!)) best = j;
  let support = [best];
  let weights = [1];
  const combine = (s: number[], w: number[]): Vec =>
    target.map((_, i) => s.reduce((acc, j, k) => acc + w[k]! * p[j]![i]!, 0));
  let x = combine(support, weights);
  for (let iteration = 0; iteration < 1000; iteration++) {
    let j = 0;
    for (let k = 1; k < p.length; k++) if (dot(p[k]!, x) < dot(p[j]!, x)) j = k;
    if (dot(x, x) - dot(p[j]!, x) <= 1e-14 * scale || support.includes(j)) break;
    support.push(j);
    weights.push(0);
    for (;;) {
      const g = support.map((a) => support.map((b) => dot(p[a]!, p[b]!) + 1));
      const y = solve(
        g,
        support.map(() => 1),
      );
      if (y === undefined) throw new Error("affinely dependent support");
      const total = y.reduce((a, b) => a + b, 0);
      const alpha = y.map((yi) => yi / total);
      if (alpha.every((a) => a > 1e-15)) {
        weights = alpha;
        break;
      }
      let theta = 1;
      for (let k = 0; k < alpha.length; k++) {
        if (alpha[k]! <= 1e-15) theta = Math.min(theta, weights[k]! / (weights[k]! - alpha[k]!));
      }
      weights = weights.map((w, k) => (1 - theta) * w + theta * alpha[k]!);
      const keep = weights.map((w) => w > 1e-15);
      if (keep.every(Boolean)) {
        let worst = 0;
        for (let k = 1; k < weights.length; k++) if (weights[k]! < weights[worst]!) worst = k;
        keep[worst] = false;
      }
      support = support.filter((_, k) => keep[k]);
      weights = weights.filter((_, k) => keep[k]);
      const sum = weights.reduce((a, b) => a + b, 0);
      weights = weights.map((w) => w / sum);
    }
    x = combine(support, weights);
  }
  return x.map((xi, i) => xi + target[i]!);
}

/**
 * Vertices of [0,1]^n ∩ {a·z ≤ rhs} (side +1) or {a·z ≥ rhs} (side −1): the box vertices on that
 * side and the points where the box's edges cross a·z = rhs.
 */
function boxHalfspaceVertices(a: Vec, rhs: number, side: 1 | -1): Vec[] {
  const n = a.length;
  const out: Vec[] = [];
  for (const z of allConfigs(n)) if (side * (dot(a, z) - rhs) <= 0) out.push(z);
  for (const z of allConfigs(n)) {
    for (let i = 0; i < n; i++) {
      if (z[i] !== 0 || a[i] === 0) continue;
      const t = (rhs - (dot(a, z) - a[i]! * z[i]!)) / a[i]!;
      if (t > 0 && t < 1) out.push(z.map((x, k) => (k === i ? t : x)));
    }
  }
  return out;
}

/**
 * The projection for PAIR in the lifted (q1, q2, q12) space, whose polytope is a tetrahedron with
 * four facets: every active set's equality-constrained minimiser, the best feasible one.
 */
function pairReference(v: Vec, w: number): Vec {
  // g·x ≤ h for x = (q1, q2, t).
  const facets: [Vec, number][] = [
    [[0, 0, -1], 0],
    [[1, 1, -1], 1],
    [[-1, 0, 1], 0],
    [[0, -1, 1], 0],
  ];
  const objective = (x: Vec) => 0.5 * (x[0]! - v[0]!) ** 2 + 0.5 * (x[1]! - v[1]!) ** 2 - w * x[2]!;
  let best: Vec | undefined;
  for (let mask = 1; mask < 16; mask++) {
    const active = facets.filter((_, k) => (mask >> k) & 1);
    const size = 3 + active.length;
    const m: number[][] = Array.from({ length: size }, () => new Array<number>(size).fill(0));
    const b = new Array<number>(size).fill(0);
    m[0]![0] = 1;
    m[1]![1] = 1;
    b[0] = v[0]!;
    b[1] = v[1]!;
    b[2] = w;
    active.forEach(([g, h], k) => {
      for (let i = 0; i < 3; i++) {
        m[i]![3 + k] = g[i]!;
        m[3 + k]![i] = g[i]!;
      }
      b[3 + k] = h;
    });
    const x = solve(m, b);
    if (x === undefined) continue;
    const point = x.slice(0, 3);
    if (!facets.every(([g, h]) => dot(g, point) <= h + 1e-12)) continue;
    if (best === undefined || objective(point) < objective(best)) best = point;
  }
  return best!.slice(0, 2);
}

// ---------------------------------------------------------------------------------------------
// Definitions of the factors, written from their semantics

type Kind = "xor" | "atMostOne" | "or" | "orOut" | "andOut" | "imply" | "budget";

function allowedBy(kind: Kind, lit: Vec, budget: number): boolean {
  const n = lit.length;
  const on = lit.reduce((a, b) => a + b, 0);
  const inputs = lit.slice(0, n - 1);
  const last = lit[n - 1]!;
  switch (kind) {
    case "xor":
      return on === 1;
    case "atMostOne":
      return on <= 1;
    case "or":
      return on >= 1;
    case "orOut":
      return last === (inputs.some((x) => x === 1) ? 1 : 0);
    case "andOut":
      return last === (inputs.every((x) => x === 1) ? 1 : 0);
    case "imply":
      return !inputs.every((x) => x === 1) || last === 1;
    case "budget":
      return on <= budget;
  }
}

function make(kind: Kind, n: number, negated: Uint8Array, budget: number): BinaryFactor {
  switch (kind) {
    case "xor":
      return xorFactor(n, negated);
    case "atMostOne":
      return atMostOneFactor(n, negated);
    case "or":
      return orFactor(n, negated);
    case "orOut":
      return orOutFactor(n, negated);
    case "andOut":
      return andOutFactor(n, negated);
    case "imply":
      return implyFactor(n, negated);
    case "budget":
      return budgetFactor(n, budget, negated);
  }
}

const literalsOf = (z: Vec, negated: Uint8Array): Vec => z.map((x, i) => (negated[i] ? 1 - x : x));

// ---------------------------------------------------------------------------------------------
// Generators

/**
 * Doubles in [min, max] without the subnormal-scale magnitudes (a coefficient of 1e-320 makes
 * ratios overflow and products underflow: no reference is exact there).
 */
const num = (min: number, max: number) =>
  fc.double({ min, max, noNaN: true }).map((x) => (Math.abs(x) < 1e-6 ? 0 : x));

const value = fc.oneof(num(-1.5, 2.5), fc.constantFrom(0, 0.5, 1, -1, 2, 0.25));
const scaleArb = fc.oneof(num(0.05, 3), fc.constant(1));

function instance(minSize: number) {
  return fc.integer({ min: minSize, max: 6 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      negated: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      v: fc.array(value, { minLength: n, maxLength: n }),
      adj: fc.array(value, { minLength: n, maxLength: n }),
      scale: scaleArb,
      budget: fc.integer({ min: 0, max: n }),
    }),
  );
}

const TOL = 1e-7;

function expectNear(q: Vec, want: Vec): void {
  for (let i = 0; i < q.length; i++) expect(Math.abs(q[i]! - want[i]!)).toBeLessThan(TOL);
}

/** max over the 0/1 configurations of score + adj·z. */
function bruteMap(score: (z: Vec) => number, n: number, adj: Vec): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const z of allConfigs(n)) best = Math.max(best, score(z) + dot(adj, z));
  return best;
}

/** (v − q)·(z − q) + scale·(s_z − s_q) ≤ tol at every generating point z. */
function expectVariational(
  points: Vec[],
  scores: number[],
  q: Vec,
  sq: number,
  v: Vec,
  scale: number,
) {
  points.forEach((z, k) => {
    const lhs =
      dot(
        v.map((x, i) => x - q[i]!),
        z.map((x, i) => x - q[i]!),
      ) +
      scale * (scores[k]! - sq);
    expect(lhs).toBeLessThanOrEqual(1e-9);
  });
}

// ---------------------------------------------------------------------------------------------

const KINDS: Kind[] = ["xor", "atMostOne", "or", "orOut", "andOut", "imply", "budget"];

describe.each(KINDS)("%s factor", (kind) => {
  it("map equals brute force over the 0/1 configurations and returns a maximiser", () => {
    fc.assert(
      fc.property(instance(1), ({ n, negated, adj, budget }) => {
        const neg = Uint8Array.from(negated, Number);
        const f = make(kind, n, neg, budget);
        const definition = (z: Vec) =>
          allowedBy(kind, literalsOf(z, neg), budget) ? 0 : Number.NEGATIVE_INFINITY;
        const out = new Float64Array(n);
        const got = f.map(Float64Array.from(adj), out);
        const want = bruteMap(definition, n, adj);
        expect(got).toBeCloseTo(want, 9);
        const z = Array.from(out);
        expect(z.every((x) => x === 0 || x === 1)).toBe(true);
        expect(definition(z) + dot(adj, z)).toBeCloseTo(want, 9);
      }),
      { numRuns: 300 },
    );
  });

  it("score is 0 on allowed configurations and −∞ otherwise", () => {
    fc.assert(
      fc.property(instance(1), ({ n, negated, budget }) => {
        const neg = Uint8Array.from(negated, Number);
        const f = make(kind, n, neg, budget);
        for (const z of allConfigs(n)) {
          expect(f.score(z)).toBe(
            allowedBy(kind, literalsOf(z, neg), budget) ? 0 : Number.NEGATIVE_INFINITY,
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it("project equals the projection onto the hull of the allowed configurations", () => {
    fc.assert(
      fc.property(instance(1), ({ n, negated, v, scale, budget }) => {
        const neg = Uint8Array.from(negated, Number);
        const f = make(kind, n, neg, budget);
        const allowed = allConfigs(n).filter((z) => allowedBy(kind, literalsOf(z, neg), budget));
        const out = new Float64Array(n);
        f.project!(Float64Array.from(v), scale, out);
        const q = Array.from(out);
        const want = projectOntoHull(allowed, v);
        expectNear(q, want);
        expectVariational(
          allowed,
          allowed.map(() => 0),
          q,
          0,
          v,
          scale,
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("knapsack factor (continuous relaxation)", () => {
  const knapsack = instance(1).chain((base) =>
    fc.record({
      base: fc.constant(base),
      costs: fc.array(fc.oneof(num(0, 3), fc.constantFrom(0, 1, 2)), {
        minLength: base.n,
        maxLength: base.n,
      }),
      budget: fc.oneof(num(0, 6), fc.constantFrom(0, 1, 2.5)),
    }),
  );
  /** The constraint in z: Σ c_i·lit_i ≤ b becomes a·z ≤ r. */
  const inZ = (costs: Vec, negated: boolean[], budget: number) => {
    let r = budget;
    const a = costs.map((c, i) => {
      if (negated[i]) {
        r -= c;
        return -c;
      }
      return c;
    });
    return { a, r };
  };

  it("map equals the LP over the vertices of box ∩ halfspace", () => {
    fc.assert(
      fc.property(knapsack, ({ base, costs, budget }) => {
        const f = knapsackFactor(
          Float64Array.from(costs),
          budget,
          Uint8Array.from(base.negated, Number),
        );
        const { a, r } = inZ(costs, base.negated, budget);
        const vertices = boxHalfspaceVertices(a, r, 1);
        const want = Math.max(...vertices.map((z) => dot(base.adj, z)));
        const out = new Float64Array(base.n);
        const got = f.map(Float64Array.from(base.adj), out);
        expect(got).toBeCloseTo(want, 9);
        expect(dot(base.adj, out)).toBeCloseTo(want, 9);
        expect(dot(a, out)).toBeLessThanOrEqual(r + 1e-9);
        expect(Array.from(out).every((x) => x >= 0 && x <= 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("score is the constraint on 0/1 configurations", () => {
    fc.assert(
      fc.property(knapsack, ({ base, costs, budget }) => {
        const neg = Uint8Array.from(base.negated, Number);
        const f = knapsackFactor(Float64Array.from(costs), budget, neg);
        for (const z of allConfigs(base.n)) {
          const used = dot(costs, literalsOf(z, neg));
          expect(f.score(z)).toBe(used <= budget ? 0 : Number.NEGATIVE_INFINITY);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("project equals the projection onto box ∩ halfspace", () => {
    fc.assert(
      fc.property(knapsack, ({ base, costs, budget }) => {
        const f = knapsackFactor(
          Float64Array.from(costs),
          budget,
          Uint8Array.from(base.negated, Number),
        );
        const { a, r } = inZ(costs, base.negated, budget);
        const vertices = boxHalfspaceVertices(a, r, 1);
        const out = new Float64Array(base.n);
        f.project!(Float64Array.from(base.v), base.scale, out);
        const q = Array.from(out);
        const want = projectOntoHull(vertices, base.v);
        expectNear(q, want);
        expectVariational(
          vertices,
          vertices.map(() => 0),
          q,
          0,
          base.v,
          base.scale,
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("linear-constraint factor", () => {
  const linear = instance(1).chain((base) =>
    fc.record({
      base: fc.constant(base),
      a: fc.array(fc.oneof(num(-3, 3), fc.constantFrom(0, 1, -1, 2)), {
        minLength: base.n,
        maxLength: base.n,
      }),
      rhs: fc.oneof(num(-3, 4), fc.constantFrom(0, 1, -1)),
      penalty: fc.option(fc.oneof(num(0, 4), fc.constantFrom(0, 1)), {
        nil: undefined,
      }),
    }),
  );
  /** The score; `slack` forgives the rounding of a·z at fractional points on the hyperplane. */
  const extended =
    (a: Vec, rhs: number, penalty: number | undefined, slack = 0) =>
    (z: Vec) => {
      const e = dot(a, z) - rhs;
      if (e <= slack) return e <= 0 ? 0 : -(penalty ?? 0) * e;
      return penalty === undefined ? Number.NEGATIVE_INFINITY : -penalty * e;
    };
  /** Vertices of the pieces on which the concave score is linear. */
  const pieces = (a: Vec, rhs: number, penalty: number | undefined): Vec[][] =>
    penalty === undefined
      ? [boxHalfspaceVertices(a, rhs, 1)]
      : [boxHalfspaceVertices(a, rhs, 1), boxHalfspaceVertices(a, rhs, -1)];

  it("map equals the LP over the box, and multiplier() is its dual optimum", () => {
    fc.assert(
      fc.property(linear, ({ base, a, rhs, penalty }) => {
        const f = linearConstraintFactor({ coefficients: Float64Array.from(a), rhs, penalty });
        const score = extended(a, rhs, penalty, 1e-12);
        const points = pieces(a, rhs, penalty).flat();
        const want = Math.max(
          Number.NEGATIVE_INFINITY,
          ...points.map((z) => score(z) + dot(base.adj, z)),
        );
        const out = new Float64Array(base.n);
        const got = f.map(Float64Array.from(base.adj), out);
        const mu = f.multiplier();
        if (want === Number.NEGATIVE_INFINITY) {
          expect(got).toBe(Number.NEGATIVE_INFINITY);
          expect(mu).toBe(Number.POSITIVE_INFINITY);
          return;
        }
        expect(got).toBeCloseTo(want, 9);
        const z = Array.from(out);
        expect(score(z) + dot(base.adj, z)).toBeCloseTo(want, 9);
        expect(mu).toBeGreaterThanOrEqual(0);
        expect(mu).toBeLessThanOrEqual(penalty ?? Number.POSITIVE_INFINITY);
        const dual = mu * rhs + base.adj.reduce((s, x, i) => s + Math.max(0, x - mu * a[i]!), 0);
        expect(dual).toBeCloseTo(want, 9);
      }),
      { numRuns: 400 },
    );
  });

  it("score is 0 when a·z ≤ rhs, else −∞ (hard) or −penalty·excess", () => {
    fc.assert(
      fc.property(linear, ({ base, a, rhs, penalty }) => {
        const f = linearConstraintFactor({ coefficients: Float64Array.from(a), rhs, penalty });
        for (const z of allConfigs(base.n)) expect(f.score(z)).toBe(extended(a, rhs, penalty)(z));
      }),
      { numRuns: 100 },
    );
  });

  it("project minimises ½‖q − v‖² − scale·score(q) over the box", () => {
    fc.assert(
      fc.property(linear, ({ base, a, rhs, penalty }) => {
        const f = linearConstraintFactor({ coefficients: Float64Array.from(a), rhs, penalty });
        const score = extended(a, rhs, penalty, 1e-12);
        const { v, scale, n } = base;
        const out = new Float64Array(n);
        f.project!(Float64Array.from(v), scale, out);
        const q = Array.from(out);
        const all = pieces(a, rhs, penalty);
        if (all[0]!.length === 0 && penalty === undefined) return; // infeasible: nothing to project onto
        // Per piece, the score is linear in q (−penalty·(a·q − rhs) on the upper one), which
        // shifts the target; the better piece holds the optimum.
        const objective = (x: Vec) =>
          0.5 * x.reduce((s, xi, i) => s + (xi - v[i]!) ** 2, 0) - scale * score(x);
        const candidates = all.flatMap((points, k) =>
          points.length === 0
            ? []
            : [
                projectOntoHull(
                  points,
                  k === 0 ? v : v.map((x, i) => x - scale * penalty! * a[i]!),
                ),
              ],
        );
        const want = candidates.reduce((b, c) => (objective(c) < objective(b) ? c : b));
        expectNear(q, want);
        const points = all.flat();
        expectVariational(points, points.map(score), q, score(q), v, scale);
      }),
      { numRuns: 400 },
    );
  });
});

describe("pair factor", () => {
  const pair = fc.record({
    s: fc.oneof(num(-3, 3), fc.constantFrom(0, 1, -1)),
    v: fc.array(value, { minLength: 2, maxLength: 2 }),
    adj: fc.array(value, { minLength: 2, maxLength: 2 }),
    scale: scaleArb,
  });
  const definition = (s: number) => (z: Vec) => (z[0] === 1 && z[1] === 1 ? s : 0);

  it("map and score match the enumeration", () => {
    fc.assert(
      fc.property(pair, ({ s, adj }) => {
        const f = pairFactor(s);
        const out = new Float64Array(2);
        const want = bruteMap(definition(s), 2, adj);
        expect(f.map(Float64Array.from(adj), out)).toBeCloseTo(want, 12);
        expect(definition(s)(Array.from(out)) + dot(adj, out)).toBeCloseTo(want, 12);
        for (const z of allConfigs(2)) expect(f.score(z)).toBe(definition(s)(z));
      }),
      { numRuns: 300 },
    );
  });

  it("project equals the lifted QP over the tetrahedron", () => {
    fc.assert(
      fc.property(pair, ({ s, v, scale }) => {
        const f = pairFactor(s);
        const out = new Float64Array(2);
        f.project!(Float64Array.from(v), scale, out);
        const q = Array.from(out);
        const want = pairReference(v, scale * s);
        expectNear(q, want);
        // Concave extension at q: the best joint distribution with these marginals.
        const sq = s >= 0 ? s * Math.min(q[0]!, q[1]!) : s * Math.max(0, q[0]! + q[1]! - 1);
        const configs = allConfigs(2);
        expectVariational(configs, configs.map(definition(s)), q, sq, v, scale);
      }),
      { numRuns: 500 },
    );
  });
});

describe("dense factor", () => {
  const dense = fc
    .array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 })
    .chain((cards) => {
      const total = cards.reduce((a, b) => a * b, 1);
      const size = cards.reduce((a, b) => a + b, 0);
      return fc.record({
        cards: fc.constant(cards),
        scores: fc.array(fc.oneof(value, fc.constant(Number.NEGATIVE_INFINITY)), {
          minLength: total,
          maxLength: total,
        }),
        adj: fc.array(value, { minLength: size, maxLength: size }),
      });
    });
  /** Joint configurations, last variable fastest, with their one-hot vectors. */
  const joint = (cards: number[]) => {
    let states: number[][] = [[]];
    for (const c of cards)
      states = states.flatMap((s) => Array.from({ length: c }, (_, t) => [...s, t]));
    return states.map((s) => {
      const z: number[] = [];
      s.forEach((t, k) => {
        for (let u = 0; u < cards[k]!; u++) z.push(u === t ? 1 : 0);
      });
      return z;
    });
  };

  it("map equals the enumeration of joint configurations; score reads the last-fastest index", () => {
    fc.assert(
      fc.property(dense, ({ cards, scores, adj }) => {
        const f = denseFactor(Int32Array.from(cards), Float64Array.from(scores));
        expect(f.project).toBeUndefined();
        const configs = joint(cards);
        const want = Math.max(...configs.map((z, idx) => scores[idx]! + dot(adj, z)));
        const out = new Float64Array(f.size);
        const got = f.map(Float64Array.from(adj), out);
        if (want === Number.NEGATIVE_INFINITY) expect(got).toBe(want);
        else {
          expect(got).toBeCloseTo(want, 12);
          expect(f.score(out) + dot(adj, out)).toBeCloseTo(want, 12);
        }
        configs.forEach((z, idx) => {
          expect(f.score(z)).toBe(scores[idx]);
        });
        for (const z of allConfigs(f.size)) {
          const index = configs.findIndex((c) => c.every((x, i) => x === z[i]));
          expect(f.score(z)).toBe(index < 0 ? Number.NEGATIVE_INFINITY : scores[index]);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("validation", () => {
  it("rejects malformed arguments naming the field", () => {
    expect(() => xorFactor(0)).toThrow(ProblemValidationError);
    expect(() => orFactor(3, new Uint8Array(2))).toThrow(/orFactor\.negated/);
    expect(() => budgetFactor(3, -1)).toThrow(/budgetFactor\.budget/);
    expect(() => budgetFactor(3, 1.5)).toThrow(/budgetFactor\.budget/);
    expect(() => knapsackFactor(Float64Array.of(1, Number.NaN), 1)).toThrow(/costs\[1\]/);
    expect(() => denseFactor(Int32Array.of(2, 2), new Float64Array(3))).toThrow(
      /denseFactor\.scores/,
    );
    expect(() => denseFactor(Int32Array.of(2, 0), new Float64Array(0))).toThrow(
      /cardinalities\[1\]/,
    );
    expect(() =>
      linearConstraintFactor({ coefficients: Float64Array.of(1), rhs: 0, penalty: -1 }),
    ).toThrow(/penalty/);
    expect(() => pairFactor(Number.POSITIVE_INFINITY)).toThrow(/pairFactor\.score/);
  });

  it("an infeasible hard constraint maps to −∞ with multiplier ∞", () => {
    const f = linearConstraintFactor({ coefficients: Float64Array.of(1, 1), rhs: -0.5 });
    const out = new Float64Array(2);
    expect(f.map(Float64Array.of(1, -1), out)).toBe(Number.NEGATIVE_INFINITY);
    expect(f.multiplier()).toBe(Number.POSITIVE_INFINITY);
    f.project!(Float64Array.of(0.3, 0.7), 1, out);
    expect(Array.from(out)).toEqual([0, 0]);
  });
});
