import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashedFeatures, hashString } from "../features/hashing.js";
import {
  CostSensitiveRegressor,
  type RegressorOptions,
  type RegressorState,
} from "./cost-sensitive.js";

/** mulberry32: a small seeded PRNG, so every test's data is fixed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function vector(entries: readonly (readonly [number, number])[]): HashedFeatures {
  const f = new HashedFeatures();
  for (const [hash, value] of entries) f.addHash(hash, value);
  return f;
}

function scores(model: CostSensitiveRegressor, f: HashedFeatures): Float64Array {
  const out = new Float64Array(model.actions);
  model.addScores(f, out);
  return out;
}

function argmin(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! < xs[best]!) best = i;
  return best;
}

interface Problem {
  /** Per example: (feature index, value) pairs; feature index i is hashed as hashString(`f${i}`). */
  readonly examples: (readonly (readonly [number, number])[])[];
  readonly costs: Float64Array[];
}

/** A realisable linear cost-sensitive problem: costs = W·x, sparse x with a bias feature. */
function linearProblem(
  seed: number,
  actions: number,
  features: number,
  count: number,
  active: number,
  featureScale: (i: number) => number = () => 1,
): Problem {
  const rnd = rng(seed);
  const W = Array.from({ length: actions }, () =>
    Float64Array.from({ length: features }, () => rnd() * 2 - 1),
  );
  const examples: (readonly (readonly [number, number])[])[] = [];
  const costs: Float64Array[] = [];
  for (let e = 0; e < count; e++) {
    const chosen = new Set<number>([0]); // feature 0: the bias
    while (chosen.size < active) chosen.add(1 + Math.floor(rnd() * (features - 1)));
    const entries = [...chosen].map(
      (i) => [i, i === 0 ? 1 : (0.2 + rnd()) * (rnd() < 0.5 ? -1 : 1)] as const,
    );
    examples.push(entries.map(([i, v]) => [i, v * featureScale(i)] as const));
    costs.push(
      Float64Array.from({ length: actions }, (_, a) =>
        entries.reduce((sum, [i, v]) => sum + W[a]![i]! * v, 0),
      ),
    );
  }
  return { examples, costs };
}

function hashed(entries: readonly (readonly [number, number])[]): HashedFeatures {
  return vector(entries.map(([i, v]) => [hashString(`f${i}`), v] as const));
}

function train(model: CostSensitiveRegressor, problem: Problem, passes: number): void {
  const all = Int32Array.from({ length: model.actions }, (_, a) => a);
  const vectors = problem.examples.map(hashed);
  for (let pass = 0; pass < passes; pass++) {
    for (let e = 0; e < vectors.length; e++) {
      model.update(vectors[e]!, all, problem.costs[e]!, model.actions);
    }
  }
}

describe("CostSensitiveRegressor: construction", () => {
  it("rejects bad arguments with messages that say what was expected", () => {
    expect(() => new CostSensitiveRegressor(0)).toThrow(/actions must be an integer ≥ 1, got 0/);
    expect(() => new CostSensitiveRegressor(2.5)).toThrow(RangeError);
    expect(() => new CostSensitiveRegressor(3, { bits: 0 })).toThrow(
      /bits must be an integer in 1\.\.30/,
    );
    expect(() => new CostSensitiveRegressor(3, { bits: 31 })).toThrow(RangeError);
    expect(() => new CostSensitiveRegressor(3, { bits: 1 })).toThrow(/must not exceed the table/);
    expect(() => new CostSensitiveRegressor(3, { learningRate: 0 })).toThrow(/learningRate.*> 0/);
    expect(() => new CostSensitiveRegressor(3, { learningRate: Number.NaN })).toThrow(RangeError);
    expect(() => new CostSensitiveRegressor(3, { powerT: -1 })).toThrow(/powerT.*≥ 0/);
    expect(() => new CostSensitiveRegressor(3, { l2: -0.1 })).toThrow(/l2.*≥ 0/);
    const ok = new CostSensitiveRegressor(3, { bits: 8 });
    expect(ok.actions).toBe(3);
    expect(ok.bits).toBe(8);
    expect(new CostSensitiveRegressor(1).bits).toBe(20);
  });

  it("rejects bad update arguments", () => {
    const m = new CostSensitiveRegressor(3, { bits: 8 });
    const f = vector([[1, 1]]);
    expect(() => m.update(f, [3], [0], 1)).toThrow(/actions\[0\] must be an integer in 0\.\.2/);
    expect(() => m.update(f, [0], [0], 2)).toThrow(/count/);
    expect(() => m.update(f, [0], [Number.NaN], 1)).toThrow(/costs\[0\] must be finite/);
    expect(() => m.update(f, [0], [0], 1, -1)).toThrow(/importance/);
    expect(() => m.addScores(f, new Float64Array(2))).toThrow(/≥ 3 scores/);
  });
});

