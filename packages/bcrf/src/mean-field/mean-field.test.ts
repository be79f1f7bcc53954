import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChainGradient, ChainInput } from "../inference/chain-input.js";
import {
  MeanFieldWorkspace,
  meanFieldDecode,
  meanFieldLoss,
  meanFieldMarginals,
} from "./mean-field.js";

const NEG = Number.NEGATIVE_INFINITY;
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

interface ChainSpec {
  n: number;
  L: number;
  perPosition: boolean;
  scale: number;
}

/** A random chain read from non-zero base offsets, so the kernels must honour them. */
function randomInput(seed: number, spec: ChainSpec): ChainInput {
  const rnd = seededRandom(seed);
  const { n, L, perPosition, scale } = spec;
  const localBase = Math.floor(rnd() * 3);
  const transitionBase = Math.floor(rnd() * 3);
  const blocks = perPosition ? Math.max(n - 1, 1) : 1;
  const local = new Float64Array(localBase + n * L);
  for (let j = 0; j < n * L; j++) local[localBase + j] = (rnd() * 2 - 1) * 2;
  const transition = new Float64Array(transitionBase + blocks * L * L);
  for (let j = 0; j < blocks * L * L; j++) transition[transitionBase + j] = (rnd() * 2 - 1) * scale;
  return {
    n,
    L,
    local,
    localBase,
    transition,
    transitionBase,
    transitionStride: perPosition ? L * L : 0,
    allowed: null,
  };
}

function trans(input: ChainInput, i: number, a: number, b: number): number {
  const { L, transition, transitionBase, transitionStride } = input;
  return transition[transitionBase + (i - 1) * transitionStride + a * L + b]!;
}

/** Exact CRF marginals by enumerating all L^n labellings. */
function bruteMarginals(input: ChainInput): Float64Array {
  const { n, L, local, localBase } = input;
  const y = new Int32Array(n);
  const scores: number[] = [];
  const labellings: Int32Array[] = [];
  for (;;) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      s += local[localBase + i * L + y[i]!]!;
      if (i > 0) s += trans(input, i, y[i - 1]!, y[i]!);
    }
    scores.push(s);
    labellings.push(y.slice());
    let i = n - 1;
    while (i >= 0 && y[i] === L - 1) y[i--] = 0;
    if (i < 0) break;
    y[i]!++;
  }
  const max = Math.max(...scores);
  let z = 0;
  const mu = new Float64Array(n * L);
  scores.forEach((s, k) => {
    const p = Math.exp(s - max);
    z += p;
    for (let i = 0; i < n; i++) mu[i * L + labellings[k]![i]!]! += p;
  });
  return mu.map((v) => v / z);
}

