import { ProblemValidationError } from "@lagrange/core";
import { factorScore, type PatternFactor } from "@lagrange/core/factor-graph";
import { checkSlave, forEachLabelling } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  greedySpanningForests,
  naiveDecomposition,
  phrasePairSlave,
  treeSlave,
} from "./naive-dd.js";

const score = fc.integer({ min: -40, max: 40 }).map((x) => x / 8);
const nonzero = score.filter((x) => x !== 0);

/** A pattern factor over `variables` listing a random subset of the L^arity assignments. */
function patternArb(variables: readonly number[], L: number): fc.Arbitrary<PatternFactor> {
  const arity = variables.length;
  const all: number[][] = [];
  forEachLabelling(new Int32Array(arity).fill(L), (y) => {
    all.push([...y]);
  });
  return fc
    .record({
      listed: fc.subarray(all),
      scores: fc.array(score, { minLength: all.length, maxLength: all.length }),
      defaultScore: nonzero,
    })
    .map(({ listed, scores, defaultScore }) => ({
      kind: "pattern",
      variables: Int32Array.from(variables),
      patterns: Int32Array.from(listed.flat()),
      scores: Float64Array.from(listed, (_, p) => scores[p]!),
      defaultScore,
    }));
}

function adjustmentArb(n: number, L: number): fc.Arbitrary<Float64Array> {
  return fc
    .array(score, { minLength: n * L, maxLength: n * L })
    .map((values) => Float64Array.from(values));
}

/** Max over every labelling of the positions of Σ factor scores + Σ adjustment, by enumeration. */
function bruteForce(
  positions: Int32Array,
  factors: readonly PatternFactor[],
  L: number,
  adjustment: Float64Array,
): number {
  const n = positions.length;
  const global = new Int32Array(Math.max(...positions) + 1);
  const domains = new Int32Array(global.length).fill(L);
  let best = Number.NEGATIVE_INFINITY;
  forEachLabelling(new Int32Array(n).fill(L), (y) => {
    for (let j = 0; j < n; j++) global[positions[j]!] = y[j]!;
    let value = 0;
    for (const f of factors) value += factorScore(f, global, domains);
    for (let j = 0; j < n; j++) value += adjustment[j * L + y[j]!]!;
    if (value > best) best = value;
  });
  return best;
}

function expectExact(
  binding: ReturnType<typeof treeSlave>,
  factors: readonly PatternFactor[],
  adjustment: Float64Array,
): void {
  const { slave } = binding;
  const positions = binding.positions!;
  const { L } = slave;
  const best = bruteForce(positions, factors, L, adjustment);
  const { labels, value } = slave.maximize(adjustment);
  expect(value).toBeCloseTo(best, 9);
  let adjusted = slave.score(labels);
  for (let j = 0; j < slave.n; j++) adjusted += adjustment[j * L + labels[j]!]!;
  expect(adjusted).toBeCloseTo(value, 9);
  // score is the factors' own score, so the slave optimises the right objective.
  const global = new Int32Array(Math.max(...positions) + 1);
  for (let j = 0; j < slave.n; j++) global[positions[j]!] = labels[j]!;
  const domains = new Int32Array(global.length).fill(L);
  const own = factors.reduce((sum, f) => sum + factorScore(f, global, domains), 0);
  expect(slave.score(labels)).toBeCloseTo(own, 9);
}

