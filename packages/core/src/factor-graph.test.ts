import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scoreLabelling } from "./chain.js";
import { ProblemValidationError } from "./errors.js";
import {
  chainToFactorGraph,
  type FactorGraph,
  factorGraph,
  pairwiseFactor,
  patternFactor,
  scoreAssignment,
  unaryFactor,
  validateFactorGraph,
} from "./factor-graph.js";
import { createRandom } from "./random.js";
import { chainArgmax, chainLogPartition } from "./semiring.js";
import {
  bruteForceBest,
  bruteForceLogPartition,
  randomChainScores,
  randomFactorGraph,
} from "./testing/index.js";

/** An independent scorer: tables as Maps keyed by the joint assignment. */
function scoreByLookup(graph: FactorGraph, y: ArrayLike<number>): number {
  let total = 0;
  for (const factor of graph.factors) {
    if (factor.kind === "unary") total += factor.scores[y[factor.variable]!]!;
    else if (factor.kind === "pairwise") {
      const [a, b] = factor.variables;
      const table = new Map<string, number>();
      let k = 0;
      for (let x = 0; x < graph.domainSizes[a]!; x++) {
        for (let z = 0; z < graph.domainSizes[b]!; z++) table.set(`${x},${z}`, factor.scores[k++]!);
      }
      total += table.get(`${y[a]},${y[b]}`)!;
    } else {
      const arity = factor.variables.length;
      const table = new Map<string, number>();
      for (let p = 0; p < factor.scores.length; p++) {
        table.set(
          factor.patterns.subarray(p * arity, (p + 1) * arity).join(","),
          factor.scores[p]!,
        );
      }
      const key = Array.from(factor.variables, (v) => y[v]).join(",");
      total += table.get(key) ?? factor.defaultScore;
    }
  }
  return total;
}

describe("factor graphs", () => {
  it("random graphs validate, and scoreAssignment equals an independent table lookup", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const graph = randomFactorGraph(random, {
          variables: random.int(1, 5),
          pairwise: random.int(0, 4),
          patterns: random.int(0, 3),
          maxArity: 4,
          forbiddenFraction: random.pick([0, 0.2]),
        });
        validateFactorGraph(graph);
        for (let draw = 0; draw < 5; draw++) {
          const y = Array.from(graph.domainSizes, (d) => random.int(0, d - 1));
          const expected = scoreByLookup(graph, y);
          const actual = scoreAssignment(graph, y);
          if (expected === Number.NEGATIVE_INFINITY) expect(actual).toBe(expected);
          else expect(actual).toBeCloseTo(expected, 12);
        }
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it("a chain as a factor graph scores every labelling the same, and has the same optimum and log Z", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const scores = randomChainScores(random, {
          n: random.int(1, 4),
          L: random.int(1, 3),
          positionSpecific: random.bool(),
          startEnd: random.bool(),
          forbiddenFraction: random.pick([0, 0.4]),
        });
        const graph = chainToFactorGraph(scores);
        validateFactorGraph(graph);
        const y = Array.from({ length: scores.n }, () => random.int(0, scores.L - 1));
        const a = scoreLabelling(scores, y);
        const b = scoreAssignment(graph, y);
        if (a === Number.NEGATIVE_INFINITY) expect(b).toBe(a);
        else expect(b).toBeCloseTo(a, 12);
        expect(bruteForceBest(graph).score).toBeCloseTo(chainArgmax(scores).score, 9);
        const logZ = chainLogPartition(scores);
        if (logZ === Number.NEGATIVE_INFINITY) expect(bruteForceLogPartition(graph)).toBe(logZ);
        else expect(bruteForceLogPartition(graph)).toBeCloseTo(logZ, 9);
      }),
      { numRuns: 300, seed: 22 },
    );
  });

  it("a pattern factor scores listed patterns and the default otherwise (qian-liu2014 §2.1)", () => {
    const graph = factorGraph(
      [2, 2, 3],
      [
        unaryFactor(0, [0, 1]),
        pairwiseFactor(0, 2, [1, 2, 3, 4, 5, 6]),
        patternFactor({
          variables: [0, 1, 2],
          patterns: [
            { assignment: [1, 1, 1], score: 10 },
            { assignment: [0, 0, 2], score: -4 },
          ],
          defaultScore: -1,
        }),
      ],
    );
    expect(scoreAssignment(graph, [1, 1, 1])).toBe(1 + 5 + 10);
    expect(scoreAssignment(graph, [0, 0, 2])).toBe(0 + 3 - 4);
    expect(scoreAssignment(graph, [1, 0, 0])).toBe(1 + 4 - 1);
  });

  it("rejects malformed graphs with the path of the bad field", () => {
    const bad = (domainSizes: number[], factors: Parameters<typeof factorGraph>[1]) => () =>
      factorGraph(domainSizes, factors);
    expect(bad([], [])).toThrow(/factorGraph\.domainSizes: expected at least one variable/);
    expect(bad([2, 0], [])).toThrow(/factorGraph\.domainSizes\[1\]/);
    expect(bad([2], [unaryFactor(1, [0, 0])])).toThrow(
      /factors\[0\]\.variable: expected a variable id in 0\.\.0/,
    );
    expect(bad([2], [unaryFactor(0, [0])])).toThrow(/factors\[0\]\.scores: expected length 2/);
    expect(bad([2], [unaryFactor(0, [0, Number.NaN])])).toThrow(/factors\[0\]\.scores\[1\]/);
    expect(bad([2, 2], [pairwiseFactor(0, 0, [0, 0, 0, 0])])).toThrow(/two distinct variables/);
    expect(bad([2, 3], [pairwiseFactor(0, 1, [0, 0, 0, 0])])).toThrow(/expected length 6 \(2×3\)/);
    const pattern = (variables: number[], assignment: number[][]) =>
      patternFactor({ variables, patterns: assignment.map((a) => ({ assignment: a, score: 1 })) });
    expect(bad([2, 2], [pattern([0, 0], [[0, 0]])])).toThrow(
      /variables\[1\]: variable 0 appears twice/,
    );
    expect(bad([2, 2], [pattern([0, 1], [[0, 2]])])).toThrow(
      /factors\[0\]\.patterns\[0\]\[1\]: expected a value in 0\.\.1/,
    );
    expect(
      bad(
        [2, 2],
        [
          pattern(
            [0, 1],
            [
              [0, 1],
              [0, 1],
            ],
          ),
        ],
      ),
    ).toThrow(/patterns\[1\]: pattern \(0,1\) is listed twice/);
    expect(() => pattern([0, 1], [[0]])).toThrow(ProblemValidationError);
    const graph = factorGraph([2, 2], []);
    expect(() => scoreAssignment(graph, [0])).toThrow(/assignment: expected 2 values/);
    expect(() => scoreAssignment(graph, [0, 2])).toThrow(
      /assignment\[1\]: expected a value in 0\.\.1/,
    );
  });
});
