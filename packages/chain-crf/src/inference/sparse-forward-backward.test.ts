import { type ChainScores, seededRandom } from "@lagrange/core";
import { randomChainScores } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bruteLogZ, bruteMarginals, enumerate } from "../testing/random-chain.js";
import { InferenceContext } from "./context.js";
import { forwardBackwardKernel } from "./forward-backward.js";
import { MaskCopy } from "./mask-copy.js";
import {
  SPARSE_COST,
  sparseForwardBackwardIfFaster,
  sparseForwardBackwardKernel,
  sparseWorkEstimate,
} from "./sparse-forward-backward.js";
import { type ChainView, emptyView, setViewFromScores } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

type MaskKind = "all" | "random" | "sparse" | "one-column" | "none" | "bio";

/**
 * A transition mask of a given shape: everything allowed, random at some density, one column
 * only (every chain must stay in one label), nothing (infeasible beyond one token), or a BIO-like
 * block structure (full columns into B-x and O, two predecessors into I-x) as the hierarchical
 * citation scheme has.
 */
function mask(kind: MaskKind, L: number, rnd: () => number): Uint8Array {
  const allowed = new Uint8Array(L * L);
  if (kind === "all") allowed.fill(1);
  else if (kind === "random" || kind === "sparse") {
    const density = kind === "random" ? 0.3 + 0.6 * rnd() : 0.05 + 0.2 * rnd();
    for (let ab = 0; ab < L * L; ab++) allowed[ab] = rnd() < density ? 1 : 0;
  } else if (kind === "one-column") {
    const b = Math.floor(rnd() * L);
    for (let a = 0; a < L; a++) allowed[a * L + b] = 1;
  } else if (kind === "bio") {
    // Label 0 is O; odd labels B-x, the following even ones I-x.
    for (let b = 0; b < L; b++) {
      const inside = b > 0 && b % 2 === 0;
      for (let a = 0; a < L; a++) allowed[a * L + b] = !inside || a === b || a === b - 1 ? 1 : 0;
    }
  }
  return allowed;
}

function close(a: number, b: number, tol = 1e-9): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * The first `length` entries where `actual` misses `expected` by toBeCloseTo's rule (|Δ| <
 * 10^−digits / 2, equal infinities pass): one expect per array, not thousands per run.
 */
function notCloseTo(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  digits: number,
  length: number,
): string[] {
  const misses: string[] = [];
  for (let k = 0; k < length; k++) {
    const a = actual[k]!;
    const e = expected[k]!;
    if (!(a === e || Math.abs(e - a) < 10 ** -digits / 2)) misses.push(`[${k}] ${a} vs ${e}`);
  }
  return misses;
}

/** The optional inputs a view can carry beyond the scores, drawn by `rnd`. */
function decorate(v: ChainView, rnd: () => number): void {
  const { n, L } = v;
  if (rnd() < 0.4) v.adjustment = Float64Array.from({ length: n * L }, () => rnd() * 4 - 2);
  if (rnd() < 0.25)
    v.fixed = Int32Array.from({ length: n }, () => (rnd() < 0.3 ? Math.floor(rnd() * L) : -1));
  if (rnd() < 0.2) v.allowedStart = Uint8Array.from({ length: L }, () => (rnd() < 0.8 ? 1 : 0));
  if (rnd() < 0.2) v.allowedEnd = Uint8Array.from({ length: L }, () => (rnd() < 0.8 ? 1 : 0));
  if (rnd() < 0.2) v.labelMask = Uint8Array.from({ length: n * L }, () => (rnd() < 0.85 ? 1 : 0));
}

