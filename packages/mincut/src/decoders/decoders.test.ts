import { type ChainScores, type Decoding, scoreLabelling } from "@lagrange/core";
import { factorScore, type PatternFactor } from "@lagrange/core/factor-graph";
import { forEachLabelling, randomChainScores } from "@lagrange/core/testing";
import { exactIlpDecoder, prepareIlp } from "@lagrange/ilp";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { minCutSlave } from "../slaves/cut-slave.js";
import { naiveDDDecoder, twoSlaveDecoder } from "./decoders.js";
import { splitTreeCut } from "./tree-cut.js";

interface Instance {
  readonly chain: ChainScores;
  readonly patterns: PatternFactor[];
}

/** A small general CRF: a random chain plus pattern factors of orders 2..5 of either sign. */
function instance(
  seed: number,
  n: number,
  L: number,
  factors: number,
  sign: "mixed" | "positive",
  withDefaults: boolean,
): Instance {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const chain = randomChainScores(seed, { n, L, startEnd: true, scale: 2 });
  const patterns: PatternFactor[] = [];
  for (let f = 0; f < factors; f++) {
    const arity = Math.min(n, int(2, 5));
    const pool = Array.from({ length: n }, (_, v) => v);
    for (let j = 0; j < arity; j++) {
      const at = int(j, n - 1);
      [pool[j], pool[at]] = [pool[at]!, pool[j]!];
    }
    const variables = Int32Array.from(pool.slice(0, arity));
    const count = int(1, 4);
    const seen = new Set<string>();
    const values: number[] = [];
    const scores: number[] = [];
    for (let p = 0; p < count; p++) {
      const a = Array.from({ length: arity }, () => int(0, L - 1));
      if (seen.has(a.join())) continue;
      seen.add(a.join());
      values.push(...a);
      const magnitude = 0.1 + 2 * next();
      scores.push(sign === "positive" || next() < 0.5 ? magnitude : -magnitude);
    }
    patterns.push({
      kind: "pattern",
      variables,
      patterns: Int32Array.from(values),
      scores: Float64Array.from(scores),
      defaultScore: withDefaults ? Math.round((next() - 0.5) * 20) / 10 : 0,
    });
  }
  return { chain, patterns };
}

function objective(x: Instance, y: ArrayLike<number>): number {
  let total = scoreLabelling(x.chain, y);
  for (const f of x.patterns) total += factorScore(f, y, []);
  return total;
}

function bruteForce(x: Instance): number {
  let best = Number.NEGATIVE_INFINITY;
  forEachLabelling(new Int32Array(x.chain.n).fill(x.chain.L), (y) => {
    best = Math.max(best, objective(x, y));
  });
  return best;
}

const arbitraryInstance = (sign: "mixed" | "positive") =>
  fc
    .record({
      seed: fc.integer({ min: 1, max: 2 ** 30 }),
      n: fc.integer({ min: 2, max: 6 }),
      L: fc.integer({ min: 2, max: 3 }),
      factors: fc.integer({ min: 1, max: 4 }),
      defaults: fc.boolean(),
    })
    .map(({ seed, n, L, factors, defaults }) => instance(seed, n, L, factors, sign, defaults));

/** A certified decoding is optimal; every dual bounds the optimum; primal is the labels' score. */
function checkDecoding(x: Instance, d: Decoding): void {
  const optimum = bruteForce(x);
  const scale = Math.max(1, Math.abs(optimum));
  expect(d.primal).toBeCloseTo(objective(x, d.labels), 9);
  expect(d.dual!).toBeGreaterThanOrEqual(optimum - 1e-7 * scale);
  expect(d.primal).toBeLessThanOrEqual(optimum + 1e-9 * scale);
  if (d.certified) expect(d.primal).toBeGreaterThanOrEqual(optimum - 1e-5 * scale);
}