describe("CostSensitiveRegressor: scoring", () => {
  it("adds to out and is linear in the features", () => {
    const m = new CostSensitiveRegressor(4, { bits: 12 });
    train(m, linearProblem(1, 4, 20, 50, 5), 3);
    const a = hashed([
      [1, 0.5],
      [2, -1],
    ]);
    const b = hashed([
      [3, 2],
      [7, 0.25],
    ]);
    const both = new HashedFeatures().copyFrom(a);
    both.append(b);
    const sum = scores(m, a);
    m.addScores(b, sum);
    const whole = scores(m, both);
    for (let i = 0; i < 4; i++) expect(sum[i]).toBeCloseTo(whole[i]!, 12);
    expect(scores(m, new HashedFeatures())).toEqual(new Float64Array(4));
  });
});

describe("CostSensitiveRegressor: the update rule", () => {
  it("takes VW's first step: with one feature x and label y, p = y·(1 − e^(−2η·x²/(√G·N)))", () => {
    // G = (2y)²·x², N = |x|, global normaliser 1: ppu = x²/(2|y|·x·x) = 1/(2|y|), p = y(1 − e^(−2η·ppu)).
    for (const [x, y, eta] of [
      [2, 1, 0.5],
      [0.1, -3, 0.5],
      [7, 0.5, 2],
    ] as const) {
      const m = new CostSensitiveRegressor(1, { bits: 4, learningRate: eta });
      const f = vector([[5, x]]);
      m.update(f, [0], [y], 1);
      const ppu = 1 / (2 * Math.abs(y));
      expect(scores(m, f)[0]).toBeCloseTo(y * (1 - Math.exp(-2 * eta * ppu)), 6);
    }
  });

  it("plain SGD (all flags off) steps w += 2η·t^(−power_t)·h·(y − p)·x", () => {
    const m = new CostSensitiveRegressor(1, {
      bits: 4,
      learningRate: 0.1,
      powerT: 0.5,
      adaptive: false,
      normalized: false,
      invariant: false,
    });
    const f = vector([[3, 1.5]]);
    m.update(f, [0], [2], 1, 3); // t = 3
    const w1 = 2 * 0.1 * 3 ** -0.5 * 3 * 2 * 1.5;
    expect(scores(m, f)[0]).toBeCloseTo(w1 * 1.5, 5);
    m.update(f, [0], [2], 1, 1); // t = 4
    const w2 = w1 + 2 * 0.1 * 4 ** -0.5 * (2 - w1 * 1.5) * 1.5;
    expect(scores(m, f)[0]).toBeCloseTo(w2 * 1.5, 5);
  });

  it("converges on a realisable linear cost-sensitive problem (squared loss)", () => {
    const actions = 5;
    const problem = linearProblem(7, actions, 40, 300, 6);
    const m = new CostSensitiveRegressor(actions, { bits: 18 });
    const vectors = problem.examples.map(hashed);
    const mse = () => {
      let sum = 0;
      for (let e = 0; e < vectors.length; e++) {
        const s = scores(m, vectors[e]!);
        for (let a = 0; a < actions; a++) sum += (s[a]! - problem.costs[e]![a]!) ** 2;
      }
      return sum / (vectors.length * actions);
    };
    let variance = 0;
    for (const c of problem.costs) for (const v of c) variance += v * v;
    variance /= problem.costs.length * actions;
    train(m, problem, 2);
    const early = mse();
    train(m, problem, 200);
    const late = mse();
    expect(late).toBeLessThan(early / 100);
    expect(late).toBeLessThan(1e-3 * variance);
    let agree = 0;
    for (let e = 0; e < vectors.length; e++) {
      if (argmin(scores(m, vectors[e]!)) === argmin(problem.costs[e]!)) agree++;
    }
    // Ties within the residual error could flip an argmin; there are none at this precision.
    expect(agree).toBe(vectors.length);
  });
});

