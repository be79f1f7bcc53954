import { isAbortError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kmeans } from "./kmeans.js";

/** The objective of an assignment, means computed from scratch (empty clusters cost nothing). */
function objectiveOf(points: number[][], assignment: ArrayLike<number>, k: number): number {
  const dims = points[0]!.length;
  let total = 0;
  for (let c = 0; c < k; c++) {
    const members = points.filter((_, i) => assignment[i] === c);
    if (members.length === 0) continue;
    const mean = Array.from(
      { length: dims },
      (_, t) => members.reduce((s, p) => s + p[t]!, 0) / members.length,
    );
    for (const p of members) total += p.reduce((s, x, t) => s + (x - mean[t]!) ** 2, 0);
  }
  return total;
}

const flat = (points: number[][]) => ({
  values: Float64Array.from(points.flat()),
  dims: points[0]!.length,
});

const pointSets = (most: number, dims: number) =>
  fc.array(fc.array(fc.integer({ min: -20, max: 20 }), { minLength: dims, maxLength: dims }), {
    minLength: 2,
    maxLength: most,
  });

describe("kmeans", () => {
  it("ends at a local optimum: no single point moves to another cluster for less", async () => {
    await fc.assert(
      fc.asyncProperty(
        pointSets(14, 2),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(1000),
        async (points, kWanted, seed) => {
          const k = Math.min(kWanted, points.length);
          const result = await kmeans(flat(points), k, { seed, iterations: 100, sweeps: 1000 });
          expect(result.localOptimum).toBe(true);
          const a = Array.from(result.assignment);
          expect(new Set(a).size).toBe(k);
          const objective = objectiveOf(points, a, k);
          expect(result.objective).toBeCloseTo(objective, 6);
          for (let i = 0; i < points.length; i++) {
            const from = a[i]!;
            if (a.filter((c) => c === from).length === 1) continue;
            for (let c = 0; c < k; c++) {
              if (c === from) continue;
              const moved = [...a];
              moved[i] = c;
              expect(objectiveOf(points, moved, k)).toBeGreaterThanOrEqual(objective - 1e-9);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("Lloyd alone (no sweeps) ends with each point at its nearest mean, despite the bounds' skips", async () => {
    await fc.assert(
      fc.asyncProperty(
        pointSets(40, 3),
        fc.integer({ min: 1, max: 8 }),
        fc.nat(1000),
        async (points, kWanted, seed) => {
          const k = Math.min(kWanted, points.length);
          const result = await kmeans(flat(points), k, { seed, iterations: 1000, sweeps: 0 });
          expect(result.iterations).toBeLessThan(1000);
          const mean = (c: number) => Array.from(result.centroids.subarray(c * 3, c * 3 + 3));
          const d2 = (p: number[], m: number[]) => p.reduce((s, x, t) => s + (x - m[t]!) ** 2, 0);
          points.forEach((p, i) => {
            const own = d2(p, mean(result.assignment[i]!));
            for (let c = 0; c < k; c++) expect(own).toBeLessThanOrEqual(d2(p, mean(c)) + 1e-9);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("k = 2 on ≤ 8 points: never below the exhaustive optimum, and equal to it on separated groups", async () => {
    const best = (points: number[][]) => {
      let min = Number.POSITIVE_INFINITY;
      for (let mask = 1; mask < 2 ** points.length - 1; mask++) {
        const a = points.map((_, i) => (mask >> i) & 1);
        min = Math.min(min, objectiveOf(points, a, 2));
      }
      return min;
    };
    await fc.assert(
      fc.asyncProperty(pointSets(8, 2), fc.nat(1000), async (points, seed) => {
        const result = await kmeans(flat(points), 2, { seed, sweeps: 1000 });
        expect(result.objective).toBeGreaterThanOrEqual(best(points) - 1e-9);
      }),
      { numRuns: 100 },
    );
    // Two groups farther apart than either is wide: the optimum splits them, and so does kmeans.
    await fc.assert(
      fc.asyncProperty(pointSets(4, 3), pointSets(4, 3), fc.nat(1000), async (p, q, seed) => {
        const points = [...p, ...q.map((x) => x.map((v) => v + 1000))];
        const result = await kmeans(flat(points), 2, { seed, sweeps: 1000 });
        expect(result.objective).toBeCloseTo(best(points), 6);
      }),
      { numRuns: 100 },
    );
  });

  it("keeps k clusters on repeated points and is reproducible from its seed", async () => {
    const points = [
      [1, 1],
      [1, 1],
      [1, 1],
      [5, 5],
      [5, 5],
    ];
    const result = await kmeans(flat(points), 3, { seed: 3 });
    expect(new Set(result.assignment).size).toBe(3);
    expect(result.objective).toBe(0);
    const again = await kmeans(flat(points), 3, { seed: 3 });
    expect(again.assignment).toEqual(result.assignment);
  });

  it("refuses k beyond the points, ragged rows, and stops on abort", async () => {
    await expect(kmeans({ values: new Float64Array(4), dims: 2 }, 3)).rejects.toThrow(
      /k: expected/,
    );
    await expect(kmeans({ values: new Float64Array(5), dims: 2 }, 1)).rejects.toThrow(/dims/);
    const controller = new AbortController();
    controller.abort();
    const run = kmeans({ values: new Float64Array(4000), dims: 2 }, 5, {
      signal: controller.signal,
    });
    await expect(run).rejects.toSatisfy(isAbortError);
  });
});
