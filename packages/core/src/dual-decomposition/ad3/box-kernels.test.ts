import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoxScratch, mapUnitBox, projectUnitBox, spreadUnitBoxTies } from "./box-kernels.js";
import { DenseKernels, DenseTables } from "./dense-kernels.js";

/**
 * The projection onto box ∩ {a·z ≤ rhs} (or = rhs) with ±1 coefficients, by bisection on μ over
 * h(μ) = a·clip(v − μa), clipped to [lo, hi] (hi: a soft row's penalty): an algorithm independent
 * of the kernel's sort and Newton steps.
 */
function bisected(v: number[], a: number[], rhs: number, equality: boolean, hi: number): number[] {
  const at = (mu: number) => v.map((x, i) => Math.min(Math.max(x - mu * a[i]!, 0), 1));
  const h = (mu: number) => at(mu).reduce((s, x, i) => s + a[i]! * x, 0);
  let lo = equality ? -4 : 0;
  if (h(lo) <= rhs) return at(lo);
  let up = Math.min(hi, 4);
  if (h(up) >= rhs) return at(up);
  for (let k = 0; k < 200; k++) {
    const mid = 0.5 * (lo + up);
    if (h(mid) > rhs) lo = mid;
    else up = mid;
  }
  return at(0.5 * (lo + up));
}

const row = fc
  .record({
    n: fc.integer({ min: 1, max: 60 }),
    seed: fc.array(fc.double({ min: -1.5, max: 2.5, noNaN: true }), {
      minLength: 60,
      maxLength: 60,
    }),
    // Values on breakpoints (0, ½, 1) and ties: where a Newton step lands exactly on a piece's end.
    snap: fc.array(fc.constantFrom(-1, 0, 0.5, 1, 1.5), { minLength: 60, maxLength: 60 }),
    useSnap: fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
    negated: fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
    rhsFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    integral: fc.boolean(),
    equality: fc.boolean(),
    penalty: fc.constantFrom(Number.POSITIVE_INFINITY, 0.05, 0.7, 3),
    guesses: fc.array(
      fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(-0.5, 0, 0.5, 1)),
      { minLength: 3, maxLength: 3 },
    ),
  })
  .map((r) => {
    const v = r.seed.slice(0, r.n).map((x, i) => (r.useSnap[i] ? r.snap[i]! : x));
    const a = r.negated.slice(0, r.n).map((neg) => (neg ? -1 : 1));
    const negatives = a.filter((x) => x < 0).length;
    // rhs between the least a·z the box allows and a·clip(v), so that the row binds: the root
    // search runs (an integral rhs: a count row's).
    const unclipped = v.reduce((s, x, i) => s + a[i]! * Math.min(Math.max(x, 0), 1), 0);
    const span = r.rhsFraction * (unclipped + negatives);
    const rhs = (r.integral ? Math.floor(span) : span) - negatives;
    return { ...r, v, a, rhs };
  });

describe("unit-coefficient box projection", () => {
  it("equals bisection on μ, from any guess at μ (the factor's last one, or none)", () => {
    fc.assert(
      fc.property(row, ({ n, v, a, rhs, equality, penalty, guesses }) => {
        const scratch = new BoxScratch(n);
        const hi = equality ? Number.POSITIVE_INFINITY : penalty;
        const want = bisected(v, a, rhs, equality, hi);
        const va = Float64Array.from(v);
        const aa = Float64Array.from(a);
        const q = new Float64Array(n);
        const project = (guess: number): number => {
          const bounds = scratch.bounds;
          bounds[0] = rhs;
          bounds[1] = equality ? Number.NEGATIVE_INFINITY : 0;
          bounds[2] = hi;
          bounds[4] = guess;
          projectUnitBox(va, aa, q, 0, n, scratch);
          for (let i = 0; i < n; i++) expect(q[i]).toBeCloseTo(want[i]!, 8);
          return bounds[3]!;
        };
        for (const guess of [Number.NaN, ...guesses]) {
          // Then from this call's own μ, as the ADMM step's next call starts.
          project(project(guess));
        }
      }),
      { numRuns: 600, seed: 41 },
    );
  });

  it("from μ = 0, an inequality row that clip(v) meets is left at μ = 0, one that it breaks solved", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((n) =>
          fc.record({
            v: fc.array(fc.double({ min: -1.5, max: 2.5, noNaN: true }), {
              minLength: n,
              maxLength: n,
            }),
            negated: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
            slack: fc.double({ min: -2, max: 2, noNaN: true }),
            penalty: fc.constantFrom(Number.POSITIVE_INFINITY, 0.7, 3),
          }),
        ),
        ({ v, negated, slack, penalty }) => {
          const n = v.length;
          const a = negated.map((x) => (x ? -1 : 1));
          const clipped = v.map((x) => Math.min(Math.max(x, 0), 1));
          // rhs within 2 of a·clip(v), either side: slack rows and binding ones.
          const rhs = clipped.reduce((s, x, i) => s + a[i]! * x, 0) + slack;
          const scratch = new BoxScratch(n);
          scratch.bounds.set([rhs, 0, penalty, 0, 0]);
          const q = new Float64Array(n);
          projectUnitBox(Float64Array.from(v), Float64Array.from(a), q, 0, n, scratch);
          const want = bisected(v, a, rhs, false, penalty);
          for (let i = 0; i < n; i++) expect(q[i]).toBeCloseTo(want[i]!, 8);
          if (slack >= 0) {
            expect(scratch.bounds[3]).toBe(0);
            expect(Array.from(q)).toEqual(clipped);
          }
        },
      ),
      { numRuns: 400, seed: 41 },
    );
  });

  it("takes a coordinate whose breakpoint the guess sits on as moving", () => {
    // From μ = ½ (t₀'s breakpoint) the root lies left, where coordinate 0 moves too: μ = 0.4.
    const scratch = new BoxScratch(2);
    const q = new Float64Array(2);
    scratch.bounds.set([0.6, 0, Number.POSITIVE_INFINITY, 0, 0.5]);
    projectUnitBox(Float64Array.of(0.5, 0.9), Float64Array.of(1, 1), q, 0, 2, scratch);
    expect(scratch.bounds[3]).toBeCloseTo(0.4, 12);
    expect(Array.from(q).map((x) => Number(x.toFixed(12)))).toEqual([0.1, 0.5]);
  });
});

