// The second-order kernels against brute-force enumeration of every labelling, and against the
// first-order kernels when every trigram weight is zero.
import { type ChainScores, scoreLabelling, seededRandom } from "@lagrange/core";
import { randomChainScores } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forwardBackward, viterbi } from "./api.js";
import { secondOrderViterbiKernel } from "./second-order.js";
import { SecondOrderContext, trigramPattern } from "./second-order-context.js";
import { secondOrderForwardBackwardKernel } from "./second-order-forward-backward.js";
import { emptyView, setViewFromScores } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

interface Case {
  readonly scores: ChainScores;
  readonly tri: Float64Array;
}

const cases = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 6 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
    startEnd: fc.boolean(),
    forbiddenFraction: fc.constantFrom(0, 0.3, 0.8),
  })
  .map(({ seed, ...options }): Case => {
    const scores = randomChainScores(seed, options);
    const rnd = seededRandom(seed ^ 0x5bd1e995);
    const tri = Float64Array.from({ length: options.L ** 3 }, () => (rnd() * 2 - 1) * 2);
    return { scores, tri };
  });

/** Every labelling with its second-order score. */
function enumerate({ scores, tri }: Case): Array<{ labels: Int32Array; score: number }> {
  const { n, L } = scores;
  const out: Array<{ labels: Int32Array; score: number }> = [];
  const y = new Int32Array(n);
  for (let code = 0; code < L ** n; code++) {
    let c = code;
    for (let i = n - 1; i >= 0; i--) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    let s = scoreLabelling(scores, y);
    for (let i = 2; i < n; i++) s += tri[y[i - 2]! * L * L + y[i - 1]! * L + y[i]!]!;
    out.push({ labels: y.slice(), score: s });
  }
  return out;
}

function logSumExp(xs: readonly number[]): number {
  const m = Math.max(...xs);
  if (m === NEG) return NEG;
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

const close = (a: number, b: number, tol = 1e-9) =>
  a === b || Math.abs(a - b) <= tol * Math.max(1, Math.abs(a));

describe("second-order kernels", () => {
  const ctx = new SecondOrderContext();
  const view = emptyView();

  it("Viterbi finds the best labelling of brute-force enumeration", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const all = enumerate(c);
        const best = Math.max(...all.map((e) => e.score));
        const out = new Int32Array(c.scores.n);
        const score = secondOrderViterbiKernel(
          ctx,
          setViewFromScores(view, c.scores),
          c.tri,
          0,
          out,
        );
        expect(close(score, best)).toBe(true);
        if (best !== NEG) {
          const code = Array.from(out).reduce((s, y) => s * c.scores.L + y, 0);
          expect(close(all[code]!.score, best)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("log Z, token, pair and trigram marginals equal brute force", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const { n, L } = c.scores;
        const all = enumerate(c);
        const logZ = logSumExp(all.map((e) => e.score));
        const got = secondOrderForwardBackwardKernel(
          ctx,
          setViewFromScores(view, c.scores),
          c.tri,
          0,
          true,
        );
        expect(close(got, logZ)).toBe(true);
        if (logZ === NEG) return;
        const token = new Float64Array(n * L);
        const pair = new Float64Array(Math.max(0, n - 1) * L * L);
        const trigram = new Float64Array(L * L * L);
        for (const e of all) {
          if (e.score === NEG) continue;
          const p = Math.exp(e.score - logZ);
          const y = e.labels;
          for (let i = 0; i < n; i++) {
            token[i * L + y[i]!]! += p;
            if (i > 0) pair[(i - 1) * L * L + y[i - 1]! * L + y[i]!]! += p;
            if (i > 1) trigram[y[i - 2]! * L * L + y[i - 1]! * L + y[i]!]! += p;
          }
        }
        for (let k = 0; k < token.length; k++) expect(ctx.marginals[k]).toBeCloseTo(token[k]!, 9);
        for (let k = 0; k < pair.length; k++) expect(ctx.pairMarginals[k]).toBeCloseTo(pair[k]!, 9);
        for (let k = 0; k < trigram.length; k++) {
          expect(ctx.trigramMarginals[k]).toBeCloseTo(trigram[k]!, 9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a sparse pattern (zero weights outside it) gives the dense results", () => {
    const dense = new SecondOrderContext();
    fc.assert(
      fc.property(cases, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (c, seed) => {
        const { n, L } = c.scores;
        const rnd = seededRandom(seed);
        const active = Uint8Array.from({ length: L ** 3 }, () => (rnd() < 0.3 ? 1 : 0));
        const tri = c.tri.map((w, k) => (active[k] === 1 ? w : 0));
        const pattern = trigramPattern(L, active);
        const v = setViewFromScores(view, c.scores);
        const want = secondOrderForwardBackwardKernel(dense, v, tri, 0, true);
        const got = secondOrderForwardBackwardKernel(ctx, v, tri, 0, true, pattern);
        expect(close(got, want)).toBe(true);
        if (want === NEG) return;
        for (let k = 0; k < n * L; k++) {
          expect(ctx.marginals[k]).toBeCloseTo(dense.marginals[k]!, 10);
        }
        for (let k = 0; k < (n - 1) * L * L; k++) {
          expect(ctx.pairMarginals[k]).toBeCloseTo(dense.pairMarginals[k]!, 10);
        }
        for (let k = 0; k < L ** 3; k++) {
          const expected = active[k] === 1 ? dense.trigramMarginals[k]! : 0;
          expect(ctx.trigramMarginals[k]).toBeCloseTo(expected, 10);
        }
        // Weights outside the pattern (when it leaves any out): the dense path, still exact.
        const stray = c.tri.slice();
        const all = secondOrderForwardBackwardKernel(dense, v, stray, 0, false);
        expect(close(secondOrderForwardBackwardKernel(ctx, v, stray, 0, false, pattern), all)).toBe(
          true,
        );
      }),
      { numRuns: 300 },
    );
  });

  it("with zero trigram weights it is the first-order chain", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const { n, L } = c.scores;
        const zero = new Float64Array(L * L * L);
        const out = new Int32Array(n);
        const v = setViewFromScores(view, c.scores);
        const score = secondOrderViterbiKernel(ctx, v, zero, 0, out);
        const first = viterbi(c.scores);
        expect(close(score, first.score, 1e-12)).toBe(true);
        if (first.score !== NEG) expect(Array.from(out)).toEqual(Array.from(first.labels));
        const logZ = secondOrderForwardBackwardKernel(ctx, v, zero, 0, false);
        const fb = forwardBackward(c.scores);
        expect(close(logZ, fb.logPartition, 1e-12)).toBe(true);
        if (logZ === NEG) return;
        for (let k = 0; k < n * L; k++) {
          expect(Math.abs(ctx.marginals[k]! - fb.marginals[k]!)).toBeLessThan(1e-12);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reuses its buffers across lengths and label counts", () => {
    const long = randomChainScores(7, { n: 40, L: 5, startEnd: true });
    const tri = new Float64Array(125).fill(0.25);
    const out = new Int32Array(40);
    const a = secondOrderForwardBackwardKernel(ctx, setViewFromScores(view, long), tri, 0, true);
    secondOrderViterbiKernel(
      ctx,
      setViewFromScores(view, randomChainScores(8, { n: 3, L: 2 })),
      tri,
      0,
      out,
    );
    const b = secondOrderForwardBackwardKernel(ctx, setViewFromScores(view, long), tri, 0, true);
    expect(b).toBe(a);
    let mass = 0;
    for (let k = 0; k < 125; k++) mass += ctx.trigramMarginals[k]!;
    expect(mass).toBeCloseTo(38, 9);
  });
});