/** A random forest on n local nodes, placed at distinct global positions, with random factors. */
const forestCase = fc
  .record({
    L: fc.integer({ min: 2, max: 3 }),
    n: fc.integer({ min: 1, max: 6 }),
  })
  .chain(({ L, n }) =>
    fc
      .record({
        parents: fc.array(fc.option(fc.nat(), { freq: 3 }), { minLength: n, maxLength: n }),
        flips: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        positions: fc.shuffledSubarray(
          Array.from({ length: 12 }, (_, i) => i),
          { minLength: n, maxLength: n },
        ),
        seed: fc.integer(),
      })
      .chain(({ parents, flips, positions, seed }) => {
        const pairs: [number, number][] = [];
        for (let v = 1; v < n; v++) {
          const p = parents[v];
          if (p === null || p === undefined) continue;
          const u = p % v;
          pairs.push(flips[v] ? [positions[v]!, positions[u]!] : [positions[u]!, positions[v]!]);
        }
        return fc.record({
          L: fc.constant(L),
          positions: fc.constant(Int32Array.from(positions)),
          edges:
            pairs.length === 0
              ? fc.constant([])
              : fc.tuple(...pairs.map((pair) => patternArb(pair, L))),
          adjustment: adjustmentArb(n, L),
          seed: fc.constant(seed),
        });
      }),
  );

describe("treeSlave", () => {
  it("maximises exactly over random forests of pattern factors", () => {
    fc.assert(
      fc.property(forestCase, ({ L, positions, edges, adjustment, seed }) => {
        const binding = treeSlave(positions, edges, L);
        expect([...binding.positions!]).toEqual([...positions]);
        expectExact(binding, edges, adjustment);
        checkSlave(binding.slave, { seed, trials: 10 });
      }),
      { numRuns: 300 },
    );
  });

  it("breaks ties toward the lowest label and keeps no state between calls", () => {
    const edge: PatternFactor = {
      kind: "pattern",
      variables: Int32Array.of(4, 7),
      patterns: Int32Array.of(1, 1),
      scores: Float64Array.of(0),
      defaultScore: 0,
    };
    const { slave } = treeSlave(Int32Array.of(7, 4), [edge], 3);
    expect([...slave.maximize(new Float64Array(6)).labels]).toEqual([0, 0]);
    const adjustment = Float64Array.of(0, 0, 2, 0, 0, 1);
    const first = slave.maximize(adjustment);
    expect([...first.labels]).toEqual([2, 2]);
    expect(first.value).toBe(3);
    expect(slave.maximize(adjustment).value).toBe(3);
  });

  it("names the factor that closes a cycle", () => {
    const pair = (a: number, b: number): PatternFactor => ({
      kind: "pattern",
      variables: Int32Array.of(a, b),
      patterns: Int32Array.of(0, 0),
      scores: Float64Array.of(1),
      defaultScore: 0,
    });
    const triangle = [pair(3, 5), pair(5, 9), pair(9, 3)];
    const build = () => treeSlave(Int32Array.of(3, 5, 9), triangle, 2, "skip");
    expect(build).toThrow(ProblemValidationError);
    expect(build).toThrow(/skip\.edges\[2\].*\(9, 3\).*forest/);
    // Parallel edges are a cycle of length two.
    expect(() => treeSlave(Int32Array.of(3, 5), [pair(3, 5), pair(5, 3)], 2)).toThrow(
      /edges\[1\].*cycle/,
    );
    expect(() => treeSlave(Int32Array.of(3, 5), [pair(3, 6)], 2)).toThrow(
      /edges\[0\]\.variables\[1\].*position 6/,
    );
  });
});

const phraseCase = fc
  .record({
    L: fc.integer({ min: 2, max: 3 }),
    arity: fc.integer({ min: 2, max: 4 }),
  })
  .chain(({ L, arity }) =>
    fc.record({
      L: fc.constant(L),
      factor: fc
        .shuffledSubarray(
          Array.from({ length: 10 }, (_, i) => i),
          { minLength: arity, maxLength: arity },
        )
        .chain((variables) => patternArb(variables, L)),
      adjustment: adjustmentArb(arity, L),
      seed: fc.integer(),
    }),
  );