/** The mean of the indicators of every maximiser, by enumeration (rows: candidate vertices). */
function optimalFaceMean(vertices: number[][], value: (z: number[]) => number): number[] {
  const values = vertices.map(value);
  const best = Math.max(...values);
  const optimal = vertices.filter((_, k) => values[k]! >= best - 1e-9);
  return optimal[0]!.map((_, i) => optimal.reduce((s, z) => s + z[i]!, 0) / optimal.length);
}

describe("a seed's spread over tied maximisers", () => {
  it("gives a hard equality row's optimal-face mean (an XOR over equal scores: 1/k each)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((n) =>
          fc.record({
            adj: fc.array(fc.constantFrom(-1, 0, 0.5, 1), { minLength: n, maxLength: n }),
            negated: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
            count: fc.integer({ min: 0, max: n }),
          }),
        ),
        ({ adj, negated, count }) => {
          const n = adj.length;
          const a = negated.map((x) => (x ? -1 : 1));
          // a·z = count − (negated literals): `count` literals on.
          const rhs = count - a.filter((x) => x < 0).length;
          const vertices: number[][] = [];
          for (let mask = 0; mask < 1 << n; mask++) {
            const z = adj.map((_, i) => (mask >> i) & 1);
            if (z.reduce((s, x, i) => s + a[i]! * x, 0) === rhs) vertices.push(z);
          }
          const want = optimalFaceMean(vertices, (z) => z.reduce((s, x, i) => s + adj[i]! * x, 0));
          const scratch = new BoxScratch(n);
          scratch.bounds.set([rhs, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 0, 0]);
          const va = Float64Array.from(adj);
          const aa = Float64Array.from(a);
          const out = new Float64Array(n);
          mapUnitBox(va, aa, out, 0, n, scratch);
          const spread = spreadUnitBoxTies(va, aa, out, 0, n, Number.POSITIVE_INFINITY);
          for (let i = 0; i < n; i++) expect(out[i]).toBeCloseTo(want[i]!, 12);
          expect(spread).toBe(want.some((x) => x !== 0 && x !== 1));
        },
      ),
      { numRuns: 400, seed: 41 },
    );
  });

  it("gives a dense table's optimal-face mean over its blocks' indicators", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 1, maxLength: 3 }).chain((cards) => {
          const size = cards.reduce((s, c) => s + c, 0);
          const K = cards.reduce((s, c) => s * c, 1);
          return fc.record({
            cards: fc.constant(cards),
            scores: fc.array(fc.constantFrom(-1, 0, 1), { minLength: K, maxLength: K }),
            adj: fc.array(fc.constantFrom(0, 0.5, 1), { minLength: size, maxLength: size }),
          });
        }),
        ({ cards, scores, adj }) => {
          const size = adj.length;
          const kernels = new DenseKernels(
            new DenseTables([
              { at: 0, cardinalities: Int32Array.from(cards), scores: Float64Array.from(scores) },
            ]),
          );
          // Configurations in the table's order (the last block fastest), as indicators.
          const vertices: number[][] = [];
          for (let c = 0; c < scores.length; c++) {
            const z = new Array<number>(size).fill(0);
            let rest = c;
            let offset = size;
            for (let j = cards.length - 1; j >= 0; j--) {
              offset -= cards[j]!;
              z[offset + (rest % cards[j]!)] = 1;
              rest = Math.floor(rest / cards[j]!);
            }
            vertices.push(z);
          }
          const want = optimalFaceMean(
            vertices,
            (z) => scores[vertices.indexOf(z)]! + z.reduce((s, x, i) => s + adj[i]! * x, 0),
          );
          const va = Float64Array.from(adj);
          const out = new Float64Array(size);
          kernels.map(0, va, out, 0, size);
          kernels.spreadTies(0, va, out, 0, size);
          for (let i = 0; i < size; i++) expect(out[i]).toBeCloseTo(want[i]!, 12);
        },
      ),
      { numRuns: 400, seed: 41 },
    );
  });
});