describe("CostSensitiveRegressor: importance invariance", () => {
  /**
   * A model warmed up on random examples over feature hashes 0..5, feature i at scale bound[i]; the
   * first example reaches every bound, so later examples within them never rescale a weight (a
   * feature seen at a new, larger scale first shrinks its weight, NAG's step 2, which moves the
   * prediction before the step starts from it).
   */
  function warmed(seed: number, options: RegressorOptions): [CostSensitiveRegressor, number[]] {
    const rnd = rng(seed);
    const bound = Array.from({ length: 6 }, () => 4 ** (rnd() * 4 - 2));
    const m = new CostSensitiveRegressor(2, { bits: 10, ...options });
    for (let e = 0; e < 5; e++) {
      const f = vector(bound.map((b, i) => [i, e === 0 ? -b : (rnd() * 2 - 1) * b] as const));
      m.update(f, [0, 1], [rnd() * 4 - 2, rnd() * 4 - 2], 2, 0.1 + rnd());
    }
    return [m, bound];
  }

  const example = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), {
    minLength: 1,
    maxLength: 6,
  });

  it("moves the prediction toward the label and never past it, for any importance", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        example,
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        (seed, fractions, label, h, learningRate) => {
          const [m, bound] = warmed(seed, { learningRate });
          const f = vector(fractions.map((t, i) => [i, t * bound[i]!] as const));
          if (!fractions.some((t) => t !== 0)) return;
          const before = scores(m, f)[0]!;
          m.update(f, [0], [label], 1, h);
          const after = scores(m, f)[0]!;
          // float32 weights: "exactly at the label" can land a rounding error beyond it.
          const eps = 1e-5 * (1 + Math.abs(label) + Math.abs(before));
          expect(Math.abs(label - after)).toBeLessThanOrEqual(Math.abs(label - before) + eps);
          expect((label - after) * Math.sign(label - before)).toBeGreaterThanOrEqual(-eps);
          if (h >= 1) {
            // and it does move: at least the fraction a tiny step would take
            expect(Math.abs(label - after)).toBeLessThan(Math.abs(label - before) + eps / 2);
          }
        },
      ),
    );
  });

  it("a feature repeated in one example (even with opposite signs) still moves toward the label", () => {
    for (const [first, second] of [
      [-0.4, 0.5],
      [0.5, -0.4],
      [2, 3],
    ] as const) {
      const m = new CostSensitiveRegressor(1, { bits: 4 });
      const f = vector([
        [1, first],
        [1, second],
      ]);
      for (let e = 0; e < 3; e++) {
        const before = scores(m, f)[0]!;
        m.update(f, [0], [1], 1);
        const after = scores(m, f)[0]!;
        expect(after).toBeGreaterThan(before);
      }
    }
  });

  it("without the invariant update a large importance overshoots the label", () => {
    const overshoot = (invariant: boolean, h: number) => {
      const m = new CostSensitiveRegressor(1, { bits: 4, invariant });
      const f = vector([
        [1, 1],
        [2, 0.5],
      ]);
      m.update(f, [0], [1], 1, h);
      return scores(m, f)[0]! - 1;
    };
    expect(overshoot(false, 1)).toBeLessThan(0); // small importance: both rules undershoot
    expect(overshoot(false, 50)).toBeGreaterThan(0.5);
    for (const h of [1, 50, 1e4, 1e8]) expect(overshoot(true, h)).toBeLessThanOrEqual(1e-6);
    expect(overshoot(true, 1e4)).toBeGreaterThan(-1e-3); // and a huge one lands on the label
  });
});