/** One parallel mean-field update (τ = 1), written independently of the kernel. */
function referenceUpdate(input: ChainInput, r: Float64Array): Float64Array {
  const { n, L, local, localBase } = input;
  const next = new Float64Array(n * L);
  for (let i = 0; i < n; i++) {
    const m: number[] = [];
    for (let t = 0; t < L; t++) {
      let s = local[localBase + i * L + t]!;
      for (let u = 0; u < L; u++) {
        if (i > 0) s += r[(i - 1) * L + u]! * trans(input, i, u, t);
        if (i < n - 1) s += r[(i + 1) * L + u]! * trans(input, i + 1, t, u);
      }
      m.push(s);
    }
    const max = Math.max(...m);
    const e = m.map((v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    for (let t = 0; t < L; t++) next[i * L + t] = e[t]! / sum;
  }
  return next;
}

function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  let d = 0;
  for (let j = 0; j < a.length; j++) d = Math.max(d, Math.abs(a[j]! - b[j]!));
  return d;
}

function emptyGradient(input: ChainInput): ChainGradient {
  const { n, L } = input;
  return {
    rows: new Float64Array(n * L),
    pairwise: new Float64Array(L * L),
    perPosition: new Float64Array(Math.max(n - 1, 0) * L * L),
  };
}

const chainSpecs = fc.record({
  n: fc.integer({ min: 1, max: 5 }),
  L: fc.integer({ min: 1, max: 4 }),
  perPosition: fc.boolean(),
  scale: fc.constantFrom(0.5, 1.5),
});

describe("meanFieldLoss gradient", () => {
  it("matches central finite differences on local and transition scores (shared and per-position, k 0..6, τ ≠ 1), and ADDs into the buffers", () => {
    const ws = new MeanFieldWorkspace();
    fc.assert(
      fc.property(
        seeds,
        chainSpecs,
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(1, 0.7, 1.6),
        (seed, spec, iterations, temperature) => {
          const input = randomInput(seed, spec);
          const { n, L } = input;
          const rnd = seededRandom(seed ^ 0x5bd1e995);
          const gold = new Int32Array(n + 1);
          for (let i = 0; i < n; i++) gold[i + 1] = Math.floor(rnd() * L);
          const options = { iterations, temperature };
          const loss = () => meanFieldLoss(input, gold, 1, options, ws, null);

          // Pre-filled with ones: the kernel must add, not overwrite.
          const grad = emptyGradient(input);
          grad.rows.fill(1);
          grad.pairwise.fill(1);
          grad.perPosition!.fill(1);
          const value = meanFieldLoss(input, gold, 1, options, ws, grad);
          expect(value).toBe(loss());

          const h = 1e-5;
          const fd = (arr: Float64Array, j: number): number => {
            const keep = arr[j]!;
            arr[j] = keep + h;
            const up = loss();
            arr[j] = keep - h;
            const down = loss();
            arr[j] = keep;
            return (up - down) / (2 * h);
          };
          const near = (analytic: number, numeric: number) =>
            expect(Math.abs(analytic - numeric)).toBeLessThan(
              1e-5 * Math.max(1, Math.abs(analytic), Math.abs(numeric)),
            );
          for (let j = 0; j < n * L; j++)
            near(grad.rows[j]! - 1, fd(input.local, input.localBase + j));
          if (n < 2) {
            for (let ab = 0; ab < L * L; ab++) expect(grad.pairwise[ab]).toBe(1);
            return;
          }
          const LL = L * L;
          const summed = new Float64Array(LL);
          for (let blk = 0; blk < n - 1; blk++) {
            for (let ab = 0; ab < LL; ab++) summed[ab]! += grad.perPosition![blk * LL + ab]! - 1;
          }
          for (let ab = 0; ab < LL; ab++) near(grad.pairwise[ab]! - 1, summed[ab]!);
          if (spec.perPosition) {
            for (let j = 0; j < (n - 1) * LL; j++) {
              near(grad.perPosition![j]! - 1, fd(input.transition, input.transitionBase + j));
            }
          } else {
            for (let ab = 0; ab < LL; ab++) {
              near(grad.pairwise[ab]! - 1, fd(input.transition, input.transitionBase + ab));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("meanFieldLoss", () => {
  it("is finite, ≥ 0, and equals −Σ log of the inference marginals with the same options", () => {
    const ws = new MeanFieldWorkspace();
    fc.assert(
      fc.property(seeds, chainSpecs, fc.integer({ min: 0, max: 8 }), (seed, spec, iterations) => {
        const input = randomInput(seed, spec);
        const { n, L } = input;
        const gold = new Int32Array(n);
        const rnd = seededRandom(seed + 1);
        for (let i = 0; i < n; i++) gold[i] = Math.floor(rnd() * L);
        const loss = meanFieldLoss(input, gold, 0, { iterations }, ws, null);
        expect(Number.isFinite(loss)).toBe(true);
        expect(loss).toBeGreaterThanOrEqual(0);
        const r = new Float64Array(n * L);
        meanFieldMarginals(input, { iterations }, ws, r);
        let expected = 0;
        for (let i = 0; i < n; i++) expected -= Math.log(r[i * L + gold[i]!]!);
        expect(Math.abs(loss - expected)).toBeLessThan(1e-9 * Math.max(1, expected));
      }),
    );
  });

  it("stays finite when the gold label's probability underflows", () => {
    const input = randomInput(3, { n: 3, L: 3, perPosition: false, scale: 1 });
    input.local[input.localBase] = -2000;
    const loss = meanFieldLoss(
      input,
      new Int32Array([0, 1, 1]),
      0,
      {},
      new MeanFieldWorkspace(),
      null,
    );
    expect(loss).toBeGreaterThan(1900);
    expect(Number.isFinite(loss)).toBe(true);
  });

  it("refuses partial gold, forbidden pairs and −∞ local scores with RangeErrors", () => {
    const ws = new MeanFieldWorkspace();
    const input = randomInput(11, { n: 3, L: 2, perPosition: false, scale: 1 });
    expect(() => meanFieldLoss(input, new Int32Array([0, -1, 1]), 0, {}, ws, null)).toThrow(
      /fully labelled sequences/,
    );
    expect(() => meanFieldLoss(input, new Int32Array([0, -1, 1]), 0, {}, ws, null)).toThrow(
      RangeError,
    );
    expect(() => meanFieldLoss(input, new Int32Array([0, 2, 1]), 0, {}, ws, null)).toThrow(
      RangeError,
    );
    const gold = new Int32Array([0, 1, 1]);
    const masked = { ...input, allowed: new Uint8Array([1, 0, 1, 1]) };
    expect(() => meanFieldLoss(masked, gold, 0, {}, ws, null)).toThrow(/finite scores.*labels 0→1/);
    const negTrans = { ...input, transition: input.transition.slice() };
    negTrans.transition[negTrans.transitionBase + 3] = NEG;
    expect(() => meanFieldLoss(negTrans, gold, 0, {}, ws, null)).toThrow(RangeError);
    const negLocal = { ...input, local: input.local.slice() };
    negLocal.local[negLocal.localBase + 2] = NEG;
    expect(() => meanFieldLoss(negLocal, gold, 0, {}, ws, null)).toThrow(/finite scores/);
  });
});

describe("meanFieldMarginals", () => {
  it("with zero transitions equals the exact CRF marginals (brute force) after any number of iterations", () => {
    const ws = new MeanFieldWorkspace();
    fc.assert(
      fc.property(seeds, chainSpecs, fc.integer({ min: 0, max: 5 }), (seed, spec, iterations) => {
        const input = randomInput(seed, spec);
        input.transition.fill(0);
        const r = new Float64Array(input.n * input.L);
        const result = meanFieldMarginals(input, { iterations }, ws, r);
        expect(maxAbsDiff(r, bruteMarginals(input))).toBeLessThan(1e-12);
        expect(result.change).toBe(0);
      }),
    );
  });

  it("n = 1 is softmax(local/τ)", () => {
    const input = randomInput(5, { n: 1, L: 4, perPosition: false, scale: 1 });
    const r = new Float64Array(4);
    const result = meanFieldMarginals(input, { temperature: 2 }, new MeanFieldWorkspace(), r);
    expect(result.status).toBe("converged");
    const z = Array.from(input.local.subarray(input.localBase), (v) => Math.exp(v / 2));
    const s = z.reduce((a, b) => a + b, 0);
    for (let t = 0; t < 4; t++) expect(r[t]).toBeCloseTo(z[t]! / s, 14);
  });

  it("k updates equal k applications of an independent reference update from softmax(local)", () => {
    const ws = new MeanFieldWorkspace();
    fc.assert(
      fc.property(seeds, chainSpecs, fc.integer({ min: 0, max: 6 }), (seed, spec, iterations) => {
        const input = randomInput(seed, spec);
        const { n, L } = input;
        let ref: Float64Array = new Float64Array(n * L);
        for (let i = 0; i < n; i++) {
          const e = Array.from(
            input.local.subarray(input.localBase + i * L, input.localBase + (i + 1) * L),
            Math.exp,
          );
          const s = e.reduce((a, b) => a + b, 0);
          for (let t = 0; t < L; t++) ref[i * L + t] = e[t]! / s;
        }
        for (let k = 0; k < iterations && n > 1; k++) ref = referenceUpdate(input, ref);
        const r = new Float64Array(n * L);
        const result = meanFieldMarginals(input, { iterations }, ws, r);
        expect(maxAbsDiff(r, ref)).toBeLessThan(1e-12);
        if (n > 1) {
          expect(result.status).toBe("iteration-limit");
          expect(result.iterations).toBe(iterations);
        }
      }),
    );
  });

  it("under weak coupling (|trans| < 0.2) reaches a fixed point of the update that is close to the exact marginals", () => {
    const ws = new MeanFieldWorkspace();
    const beta = 0.2;
    let worst = 0;
    fc.assert(
      fc.property(
        seeds,
        fc.record({
          n: fc.integer({ min: 2, max: 5 }),
          L: fc.integer({ min: 2, max: 4 }),
          perPosition: fc.boolean(),
          scale: fc.constant(beta),
        }),
        (seed, spec) => {
          const input = randomInput(seed, spec);
          const r = new Float64Array(input.n * input.L);
          const result = meanFieldMarginals(input, { iterations: 500 }, ws, r);
          expect(result.iterations).toBe(500);
          expect(result.change).toBeLessThan(1e-12);
          expect(maxAbsDiff(referenceUpdate(input, r), r)).toBeLessThan(1e-12);
          // Rigorous: every pair term lies in [−β, β], so both the exact and the MF log-odds of
          // any two labels stay within 4β of the local log-odds, hence |log r − log p| ≤ 8β.
          // Empirical and tighter: MF errs at second order in the coupling; 0.5·β² = 0.02 holds
          // with margin (worst seen over 3000 random chains: 0.0061).
          const exact = bruteMarginals(input);
          for (let j = 0; j < r.length; j++) {
            expect(Math.abs(Math.log(r[j]!) - Math.log(exact[j]!))).toBeLessThanOrEqual(8 * beta);
          }
          const err = maxAbsDiff(r, exact);
          worst = Math.max(worst, err);
          expect(err).toBeLessThan(0.5 * beta * beta);
        },
      ),
      { numRuns: 60 },
    );
    expect(worst).toBeGreaterThan(0);
  });

  it("stops early once the change drops below a positive tolerance", () => {
    const input = randomInput(9, { n: 5, L: 3, perPosition: true, scale: 0.2 });
    const r = new Float64Array(15);
    const result = meanFieldMarginals(
      input,
      { iterations: 1000, tolerance: 1e-8 },
      new MeanFieldWorkspace(),
      r,
    );
    expect(result.status).toBe("converged");
    expect(result.iterations).toBeLessThan(1000);
    expect(result.change).toBeLessThan(1e-8);
  });

  it("gives −∞ local labels r = 0 and no NaN, and decoding never picks them", () => {
    const ws = new MeanFieldWorkspace();
    fc.assert(
      fc.property(seeds, chainSpecs, (seed, spec) => {
        const input = randomInput(seed, spec);
        const { n, L } = input;
        const rnd = seededRandom(seed ^ 0x2545f491);
        for (let i = 0; i < n; i++) {
          const keep = Math.floor(rnd() * L);
          for (let t = 0; t < L; t++)
            if (t !== keep && rnd() < 0.5) input.local[input.localBase + i * L + t] = NEG;
        }
        const r = new Float64Array(n * L);
        const result = meanFieldMarginals(input, { iterations: 7 }, ws, r);
        expect(result.status).not.toBe("infeasible");
        const y = meanFieldDecode(r, n, L, new Int32Array(n));
        for (let i = 0; i < n; i++) {
          let sum = 0;
          for (let t = 0; t < L; t++) {
            const v = r[i * L + t]!;
            expect(Number.isNaN(v)).toBe(false);
            if (input.local[input.localBase + i * L + t] === NEG) expect(v).toBe(0);
            sum += v;
          }
          expect(sum).toBeCloseTo(1, 12);
          expect(input.local[input.localBase + i * L + y[i]!]).toBeGreaterThan(NEG);
        }
      }),
    );
  });

  it("reports forbidden pairs as unsupported by default, ignores them on request, and flags an all-forbidden position as infeasible", () => {
    const ws = new MeanFieldWorkspace();
    const input = randomInput(21, { n: 4, L: 3, perPosition: true, scale: 1 });
    const r = new Float64Array(12).fill(Number.NaN);

    const masked = { ...input, allowed: new Uint8Array([1, 1, 1, 1, 1, 0, 1, 1, 1]) };
    const fail = meanFieldMarginals(masked, {}, ws, r);
    expect(fail.status).toBe("unsupported");
    expect(fail.iterations).toBe(0);
    expect(fail.reason).toMatch(/cannot use forbidden .* labels 1→2 at position 1/);
    expect(r.every((v) => v === 0)).toBe(true);

    const negTrans = { ...input, transition: input.transition.slice() };
    negTrans.transition[negTrans.transitionBase + 2 * 9 + 3] = NEG;
    const fail2 = meanFieldMarginals(negTrans, { forbidden: "fail" }, ws, r);
    expect(fail2.status).toBe("unsupported");
    expect(fail2.reason).toMatch(/labels 1→0 at position 3/);

    // "ignore": the pair is dropped, i.e. the same as a zero score there (the mask holds for
    // every block, the −∞ entry for block 2 only).
    const maskZeroed = { ...input, transition: input.transition.slice() };
    for (let blk = 0; blk < 3; blk++)
      maskZeroed.transition[maskZeroed.transitionBase + blk * 9 + 5] = 0;
    const entryZeroed = { ...input, transition: input.transition.slice() };
    entryZeroed.transition[entryZeroed.transitionBase + 2 * 9 + 3] = 0;
    for (const [forbiddenInput, zeroInput] of [
      [masked, maskZeroed],
      [negTrans, entryZeroed],
    ] as const) {
      const ignored = meanFieldMarginals(forbiddenInput, { forbidden: "ignore" }, ws, r);
      expect(ignored.status).toBe("iteration-limit");
      expect(r.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
      const reference = new Float64Array(12);
      meanFieldMarginals(zeroInput, {}, ws, reference);
      expect(maxAbsDiff(r, reference)).toBeLessThan(1e-15);
      expect(maxAbsDiff(r, new Float64Array(12))).toBeGreaterThan(0);
    }

    const dead = { ...input, local: input.local.slice() };
    for (let t = 0; t < 3; t++) dead.local[dead.localBase + 2 * 3 + t] = NEG;
    r.fill(Number.NaN);
    const infeasible = meanFieldMarginals(dead, {}, ws, r);
    expect(infeasible.status).toBe("infeasible");
    expect(infeasible.reason).toMatch(/position 2/);
    expect(r.every((v) => v === 0)).toBe(true);
    expect(Array.from(meanFieldDecode(r, 4, 3, new Int32Array(4)))).toEqual([-1, -1, -1, -1]);
  });

  it("reports NaN / +∞ scores as unsupported instead of propagating them", () => {
    const ws = new MeanFieldWorkspace();
    const input = randomInput(4, { n: 3, L: 2, perPosition: false, scale: 1 });
    const r = new Float64Array(6);
    const nanLocal = { ...input, local: input.local.slice() };
    nanLocal.local[nanLocal.localBase + 1] = Number.NaN;
    expect(meanFieldMarginals(nanLocal, {}, ws, r).status).toBe("unsupported");
    const infTrans = { ...input, transition: input.transition.slice() };
    infTrans.transition[infTrans.transitionBase] = Number.POSITIVE_INFINITY;
    expect(meanFieldMarginals(infTrans, { forbidden: "ignore" }, ws, r).status).toBe("unsupported");
    expect(r.every((v) => v === 0)).toBe(true);
  });
});

describe("meanFieldDecode", () => {
  it("takes the per-position argmax with ties to the smallest label", () => {
    const r = new Float64Array([0.2, 0.5, 0.3, 0.4, 0.4, 0.2, 0, 0, 1]);
    expect(Array.from(meanFieldDecode(r, 3, 3, new Int32Array(3)))).toEqual([1, 0, 2]);
  });
});