describe("phrasePairSlave", () => {
  it("maximises exactly, listed patterns of either sign against a nonzero default", () => {
    fc.assert(
      fc.property(phraseCase, ({ L, factor, adjustment, seed }) => {
        const binding = phrasePairSlave(factor, L);
        expect([...binding.positions!]).toEqual([...factor.variables]);
        expectExact(binding, [factor], adjustment);
        checkSlave(binding.slave, { seed, trials: 10 });
      }),
      { numRuns: 300 },
    );
  });

  it("finds the best unlisted assignment below many listed ones, with L larger than P + 1", () => {
    // The listed patterns are the top assignments by adjustment, so the enumeration must dig.
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 7 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer(),
        nonzero,
        (L, arity, listed, seed, defaultScore) => {
          const adjustment = new Float64Array(arity * L);
          let state = seed | 0;
          for (let i = 0; i < adjustment.length; i++) {
            state = (Math.imul(state, 1103515245) + 12345) | 0;
            adjustment[i] = ((state >>> 8) % 9) / 4;
          }
          const all: { y: number[]; sum: number }[] = [];
          forEachLabelling(new Int32Array(arity).fill(L), (y) => {
            let sum = 0;
            for (let j = 0; j < arity; j++) sum += adjustment[j * L + y[j]!]!;
            all.push({ y: [...y], sum });
          });
          all.sort((a, b) => b.sum - a.sum);
          const top = all.slice(0, listed);
          const factor: PatternFactor = {
            kind: "pattern",
            variables: Int32Array.from({ length: arity }, (_, j) => 3 * j + 1),
            patterns: Int32Array.from(top.flatMap((a) => a.y)),
            scores: Float64Array.from(top, (_, p) => (p % 2 === 0 ? -3 : -1.5)),
            defaultScore,
          };
          expectExact(phrasePairSlave(factor, L), [factor], adjustment);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("falls back to a listed pattern when every assignment is listed or the default is −∞", () => {
    const factor: PatternFactor = {
      kind: "pattern",
      variables: Int32Array.of(0, 1),
      patterns: Int32Array.of(0, 0, 0, 1, 1, 0, 1, 1),
      scores: Float64Array.of(-1, -2, -3, 6),
      defaultScore: 100,
    };
    const adjustment = Float64Array.of(3, 0, 3, 0);
    const all = phrasePairSlave(factor, 2).slave.maximize(adjustment);
    expect([...all.labels]).toEqual([1, 1]);
    expect(all.value).toBe(6);
    const forbidden = phrasePairSlave(
      {
        ...factor,
        patterns: Int32Array.of(1, 0),
        scores: Float64Array.of(-1),
        defaultScore: Number.NEGATIVE_INFINITY,
      },
      2,
    ).slave.maximize(adjustment);
    expect([...forbidden.labels]).toEqual([1, 0]);
    expect(forbidden.value).toBe(2);
  });

  it("refuses duplicate patterns and labels out of range", () => {
    const factor: PatternFactor = {
      kind: "pattern",
      variables: Int32Array.of(0, 1, 2),
      patterns: Int32Array.of(0, 1, 0, 0, 1, 0),
      scores: Float64Array.of(1, 2),
      defaultScore: 0,
    };
    expect(() => phrasePairSlave(factor, 2)).toThrow(/patterns\[1\].*listed twice/);
    expect(() => phrasePairSlave({ ...factor, patterns: Int32Array.of(0, 2, 0) }, 2)).toThrow(
      ProblemValidationError,
    );
  });
});

function isForest(n: number, edges: ReadonlyArray<readonly [number, number]>, part: number[]) {
  const parent = Array.from({ length: n }, (_, i) => i);
  const root = (x: number): number => (parent[x] === x ? x : root(parent[x]!));
  for (const e of part) {
    const a = root(edges[e]![0]);
    const b = root(edges[e]![1]);
    if (a === b) return false;
    parent[a] = b;
  }
  return true;
}

describe("greedySpanningForests", () => {
  const multigraph = fc.integer({ min: 2, max: 7 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc
          .tuple(fc.nat({ max: n - 1 }), fc.nat({ max: n - 2 }))
          .map(([a, d]): readonly [number, number] => [a, (a + 1 + d) % n]),
        { maxLength: 25 },
      ),
    }),
  );

  it("covers every edge once with greedy, maximal forests", () => {
    fc.assert(
      fc.property(multigraph, ({ n, edges }) => {
        const parts = greedySpanningForests(n, edges);
        const seen = parts.flat().sort((a, b) => a - b);
        expect(seen).toEqual(edges.map((_, e) => e));
        for (const part of parts) {
          expect(part.length).toBeGreaterThan(0);
          expect(part.length).toBeLessThanOrEqual(n - 1);
          expect(isForest(n, edges, part)).toBe(true);
        }
        expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(edges.length / (n - 1)));
        // Greedy: a round left an uncovered edge out only because it would close a cycle.
        parts.forEach((part, r) => {
          for (const later of parts.slice(r + 1)) {
            for (const e of later) expect(isForest(n, edges, [...part, e])).toBe(false);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("splits parallel edges and complete graphs", () => {
    const parallel = greedySpanningForests(3, [
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 2],
    ]);
    expect(parallel).toEqual([[0, 3], [1], [2]]);
    for (let m = 2; m <= 8; m++) {
      const complete: [number, number][] = [];
      for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) complete.push([a, b]);
      const parts = greedySpanningForests(m, complete);
      expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(m / 2));
      for (const part of parts) expect(isForest(m, complete, part)).toBe(true);
    }
    expect(greedySpanningForests(4, [])).toEqual([]);
    expect(() => greedySpanningForests(3, [[1, 1]])).toThrow(/self-loop/);
  });
});

describe("naiveDecomposition", () => {
  const document = fc
    .record({ L: fc.integer({ min: 2, max: 3 }), n: fc.integer({ min: 3, max: 7 }) })
    .chain(({ L, n }) =>
      fc.record({
        L: fc.constant(L),
        n: fc.constant(n),
        factors: fc.array(
          fc
            .shuffledSubarray(
              Array.from({ length: n }, (_, i) => i),
              { minLength: 2, maxLength: Math.min(n, 4) },
            )
            // Skip edges (arity 2) come often, with repeats, so forests split cycles and twins.
            .chain((vars) => patternArb(vars.length > 3 ? vars.slice(0, 2) : vars, L)),
          { maxLength: 10 },
        ),
        labellings: fc.array(fc.array(fc.nat({ max: L - 1 }), { minLength: n, maxLength: n }), {
          minLength: 1,
          maxLength: 5,
        }),
        seed: fc.integer(),
      }),
    );

  it("covers every factor exactly once with exact slaves", () => {
    fc.assert(
      fc.property(document, ({ L, n, factors, labellings, seed }) => {
        const bindings = naiveDecomposition(factors, L);
        const pairwise = factors.filter((f) => f.variables.length === 2);
        const others = factors.length - pairwise.length;
        expect(bindings.length - others).toBe(
          greedySpanningForests(
            n,
            pairwise.map((f) => [f.variables[0]!, f.variables[1]!] as const),
          ).length,
        );
        for (const { slave, positions } of bindings) {
          expect(slave.L).toBe(L);
          expect(new Set(positions).size).toBe(slave.n);
          checkSlave(slave, { seed, trials: 3 });
        }
        // Σ slave scores = Σ factor scores on every labelling iff each factor sits in one slave.
        const domains = new Int32Array(n).fill(L);
        for (const y of labellings) {
          const expected = factors.reduce((sum, f) => sum + factorScore(f, y, domains), 0);
          const total = bindings.reduce(
            (sum, { slave, positions }) => sum + slave.score(Array.from(positions!, (i) => y[i]!)),
            0,
          );
          expect(total).toBeCloseTo(expected, 9);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("names a malformed factor by its index", () => {
    const bad: PatternFactor = {
      kind: "pattern",
      variables: Int32Array.of(2, 2),
      patterns: new Int32Array(0),
      scores: new Float64Array(0),
      defaultScore: 0,
    };
    expect(() => naiveDecomposition([bad], 2)).toThrow(/patterns\[0\]\.variables\[1\]/);
  });
});