describe("CostSensitiveRegressor: per-feature scale invariance", () => {
  const c = (i: number) => 10 ** (((i * 7919) % 13) / 2 - 3); // 1e-3 … 1e3, fixed per feature

  function maxRelativeGap(options: RegressorOptions): number {
    const actions = 3;
    const plain = linearProblem(11, actions, 25, 120, 6);
    const scaled = linearProblem(11, actions, 25, 120, 6, c);
    const a = new CostSensitiveRegressor(actions, { bits: 16, ...options });
    const b = new CostSensitiveRegressor(actions, { bits: 16, ...options });
    train(a, plain, 5);
    train(b, scaled, 5);
    let gap = 0;
    const test = linearProblem(12, actions, 25, 50, 6);
    const testScaled = linearProblem(12, actions, 25, 50, 6, c);
    for (let e = 0; e < test.examples.length; e++) {
      const sa = scores(a, hashed(test.examples[e]!));
      const sb = scores(b, hashed(testScaled.examples[e]!));
      for (let k = 0; k < actions; k++) {
        gap = Math.max(gap, Math.abs(sa[k]! - sb[k]!) / Math.max(1, Math.abs(sa[k]!)));
      }
    }
    return gap;
  }

  it("normalized: scaling each feature by a constant leaves the predictions unchanged", () => {
    expect(maxRelativeGap({})).toBeLessThan(1e-4);
    expect(maxRelativeGap({ adaptive: false })).toBeLessThan(1e-4);
    expect(maxRelativeGap({ powerT: 0.3 })).toBeLessThan(1e-4);
  });

  it("without normalized the same scaling changes them", () => {
    expect(maxRelativeGap({ normalized: false })).toBeGreaterThan(0.1);
  });
});

describe("CostSensitiveRegressor: actions not listed", () => {
  it("leaves the scores of actions not listed in an update unchanged", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }),
        (seed, listed) => {
          const actions = 6;
          const m = new CostSensitiveRegressor(actions, { bits: 12 });
          const rnd = rng(seed);
          // Hashes 0..19 with 6 actions use slots 0..119: no collisions across actions.
          const random = () =>
            vector(
              Array.from({ length: 5 }, () => [Math.floor(rnd() * 20), rnd() * 2 - 1] as const),
            );
          const all = [0, 1, 2, 3, 4, 5];
          const warm = Array.from({ length: 10 }, random);
          for (const f of warm)
            m.update(
              f,
              all,
              all.map(() => rnd()),
              actions,
            );
          const probes = Array.from({ length: 10 }, random);
          const before = probes.map((f) => scores(m, f));
          // Seen already, so no feature scale grows (which would first shrink its weights).
          const f = warm[Math.floor(rnd() * warm.length)]!;
          const scoreBefore = scores(m, f);
          m.update(
            f,
            listed,
            listed.map(() => 5 + rnd()),
            listed.length,
            2,
          );
          const after = probes.map((p) => scores(m, p));
          for (let a = 0; a < actions; a++) {
            if (listed.includes(a)) continue;
            for (let p = 0; p < probes.length; p++) expect(after[p]![a]).toBe(before[p]![a]);
          }
          const scoreAfter = scores(m, f);
          for (const a of listed) expect(scoreAfter[a]).toBeGreaterThan(scoreBefore[a]!);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("with l2, shrinks every weight (VW's global contraction) and stays finite", () => {
    const problem = linearProblem(3, 3, 20, 60, 5);
    const free = new CostSensitiveRegressor(3, { bits: 12 });
    const shrunk = new CostSensitiveRegressor(3, { bits: 12, l2: 1e-3 });
    const crushed = new CostSensitiveRegressor(3, { bits: 12, l2: 0.9, learningRate: 1.5 });
    train(free, problem, 20);
    train(shrunk, problem, 20);
    train(crushed, problem, 20); // contraction underflows (re-materialised) or λ·ηbar ≥ 1 (cleared)
    let normFree = 0;
    let normShrunk = 0;
    for (const e of problem.examples) {
      const f = hashed(e);
      for (const s of scores(free, f)) normFree += s * s;
      for (const s of scores(shrunk, f)) normShrunk += s * s;
      for (const s of scores(crushed, f)) expect(Number.isFinite(s)).toBe(true);
    }
    expect(normShrunk).toBeLessThan(normFree);
    expect(crushed.exportState().contraction).toBeGreaterThanOrEqual(1e-9);
  });
});