/** The same view as scores for the brute-force enumerator (which reads masks from the scores). */
function asScores(v: ChainView): ChainScores {
  const { n, L } = v;
  const unary = new Float64Array(n * L);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < L; t++) {
      let u = v.unary[v.unaryBase + i * L + t]! + (v.adjustment?.[i * L + t] ?? 0);
      if (v.fixed !== null && v.fixed[i]! >= 0 && v.fixed[i] !== t) u = NEG;
      if (v.labelMask !== null && v.labelMask[i * L + t] === 0) u = NEG;
      if (i === 0 && v.allowedStart !== null && v.allowedStart[t] === 0) u = NEG;
      if (i === n - 1 && v.allowedEnd !== null && v.allowedEnd[t] === 0) u = NEG;
      unary[i * L + t] = u;
    }
  }
  return {
    n,
    L,
    unary,
    transition: v.transition,
    ...(v.start === null ? {} : { start: v.start }),
    ...(v.end === null ? {} : { end: v.end }),
    ...(v.allowed === null ? {} : { allowed: v.allowed }),
  };
}

const kinds = fc.constantFrom<MaskKind>("all", "random", "sparse", "one-column", "none", "bio");
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe("sparse forward-backward", () => {
  it("matches brute force: log Z, token marginals, pairwise sums and per-position pairwise marginals", () => {
    const ctx = new InferenceContext(2, 1);
    const view = emptyView();
    fc.assert(
      fc.property(seeds, kinds, (seed, kind) => {
        const rnd = seededRandom(seed);
        const n = 1 + Math.floor(rnd() * 5);
        const L = 1 + Math.floor(rnd() * 4);
        const scores = randomChainScores(seed, { n, L, startEnd: rnd() < 0.5 });
        setViewFromScores(view, scores);
        view.allowed = mask(kind, L, rnd);
        decorate(view, rnd);
        const all = enumerate(asScores(view));
        const logZ = bruteLogZ(all);
        const brute = bruteMarginals(all, n, L);
        const perPosition = new Float64Array(Math.max(0, n - 1) * L * L).fill(Number.NaN);
        const got = sparseForwardBackwardKernel(ctx, view, true, perPosition);
        expect(close(got, logZ)).toBe(true);
        for (let k = 0; k < n * L; k++) expect(ctx.marginals[k]).toBeCloseTo(brute.token[k]!, 9);
        for (let k = 0; k < brute.edge.length; k++)
          expect(perPosition[k]).toBeCloseTo(brute.edge[k]!, 9);
        for (let ab = 0; ab < L * L; ab++) {
          let sum = 0;
          for (let i = 0; i + 1 < n; i++) sum += brute.edge[i * L * L + ab]!;
          expect(ctx.pairwise[ab]).toBeCloseTo(sum, 9);
        }
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it("agrees with the dense kernel (SIMD and JavaScript contexts) on larger chains of every mask shape, extreme scores included", () => {
    const sparseSimd = new InferenceContext();
    const sparsePlain = new InferenceContext(2, 1, { simd: false });
    const dense = new InferenceContext(2, 1, { simd: false });
    const view = emptyView();
    fc.assert(
      fc.property(seeds, kinds, fc.constantFrom(1, 3, 60, 2000), (seed, kind, scale) => {
        const rnd = seededRandom(seed);
        const n = 1 + Math.floor(rnd() * 30);
        const L = 1 + Math.floor(rnd() * 40);
        const scores = randomChainScores(seed, { n, L, startEnd: rnd() < 0.5, scale });
        setViewFromScores(view, scores);
        view.allowed = mask(kind, L, rnd);
        decorate(view, rnd);
        const pairwise = rnd() < 0.8;
        const expected = forwardBackwardKernel(dense, view, pairwise);
        for (const ctx of [sparseSimd, sparsePlain]) {
          const got = sparseForwardBackwardKernel(ctx, view, pairwise);
          expect(close(got, expected, 1e-9)).toBe(true);
          expect(notCloseTo(ctx.marginals, dense.marginals, 8, n * L)).toEqual([]);
          if (pairwise) expect(notCloseTo(ctx.pairwise, dense.pairwise, 7, L * L)).toEqual([]);
        }
      }),
      { numRuns: 300, seed: 116 },
    );
  });

  it("notices a mask or transition block changed in place under the same arrays", () => {
    const ctx = new InferenceContext();
    const dense = new InferenceContext(2, 1, { simd: false });
    const view = emptyView();
    fc.assert(
      fc.property(seeds, (seed) => {
        const rnd = seededRandom(seed);
        const n = 2 + Math.floor(rnd() * 6);
        const L = 2 + Math.floor(rnd() * 8);
        setViewFromScores(view, randomChainScores(seed, { n, L }));
        const allowed = mask("random", L, rnd);
        view.allowed = allowed;
        const check = () => {
          const expected = forwardBackwardKernel(dense, view, true);
          expect(close(sparseForwardBackwardKernel(ctx, view, true), expected)).toBe(true);
          for (let k = 0; k < L * L; k++)
            expect(ctx.pairwise[k]).toBeCloseTo(dense.pairwise[k]!, 9);
        };
        check();
        for (let ab = 0; ab < L * L; ab++) if (rnd() < 0.3) allowed[ab] = 1 - allowed[ab]!;
        check();
        view.transition[Math.floor(rnd() * L * L)]! += 1.5;
        check();
      }),
      { numRuns: 200, seed: 216 },
    );
  });

  it("is chosen by the cost model only where it estimates less work, and the dispatch gives the dense results", () => {
    const ctx = new InferenceContext();
    const dense = new InferenceContext(2, 1, { simd: false });
    const L = 131;
    const rnd = seededRandom(5);
    // Everything allowed: dense. A 3 % density: sparse.
    expect(sparseWorkEstimate(ctx, mask("all", L, rnd), L).sparse).toBeGreaterThan(
      sparseWorkEstimate(ctx, mask("all", L, rnd), L).dense,
    );
    const thin = new Uint8Array(L * L);
    for (let ab = 0; ab < L * L; ab++) thin[ab] = rnd() < 0.03 ? 1 : 0;
    const estimate = sparseWorkEstimate(ctx, thin, L);
    expect(estimate.sparse).toBeLessThan(estimate.dense);
    const scores = randomChainScores(9, { n: 20, L });
    const view = setViewFromScores(emptyView(), scores);
    view.allowed = thin;
    const viaDispatch = forwardBackwardKernel(ctx, view, true);
    const direct = sparseForwardBackwardIfFaster(ctx, view, true, null);
    expect(direct).toBe(viaDispatch);
    expect(close(viaDispatch, forwardBackwardKernel(dense, view, true))).toBe(true);
    view.allowed = mask("all", L, rnd);
    expect(sparseForwardBackwardIfFaster(ctx, view, true, null)).toBeUndefined();
    // Position-specific blocks are left to the dense kernel.
    const positional = randomChainScores(3, { n: 5, L: 4, positionSpecific: true });
    const pv = setViewFromScores(emptyView(), positional);
    pv.allowed = new Uint8Array(16).fill(1);
    expect(sparseForwardBackwardIfFaster(ctx, pv, true, null)).toBeUndefined();
    expect(() => sparseForwardBackwardKernel(ctx, pv, true)).toThrow(RangeError);
    expect(SPARSE_COST.DENSE_ENTRY_SIMD).toBeLessThan(SPARSE_COST.DENSE_ENTRY_JS);
  });
});

describe("MaskCopy", () => {
  it("tells an equal mask from a changed one, aligned or not, reused or mutated in place", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 0, max: 3 }), (seed, offset) => {
        const rnd = seededRandom(seed);
        const L = 1 + Math.floor(rnd() * 13);
        const LL = L * L;
        const buffer = new Uint8Array(LL + 4);
        const allowed = buffer.subarray(offset, offset + LL);
        for (let ab = 0; ab < LL; ab++) allowed[ab] = rnd() < 0.5 ? 1 : 0;
        const copy = new MaskCopy();
        expect(copy.matches(allowed, L)).toBe(false);
        copy.set(allowed, L);
        expect(copy.matches(allowed, L)).toBe(true);
        expect(copy.matches(allowed.slice(), L)).toBe(true);
        expect(copy.matches(allowed, L + 1)).toBe(false);
        const at = Math.floor(rnd() * LL);
        allowed[at] = allowed[at] === 0 ? 2 : 0;
        expect(copy.matches(allowed, L)).toBe(false);
      }),
      { numRuns: 300, seed: 316 },
    );
  });
});