describe("splitTreeCut", () => {
  it("folds consecutive-pair factors into the chain without changing any labelling's score", () => {
    fc.assert(
      fc.property(arbitraryInstance("mixed"), fc.integer({ min: 0, max: 1e6 }), (x, pick) => {
        const split = splitTreeCut(x.chain, x.patterns);
        const y = Int32Array.from({ length: x.chain.n }, (_, i) => (pick >> i) % x.chain.L);
        let after = scoreLabelling(split.chain, y);
        for (const f of split.rest) after += factorScore(f, y, []);
        expect(after).toBeCloseTo(objective(x, y), 9);
        expect(split.rest.length + split.folded).toBe(x.patterns.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("minCutSlave", () => {
  it("bounds the one-hot maximum from above and scores its own indicators (orders 2..5, both signs)", () => {
    fc.assert(
      fc.property(
        arbitraryInstance("mixed"),
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 18, maxLength: 18 }),
        (x, raw) => {
          const { slave, positions } = minCutSlave(x.patterns, x.chain.L);
          const L = x.chain.L;
          const adjustment = Float64Array.from({ length: slave.n * L }, (_, k) => raw[k % 18]!);
          const result = slave.maximize(adjustment);
          // One-hot maximum of Σ factor scores + adjustment over the slave's positions.
          let best = Number.NEGATIVE_INFINITY;
          const global = new Int32Array(x.chain.n);
          forEachLabelling(new Int32Array(slave.n).fill(L), (y) => {
            positions.forEach((p, j) => {
              global[p] = y[j]!;
            });
            let v = 0;
            for (const f of x.patterns) v += factorScore(f, global, []);
            for (let j = 0; j < slave.n; j++) v += adjustment[j * L + y[j]!]!;
            best = Math.max(best, v);
            expect(slave.score(y)).toBeCloseTo(v - adjustmentOf(adjustment, y, L), 9);
          });
          expect(result.value).toBeGreaterThanOrEqual(best - 1e-7 * Math.max(1, Math.abs(best)));
          // When Z came out one-hot, its value is exactly that labelling's.
          const z = result.indicators!;
          let oneHot = true;
          for (let j = 0; j < slave.n; j++) {
            let on = 0;
            for (let s = 0; s < L; s++) on += z[j * L + s]!;
            if (on !== 1) oneHot = false;
          }
          if (oneHot) {
            const value = slave.score(result.labels) + adjustmentOf(adjustment, result.labels, L);
            expect(result.value).toBeCloseTo(value, 7);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("is exact over all of {0,1}^(n·L) when every pattern is positive (no ψ)", () => {
    fc.assert(
      fc.property(arbitraryInstance("positive"), fc.integer({ min: 1, max: 1e9 }), (x, seed) => {
        const patterns = x.patterns.map((f) => ({ ...f, defaultScore: 0 }));
        const { slave, positions } = minCutSlave(patterns, x.chain.L);
        expect(slave.stats.psiPairs).toBe(0);
        const L = x.chain.L;
        const size = slave.n * L;
        if (size > 16) return;
        const adjustment = Float64Array.from(
          { length: size },
          (_, k) => (((seed * (k + 7)) % 1000) / 1000 - 0.5) * 4,
        );
        const localOf = new Map<number, number>();
        for (const [j, p] of positions.entries()) localOf.set(p, j);
        const g = (z: ArrayLike<number>) => {
          let v = 0;
          for (const f of patterns) {
            const k = f.variables.length;
            for (let p = 0; p < f.scores.length; p++) {
              let all = 1;
              for (let j = 0; j < k; j++) {
                all *= z[localOf.get(f.variables[j]!)! * L + f.patterns[p * k + j]!]!;
              }
              v += f.scores[p]! * all;
            }
          }
          for (let i = 0; i < size; i++) v += adjustment[i]! * z[i]!;
          return v;
        };
        let best = Number.NEGATIVE_INFINITY;
        forEachLabelling(new Int32Array(size).fill(2), (z) => {
          best = Math.max(best, g(z));
        });
        const result = slave.maximize(adjustment);
        expect(result.value).toBeCloseTo(best, 7);
        expect(g(result.indicators!)).toBeCloseTo(best, 7);
      }),
      { numRuns: 300 },
    );
  });

  it("reuses its search trees across calls with the same answers as a fresh solve", () => {
    const x = instance(7, 6, 3, 4, "mixed", true);
    const reused = minCutSlave(x.patterns, 3).slave;
    const size = reused.n * 3;
    for (let round = 0; round < 20; round++) {
      const adjustment = Float64Array.from({ length: size }, (_, k) => Math.sin(round * 13 + k));
      const fresh = minCutSlave(x.patterns, 3, { reuse: false }).slave.maximize(adjustment);
      const value = fresh.value;
      const z = Uint8Array.from(fresh.indicators!);
      const again = reused.maximize(adjustment);
      expect(again.value).toBeCloseTo(value, 9);
      expect(Array.from(again.indicators!)).toEqual(Array.from(z));
    }
    expect(reused.stats.maxflowCalls).toBe(20);
  });

  it("names a malformed factor", () => {
    const bad: PatternFactor = {
      kind: "pattern",
      variables: Int32Array.of(0, 2),
      patterns: Int32Array.of(0, 5),
      scores: Float64Array.of(1),
      defaultScore: 0,
    };
    expect(() => minCutSlave([bad], 3)).toThrow(/factors\[0\]\.patterns\[1\].*0\.\.2, got 5/);
  });
});

function adjustmentOf(adjustment: Float64Array, y: ArrayLike<number>, L: number): number {
  let v = 0;
  for (let j = 0; j < y.length; j++) v += adjustment[j * L + y[j]!]!;
  return v;
}

describe.each([
  ["two-slave", () => twoSlaveDecoder()],
  ["naive-dd", () => naiveDDDecoder()],
])("%s decoder", (_name, make) => {
  it("never certifies a wrong labelling; its dual always bounds the optimum (orders 2..5, both signs)", () => {
    const decoder = make();
    let certified = 0;
    fc.assert(
      fc.property(arbitraryInstance("mixed"), (x) => {
        const d = decoder.decode({ scores: x.chain, patterns: x.patterns });
        checkDecoding(x, d);
        if (d.certified) certified++;
      }),
      { numRuns: 500 },
    );
    expect(certified).toBeGreaterThan(0);
  });

  it("certifies most problems whose patterns are all positive", () => {
    const decoder = make();
    let certified = 0;
    const runs = 300;
    fc.assert(
      fc.property(arbitraryInstance("positive"), (x) => {
        const d = decoder.decode({ scores: x.chain, patterns: x.patterns });
        checkDecoding(x, d);
        if (d.certified) certified++;
      }),
      { numRuns: runs },
    );
    expect(certified / runs).toBeGreaterThan(0.5);
  });

  it("decodes a problem without patterns as Viterbi does", () => {
    const chain = randomChainScores(3, { n: 5, L: 3, startEnd: true });
    const d = make().decode({ scores: chain });
    let best = Number.NEGATIVE_INFINITY;
    forEachLabelling(new Int32Array(5).fill(3), (y) => {
      best = Math.max(best, scoreLabelling(chain, y));
    });
    expect(d.certified).toBe(true);
    expect(d.primal).toBeCloseTo(best, 9);
  });
});

// With the AD3 step two-slave hands its patterns to the master as naive-dd's slaves (AD3 copes
// with many overlapping slaves; the min-cut slave's exact quadratic step costs many max-flows).
describe("two-slave with the AD3 step", () => {
  it("decodes as naive-dd does, and never certifies a wrong labelling (orders 2..5, both signs)", () => {
    const twoSlave = twoSlaveDecoder();
    const naive = naiveDDDecoder();
    let certified = 0;
    fc.assert(
      fc.property(arbitraryInstance("mixed"), (x) => {
        const problem = { scores: x.chain, patterns: x.patterns };
        const d = twoSlave.decode(problem, { step: "ad3" });
        checkDecoding(x, d);
        expect(d.cut).toBeUndefined();
        expect(d).toEqual(naive.decode(problem, { step: "ad3" }));
        if (d.certified) certified++;
      }),
      { numRuns: 200 },
    );
    expect(certified).toBeGreaterThan(0);
  });

  it("keeps the min-cut slave for the subgradient and auto steps", () => {
    const x = instance(11, 6, 3, 4, "mixed", false);
    expect(splitTreeCut(x.chain, x.patterns).rest.length).toBeGreaterThan(0);
    const twoSlave = twoSlaveDecoder();
    for (const step of ["subgradient", "auto"] as const) {
      const d = twoSlave.decode({ scores: x.chain, patterns: x.patterns }, { step });
      expect(d.cut?.positions).toBeGreaterThan(0);
      checkDecoding(x, d);
    }
  });
});

describe("exact decoder with patterns (the referee, @lagrange/ilp)", () => {
  beforeAll(async () => {
    await prepareIlp();
  });

  it("equals brute force, and agrees with every certified two-slave decoding", () => {
    const exact = exactIlpDecoder();
    const twoSlave = twoSlaveDecoder();
    fc.assert(
      fc.property(arbitraryInstance("mixed"), (x) => {
        const problem = { scores: x.chain, patterns: x.patterns };
        const r = exact.decode(problem);
        const optimum = bruteForce(x);
        expect(r.certified).toBe(true);
        expect(r.primal).toBeCloseTo(optimum, 7);
        expect(objective(x, r.labels)).toBeCloseTo(r.primal, 9);
        const d = twoSlave.decode(problem);
        if (d.certified) expect(d.primal).toBeCloseTo(r.primal, 6);
      }),
      { numRuns: 60 },
    );
    exact.dispose();
  });
});
