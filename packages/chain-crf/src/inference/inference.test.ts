import { chainDecoder, scoreLabelling, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crfChainSlaves, crfSlave } from "../slave.js";
import { bruteLogZ, bruteMarginals, enumerate, randomChain } from "../testing/random-chain.js";
import {
  type ChainInferenceOptions,
  forwardBackward,
  kBest,
  logPartition,
  sequenceLogProbability,
  viterbi,
} from "./api.js";
import { InferenceContext } from "./context.js";
import { forwardBackwardKernel } from "./forward-backward.js";
import { forwardBackwardLogKernel } from "./forward-backward-shared.js";
import { instantiateSimd } from "./simd.js";
import { emptyView, setViewFromScores } from "./view.js";
import { viterbiKernel as viterbiKernelFor } from "./viterbi.js";

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

const NEG = Number.NEGATIVE_INFINITY;

/** Random subset of the optional inference inputs, chosen by the seed. */
function withOptions(seed: number, ctx?: InferenceContext) {
  const chain = randomChain(seed);
  const rnd = seededRandom(seed ^ 0x9e3779b9);
  const options: {
    adjustment?: Float64Array;
    fixed?: Int32Array;
    allowedStart?: Uint8Array;
    allowedEnd?: Uint8Array;
    context?: InferenceContext;
  } = {};
  if (rnd() < 0.4) options.adjustment = chain.adjustment;
  if (rnd() < 0.3) options.fixed = chain.fixed;
  if (rnd() < 0.2) options.allowedStart = chain.allowedStart;
  if (rnd() < 0.2) options.allowedEnd = chain.allowedEnd;
  if (ctx) options.context = ctx;
  return { scores: chain.scores, options: options as ChainInferenceOptions };
}