describe("CostSensitiveRegressor: state", () => {
  function trained(options: RegressorOptions = {}): CostSensitiveRegressor {
    const m = new CostSensitiveRegressor(4, { bits: 10, ...options });
    train(m, linearProblem(5, 4, 30, 40, 5), 3);
    return m;
  }

  /** A state through JSON and back, the table copied aside as a model file would store it. */
  function viaJson(state: RegressorState): RegressorState {
    const { weights, ...settings } = state;
    return { ...JSON.parse(JSON.stringify(settings)), weights: new Float32Array(weights) };
  }

  it.each<RegressorOptions>([
    {},
    { l2: 0.01 },
    { adaptive: false },
    { normalized: false, powerT: 0.3 },
    { adaptive: false, normalized: false, invariant: false },
  ])("round-trips predictions and further training exactly (%o)", (options) => {
    const m = trained(options);
    const copy = CostSensitiveRegressor.fromState(viaJson(m.exportState()));
    expect(copy.actions).toBe(4);
    expect(copy.bits).toBe(10);
    const more = linearProblem(6, 4, 30, 20, 5);
    for (const e of more.examples) expect(scores(copy, hashed(e))).toEqual(scores(m, hashed(e)));
    train(m, more, 2);
    train(copy, more, 2);
    for (const e of more.examples) expect(scores(copy, hashed(e))).toEqual(scores(m, hashed(e)));
  });

  it("fromState copies the table: the original's later training does not leak into it", () => {
    const m = trained();
    const copy = CostSensitiveRegressor.fromState(m.exportState());
    const f = hashed([[1, 1]]);
    const before = scores(copy, f);
    m.update(f, [0, 1, 2, 3], [9, 9, 9, 9], 4);
    expect(scores(copy, f)).toEqual(before);
  });

  it("rejects bad input with an error naming the field", () => {
    const good = trained().exportState();
    const broken = (patch: Record<string, unknown>) => () =>
      CostSensitiveRegressor.fromState({ ...good, ...patch } as unknown as RegressorState);
    expect(() => CostSensitiveRegressor.fromState(null as unknown as RegressorState)).toThrow(
      /RegressorState: expected an object/,
    );
    expect(broken({ format: "vw" })).toThrow(/RegressorState\.format/);
    expect(broken({ version: 2 })).toThrow(/RegressorState\.version/);
    expect(broken({ actions: 0 })).toThrow(
      /RegressorState\.actions: expected an integer ≥ 1, got 0/,
    );
    expect(broken({ bits: 31 })).toThrow(/RegressorState\.bits/);
    expect(broken({ learningRate: -1 })).toThrow(/RegressorState\.learningRate/);
    expect(broken({ powerT: "0.5" })).toThrow(/RegressorState\.powerT.*got "0\.5"/);
    expect(broken({ l2: undefined })).toThrow(/RegressorState\.l2.*missing/);
    expect(broken({ adaptive: 1 })).toThrow(/RegressorState\.adaptive: expected a boolean/);
    expect(broken({ examples: -1 })).toThrow(/RegressorState\.examples/);
    expect(broken({ contraction: 0 })).toThrow(/RegressorState\.contraction/);
    expect(broken({ weights: new Float32Array(12) })).toThrow(
      /RegressorState\.weights: expected a Float32Array of 2\^bits × stride = 2\^10 × 3 = 3072 values, got Float32Array of length 12/,
    );
    expect(broken({ weights: Array.from(good.weights) })).toThrow(/RegressorState\.weights/);
    // The table's length depends on the flags: 2 slots' worth less without normalized.
    expect(broken({ normalized: false })).toThrow(/RegressorState\.weights.*2\^10 × 2 = 2048/);
    const nan = new Float32Array(good.weights);
    nan[30] = Number.NaN;
    expect(broken({ weights: nan })).toThrow(
      /RegressorState\.weights\[30\]: expected a finite weight/,
    );
    const negative = new Float32Array(good.weights);
    negative[31] = -1;
    expect(broken({ weights: negative })).toThrow(/RegressorState\.weights\[31\].*Σg²/);
  });
});
