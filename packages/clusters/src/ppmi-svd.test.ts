import { isAbortError, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CsrMatrix } from "./linear-algebra.js";
import { cooccurrence, positivePmi, ppmiSvdVectors, randomizedSvd } from "./ppmi-svd.js";

const sentencesOf = fc.array(
  fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 9 }),
  {
    maxLength: 8,
  },
);

/** Row i, column j of a compressed-row matrix (0 where absent). */
function entry(m: CsrMatrix, i: number, j: number): number {
  for (let e = m.rowStart[i]!; e < m.rowStart[i + 1]!; e++)
    if (m.column[e] === j) return m.value[e]!;
  return 0;
}

function toCsr(dense: number[][]): CsrMatrix {
  const rowStart = [0];
  const column: number[] = [];
  const value: number[] = [];
  for (const row of dense) {
    row.forEach((x, j) => {
      if (x !== 0) {
        column.push(j);
        value.push(x);
      }
    });
    rowStart.push(column.length);
  }
  return {
    rows: dense.length,
    columns: dense[0]!.length,
    rowStart: Int32Array.from(rowStart),
    column: Int32Array.from(column),
    value: Float64Array.from(value),
  };
}

/** Singular values by one-sided Jacobi (Hestenes): rotate column pairs until orthogonal. */
function exactSingularValues(dense: number[][]): number[] {
  const m = dense.length;
  const n = dense[0]!.length;
  const a = dense.map((r) => [...r]);
  for (let sweep = 0; sweep < 60; sweep++) {
    let rotated = false;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0;
        let beta = 0;
        let gamma = 0;
        for (let i = 0; i < m; i++) {
          alpha += a[i]![p]! ** 2;
          beta += a[i]![q]! ** 2;
          gamma += a[i]![p]! * a[i]![q]!;
        }
        if (Math.abs(gamma) <= 1e-15 * Math.sqrt(alpha * beta)) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = Math.sign(zeta || 1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        for (let i = 0; i < m; i++) {
          const x = a[i]![p]!;
          const y = a[i]![q]!;
          a[i]![p] = c * x - s * y;
          a[i]![q] = s * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  return Array.from({ length: n }, (_, j) => Math.sqrt(a.reduce((s, r) => s + r[j]! ** 2, 0))).sort(
    (x, y) => y - x,
  );
}

describe("co-occurrence counts and PPMI", () => {
  it("count each pair within the window of one sentence, both ways, as a direct count does", async () => {
    await fc.assert(
      fc.asyncProperty(
        sentencesOf,
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        async (sentences, window, minCount, contexts) => {
          const got = await cooccurrence(sentences, { window, minCount, contexts });
          const tally = new Map<string, number>();
          for (const s of sentences) for (const t of s) tally.set(t, (tally.get(t) ?? 0) + 1);
          const first = [...new Set(sentences.flat())];
          const words = first
            .filter((w) => tally.get(w)! >= minCount)
            .sort((x, y) => tally.get(y)! - tally.get(x)! || first.indexOf(x) - first.indexOf(y));
          expect(got.words).toEqual(words);
          expect(got.tokens).toBe(sentences.flat().length);
          const context = words.slice(0, contexts);
          expect(got.matrix.columns).toBe(context.length);
          const pairs = new Map<string, number>();
          for (const s of sentences) {
            s.forEach((w, i) => {
              s.forEach((c, j) => {
                if (i === j || Math.abs(i - j) > window) return;
                if (!words.includes(w) || !context.includes(c)) return;
                const key = `${w} ${c}`;
                pairs.set(key, (pairs.get(key) ?? 0) + 1);
              });
            });
          }
          words.forEach((w, i) => {
            context.forEach((c, j) => {
              expect(entry(got.matrix, i, j)).toBe(pairs.get(`${w} ${c}`) ?? 0);
            });
          });
          // PPMI from the definition: max(0, log(P(w,c) / (P(w)·P_α(c)))).
          const alpha = 0.75;
          const ppmi = positivePmi(got.matrix, alpha);
          const total = [...pairs.values()].reduce((s, x) => s + x, 0);
          const rowSum = (w: string) =>
            context.reduce((s, c) => s + (pairs.get(`${w} ${c}`) ?? 0), 0);
          const columnSum = (c: string) =>
            words.reduce((s, w) => s + (pairs.get(`${w} ${c}`) ?? 0), 0);
          const z = context.reduce((s, c) => s + columnSum(c) ** alpha, 0);
          words.forEach((w, i) => {
            context.forEach((c, j) => {
              const n = pairs.get(`${w} ${c}`) ?? 0;
              const pmi =
                n === 0
                  ? 0
                  : Math.log(n / total / ((rowSum(w) / total) * (columnSum(c) ** alpha / z)));
              expect(entry(ppmi, i, j)).toBeCloseTo(Math.max(0, pmi), 10);
            });
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("randomizedSvd", () => {
  const gaussianMatrix = (m: number, n: number, seed: number) => {
    const random = seededRandom(seed);
    return Array.from({ length: m }, () =>
      Array.from({ length: n }, () => (random() < 0.3 ? 0 : random() * 2 - 1)),
    );
  };

  it("matches an exact SVD when the sample spans the range", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.nat(10_000),
        async (m, n, rank, seed) => {
          const dense = gaussianMatrix(m, n, seed);
          const exact = exactSingularValues(
            m >= n ? dense : dense[0]!.map((_, j) => dense.map((r) => r[j]!)),
          );
          const got = await randomizedSvd(toCsr(dense), rank, {
            oversampling: 12,
            powerIterations: 2,
            seed,
          });
          expect(got.rank).toBe(Math.min(rank, m, n));
          const scale = exact[0]! + 1e-12;
          for (let r = 0; r < got.rank; r++) {
            expect(Math.abs(got.singularValues[r]! - exact[r]!) / scale).toBeLessThan(1e-8);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("finds the leading singular values of a larger matrix with a decaying spectrum", async () => {
    // A = X·diag(s)·Yᵀ + small noise, s_k = 0.7^k: the leading values are well separated.
    const m = 60;
    const n = 40;
    const random = seededRandom(7);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const dense = Array.from({ length: m }, () => new Array<number>(n).fill(0));
    for (let k = 0; k < n; k++) {
      const x = Array.from({ length: m }, gauss);
      const y = Array.from({ length: n }, gauss);
      const s = 0.7 ** k;
      for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) dense[i]![j]! += s * x[i]! * y[j]!;
    }
    const exact = exactSingularValues(dense);
    const got = await randomizedSvd(toCsr(dense), 5, {
      oversampling: 10,
      powerIterations: 2,
      seed: 1,
    });
    for (let r = 0; r < 5; r++) {
      expect(Math.abs(got.singularValues[r]! - exact[r]!) / exact[0]!).toBeLessThan(1e-3);
    }
    // U's columns are orthonormal.
    for (let p = 0; p < 5; p++) {
      for (let q = 0; q < 5; q++) {
        let dot = 0;
        for (let i = 0; i < m; i++) dot += got.u[i * 5 + p]! * got.u[i * 5 + q]!;
        expect(dot).toBeCloseTo(p === q ? 1 : 0, 8);
      }
    }
  });
});

describe("ppmiSvdVectors", () => {
  // Two word classes that fill the same slots: days and cities.
  const days = ["monday", "tuesday", "friday", "sunday"];
  const cities = ["paris", "london", "rome", "berlin"];
  const corpus: string[][] = [];
  const random = seededRandom(3);
  const pick = (xs: string[]) => xs[Math.floor(random() * xs.length)]!;
  for (let s = 0; s < 400; s++) {
    corpus.push(["we", "met", "on", pick(days), "morning", "."]);
    corpus.push(["she", "lives", "in", pick(cities), "city", "."]);
  }

  it("gives unit rows whose nearest neighbours share a class", async () => {
    const v = await ppmiSvdVectors(corpus, { dims: 4, contexts: 12 });
    expect(v.dims).toBe(4);
    expect(v.words.length).toBe(v.counts.length);
    const row = (w: string) => {
      const i = v.words.indexOf(w);
      return v.values.subarray(i * v.dims, (i + 1) * v.dims);
    };
    const cosine = (a: string, b: string) => row(a).reduce((s, x, t) => s + x * row(b)[t]!, 0);
    for (const w of v.words) {
      const norm = Math.hypot(...row(w));
      expect(norm).toBeCloseTo(1, 5);
    }
    expect(cosine("monday", "friday")).toBeGreaterThan(cosine("monday", "paris") + 0.5);
    expect(cosine("london", "rome")).toBeGreaterThan(cosine("london", "sunday") + 0.5);
  });

  it("stops on abort and refuses bad options", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ppmiSvdVectors(corpus, { signal: controller.signal })).rejects.toSatisfy(
      isAbortError,
    );
    await expect(ppmiSvdVectors(corpus, { alpha: 0 })).rejects.toThrow(/alpha/);
  });
});