function close(a: number, b: number, tol = 1e-9): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
}

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe("viterbi", () => {
  it("walks only allowed pairs under a mask: same labelling and score as the dense recursion on −∞ transitions, with one context reused across changing masks", () => {
    const ctx = new InferenceContext();
    const dense = new InferenceContext();
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores } = randomChain(seed, { maxL: 7 });
        const { n, L } = scores;
        const rnd = seededRandom(seed ^ 0x51ed);
        const allowed = new Uint8Array(L * L);
        for (let ab = 0; ab < L * L; ab++) allowed[ab] = rnd() < 0.45 ? 1 : 0;
        const sparseView = setViewFromScores(emptyView(), scores);
        sparseView.allowed = allowed;
        const blocks = scores.transition.length / (L * L);
        const a = new Int32Array(n);
        const b = new Int32Array(n);
        const check = () => {
          const forbidden = scores.transition.slice();
          for (let k = 0; k < blocks; k++) {
            for (let ab = 0; ab < L * L; ab++) {
              if (allowed[ab] === 0) forbidden[k * L * L + ab] = NEG;
            }
          }
          const denseView = setViewFromScores(emptyView(), { ...scores, transition: forbidden });
          denseView.allowed = null;
          const sa = viterbiKernelFor(ctx, sparseView, a);
          const sb = viterbiKernelFor(dense, denseView, b);
          expect(sa).toBe(sb);
          if (sa > NEG) expect(Array.from(a)).toEqual(Array.from(b));
        };
        check();
        // Mutated in place: the context must notice a changed mask of the same identity.
        for (let ab = 0; ab < L * L; ab++) allowed[ab] = 1 - allowed[ab]!;
        check();
      }),
      { numRuns: 300 },
    );
  });

  it("finds the brute-force maximum, honouring masks, start/end, adjustment and fixed labels", () => {
    const ctx = new InferenceContext(2, 1);
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores, options } = withOptions(seed, ctx);
        const all = enumerate(scores, options);
        const best = Math.max(...all.map((e) => e.score));
        const result = viterbi(scores, options);
        expect(Number.isNaN(result.score)).toBe(false);
        expect(close(result.score, best)).toBe(true);
        if (best > NEG) {
          const code = result.labels.reduce((c, y) => c * scores.L + y, 0);
          expect(close(all[code]!.score, result.score)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("as core's chain decoder over the reused fast slave: the optimum, scored as reported", () => {
    const solver = chainDecoder(crfChainSlaves());
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores } = randomChain(seed);
        const solution = solver.decode({ scores });
        const best = Math.max(...enumerate(scores).map((e) => e.score));
        if (best === NEG) {
          expect(solution.status).toBe("infeasible");
        } else {
          expect(solution.status).toBe("optimal");
          expect(close(solution.primal, best)).toBe(true);
          expect(solution.dual).toBe(solution.primal);
          expect(close(scoreLabelling(scores, solution.labels), best)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("reports −∞ (never NaN) when every transition is forbidden", () => {
    const n = 4;
    const L = 3;
    const scores = {
      n,
      L,
      unary: new Float64Array(n * L).fill(1),
      transition: new Float64Array(L * L),
      allowed: new Uint8Array(L * L),
    };
    expect(viterbi(scores).score).toBe(NEG);
    const fb = forwardBackward(scores, { pairwise: true });
    expect(fb.logPartition).toBe(NEG);
    expect(fb.marginals.every((p) => p === 0)).toBe(true);
    expect(fb.pairwise!.every((p) => p === 0)).toBe(true);
    expect(kBest(scores, 3).labels).toHaveLength(0);
    expect(chainDecoder(crfChainSlaves()).decode({ scores }).status).toBe("infeasible");
    const slave = crfSlave(scores);
    expect(slave.maximize(new Float64Array(n * L)).value).toBe(NEG);
  });
});

describe("forward-backward", () => {
  it("matches brute-force log Z, token and pairwise marginals", () => {
    const ctx = new InferenceContext(2, 1);
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores, options } = withOptions(seed, ctx);
        const { n, L } = scores;
        const all = enumerate(scores, options);
        const logZ = bruteLogZ(all);
        const fb = forwardBackward(scores, { ...options, pairwise: true });
        expect(close(fb.logPartition, logZ)).toBe(true);
        const brute = bruteMarginals(all, n, L);
        for (let k = 0; k < n * L; k++) expect(fb.marginals[k]).toBeCloseTo(brute.token[k]!, 9);
        for (let k = 0; k < brute.edge.length; k++) {
          expect(fb.pairwise![k]).toBeCloseTo(brute.edge[k]!, 9);
        }
        expect(close(logPartition(scores, options), logZ)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("scaled exp-space and log-space kernels agree, also where exp would overflow or underflow", () => {
    const ctx = new InferenceContext();
    const view = emptyView();
    fc.assert(
      fc.property(seeds, fc.constantFrom(1, 50, 2000), (seed, spread) => {
        const { scores } = randomChain(seed, { maxN: 8, maxL: 9, spread });
        const { n, L } = scores;
        setViewFromScores(view, scores);
        const fast = forwardBackwardKernel(ctx, view, true);
        const fastMarg = ctx.marginals.slice(0, n * L);
        const fastPw = ctx.pairwise.slice(0, L * L);
        const slow = forwardBackwardLogKernel(ctx, view, true);
        expect(close(fast, slow, 1e-9)).toBe(true);
        for (let k = 0; k < n * L; k++) expect(fastMarg[k]).toBeCloseTo(ctx.marginals[k]!, 8);
        for (let k = 0; k < L * L; k++) expect(fastPw[k]).toBeCloseTo(ctx.pairwise[k]!, 8);
      }),
      { numRuns: 300 },
    );
  });

  // Without WebAssembly SIMD the JavaScript path (Math.exp) is the only one.
  it.skipIf(instantiateSimd(1) === null)(
    "the WebAssembly exp agrees with Math.exp within 2 ulp on [−708, 0] and gives exactly 0 below",
    () => {
      const kernels = instantiateSimd(1)!;
      fc.assert(
        fc.property(
          fc.array(fc.double({ min: -708, max: 0, noNaN: true }), { minLength: 2, maxLength: 64 }),
          (xs) => {
            const count = xs.length & ~1;
            const mem = new Float64Array(kernels.memory.buffer, 8, count);
            for (let k = 0; k < count; k++) mem[k] = xs[k]!;
            kernels.expPairs(8, count >> 1);
            for (let k = 0; k < count; k++) {
              const exact = Math.exp(xs[k]!);
              expect(Math.abs(mem[k]! - exact)).toBeLessThanOrEqual(4.5e-16 * exact);
            }
          },
        ),
        { numRuns: 200 },
      );
      const edge = new Float64Array(kernels.memory.buffer, 0, 6);
      edge.set([0, NEG, -708.5, -1e9, -1e-300, Math.LN2 / -2]);
      kernels.expPairs(0, 3);
      expect(Array.from(edge.subarray(0, 5))).toEqual([1, 0, 0, 0, 1]);
      expect(edge[5]).toBeCloseTo(Math.SQRT1_2, 15);
    },
  );

  it("the WebAssembly SIMD products and the JavaScript ones give the same results", () => {
    const withSimd = new InferenceContext(2, 1);
    const plain = new InferenceContext(2, 1, { simd: false });
    expect(withSimd.usesSimd).toBe(true);
    expect(plain.usesSimd).toBe(false);
    const view = emptyView();
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, perPosition) => {
        const { scores } = randomChain(seed, { maxN: 16, maxL: 24, spread: 3 });
        const { n, L } = scores;
        setViewFromScores(view, scores);
        const out1 = perPosition ? new Float64Array(Math.max(0, n - 1) * L * L) : null;
        const out2 = perPosition ? new Float64Array(Math.max(0, n - 1) * L * L) : null;
        const a = forwardBackwardKernel(withSimd, view, true, out1);
        const b = forwardBackwardKernel(plain, view, true, out2);
        expect(close(a, b, 1e-12)).toBe(true);
        expect(notCloseTo(withSimd.marginals, plain.marginals, 12, n * L)).toEqual([]);
        expect(notCloseTo(withSimd.pairwise, plain.pairwise, 12, L * L)).toEqual([]);
        if (out1 !== null) expect(notCloseTo(out1, out2!, 12, out1.length)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("gives the log-probability of a labelling, summing to one over all labellings", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const { scores, options } = withOptions(seed);
        const all = enumerate(scores, options);
        const logZ = bruteLogZ(all);
        if (logZ === NEG) return;
        let total = 0;
        for (const e of all) {
          const lp = sequenceLogProbability(scores, e.labels, options);
          if (e.score === NEG) expect(lp).toBe(NEG);
          else expect(close(lp, e.score - logZ)).toBe(true);
          total += Math.exp(lp);
        }
        expect(total).toBeCloseTo(1, 9);
      }),
      { numRuns: 150 },
    );
  });
});

describe("k-best", () => {
  it("returns the brute-force top-k scores, distinct labellings each scoring as reported", () => {
    const ctx = new InferenceContext();
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 12 }), (seed, k) => {
        const { scores, options } = withOptions(seed, ctx);
        const all = enumerate(scores, options);
        const feasible = all
          .map((e) => e.score)
          .filter((s) => s > NEG)
          .sort((a, b) => b - a);
        const expected = feasible.slice(0, k);
        const result = kBest(scores, k, options);
        expect(result.scores.length).toBe(expected.length);
        for (let r = 0; r < expected.length; r++) {
          expect(close(result.scores[r]!, expected[r]!)).toBe(true);
          const code = result.labels[r]!.reduce((c, y) => c * scores.L + y, 0);
          expect(close(all[code]!.score, result.scores[r]!)).toBe(true);
        }
        const keys = new Set(result.labels.map((y) => y.join(",")));
        expect(keys.size).toBe(result.labels.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("CrfSlave", () => {
  it("maximises score + adjustment over repeated calls and scores without the adjustment", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const chain = randomChain(seed);
        const { scores } = chain;
        const slave = crfSlave(scores, { fixed: chain.fixed });
        const rnd = seededRandom(seed + 1);
        for (let round = 0; round < 3; round++) {
          const adj = Float64Array.from({ length: scores.n * scores.L }, () => rnd() * 4 - 2);
          const all = enumerate(scores, { adjustment: adj, fixed: chain.fixed });
          const best = Math.max(...all.map((e) => e.score));
          const result = slave.maximize(adj);
          expect(close(result.value, best)).toBe(true);
          if (best > NEG) {
            let dot = 0;
            for (let i = 0; i < scores.n; i++) dot += adj[i * scores.L + result.labels[i]!]!;
            expect(close(slave.score(result.labels) + dot, best)).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("rejects an adjustment of the wrong length with a clear error", () => {
    const { scores } = randomChain(7);
    const slave = crfSlave(scores, { name: "chain-3" });
    expect(() => slave.maximize(new Float64Array(scores.n * scores.L + 1))).toThrow(
      /chain-3\.adjustment: expected length/,
    );
  });
});
