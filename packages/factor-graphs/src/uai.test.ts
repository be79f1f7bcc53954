import { createRandom, lagrangeErrorCode } from "@lagrange/core";
import type { BinaryProblem } from "@lagrange/core/dual-decomposition";
import { describe, expect, it } from "vitest";
import { FactorGraphFormatError } from "./factor-graph-file.js";
import { parseUaiFactorGraph, UAI_LOG_ZERO } from "./uai.js";

function problemObjective(problem: BinaryProblem, z: ArrayLike<number>): number {
  let total = 0;
  if (problem.unary) for (let i = 0; i < problem.variables; i++) total += problem.unary[i]! * z[i]!;
  for (const { factor, variables } of problem.factors) {
    total += factor.score(Array.from(variables, (v) => z[v]!));
  }
  return total;
}

const CARDS = [2, 3, 2];
const SCOPES = [[0], [0, 1], [0, 1, 2], [2], [1, 2]];
const TABLES = [
  [0.5, 2],
  [1, 2, 0.5, 3, 0.25, 1.5],
  [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12],
  [0, 4],
  [0.3, 0.7, 1.1, 1.3, 0.2, 2.5],
];

// Tabs and spaces, blank lines between tables, a table across lines and one on its count's line.
const INLINE = `MARKOV
3
2 3 2
5
1 0
2\t0 1
3 0 1 2
1 2
2 1 2

2
0.5 2

6
1 2 0.5
3 0.25 1.5

12
1 2 3 4 5 6
7 0 9 10 11 12
2
0 4
6 0.3 0.7 1.1 1.3 0.2 2.5
`;

/** log of the product of the tables at the joint state, zeros scoring AD3's LOG_ZERO. */
function direct(states: number[]): number {
  let total = 0;
  SCOPES.forEach((scope, f) => {
    let index = 0;
    for (const v of scope) index = index * CARDS[v]! + states[v]!;
    const value = TABLES[f]![index]!;
    total += value === 0 ? UAI_LOG_ZERO : Math.log(value);
  });
  return total;
}

describe("parseUaiFactorGraph", () => {
  it("builds ad3_multi's state variables, unaries, dense factors and one XOR per variable", () => {
    const file = parseUaiFactorGraph(INLINE, "net.uai");
    expect(file.format).toBe("uai");
    expect(file.problem.variables).toBe(7);
    expect(file.binaryVariables[3]).toEqual({ fileVariable: 1, state: 1 });
    expect(file.multiVariables.map((m) => Array.from(m.states))).toEqual([
      [0, 1],
      [2, 3, 4],
      [5, 6],
    ]);
    expect(file.problem.oneHot).toHaveLength(3);
    expect(Array.from(file.problem.unary!)).toEqual([
      Math.log(0.5),
      Math.log(2),
      0,
      0,
      0,
      UAI_LOG_ZERO,
      Math.log(4),
    ]);
    // Dense factors in file order, then the XORs.
    expect(file.problem.factors.map((f) => Array.from(f.variables))).toEqual([
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4, 5, 6],
      [2, 3, 4, 5, 6],
      [0, 1],
      [2, 3, 4],
      [5, 6],
    ]);
    expect(file.counts).toEqual({
      variables: 3,
      factors: 5,
      factorsByType: { UNARY: 2, DENSE: 3, XOR: 3 },
    });
  });

  it("scores every joint state as the log of the product of the tables", () => {
    const file = parseUaiFactorGraph(INLINE, "net.uai");
    for (let a = 0; a < 2; a++) {
      for (let b = 0; b < 3; b++) {
        for (let c = 0; c < 2; c++) {
          const z = new Float64Array(7);
          z[a] = 1;
          z[2 + b] = 1;
          z[5 + c] = 1;
          expect(problemObjective(file.problem, z)).toBeCloseTo(direct([a, b, c]), 12);
        }
      }
    }
  });

  it("forbids binary assignments that are not one state per variable", () => {
    const file = parseUaiFactorGraph(INLINE, "net.uai");
    const random = createRandom(7);
    for (let run = 0; run < 500; run++) {
      const z = Array.from({ length: 7 }, () => (random.bool() ? 1 : 0));
      const oneHot = [z[0]! + z[1]!, z[2]! + z[3]! + z[4]!, z[5]! + z[6]!].every((s) => s === 1);
      if (!oneHot) expect(problemObjective(file.problem, z)).toBe(-Infinity);
      else expect(problemObjective(file.problem, z)).toBeGreaterThan(-Infinity);
    }
  });

  const bad: [string, string, RegExp][] = [
    ["an empty file", "", /bad\.uai:1: expected the header MARKOV, found the end/],
    [
      "a Bayesian network",
      "BAYES\n1\n2\n0\n",
      /bad\.uai:1: expected the header MARKOV .*found "BAYES"/,
    ],
    [
      "too few cardinalities",
      "MARKOV\n3\n2 2\n0\n",
      /bad\.uai:3: expected 3 cardinalities on one line, found 2/,
    ],
    [
      "a zero cardinality",
      "MARKOV\n1\n0\n0\n",
      /bad\.uai:3: expected the cardinality of variable 0 to be ≥ 1/,
    ],
    [
      "a short scope",
      "MARKOV\n2\n2 2\n1\n2 0\n",
      /bad\.uai:5: expected 2 variables in the scope of factor 0, found 1/,
    ],
    [
      "an out-of-range variable",
      "MARKOV\n2\n2 2\n1\n2 0 2\n",
      /bad\.uai:5: expected variable 2 of factor 0 in 0\.\.1, found 2/,
    ],
    [
      "a missing scope",
      "MARKOV\n2\n2 2\n2\n1 0\n",
      /bad\.uai:6: expected the scope of factor 1 of 2, found the end/,
    ],
    [
      "a wrong table size",
      "MARKOV\n1\n2\n1\n1 0\n3\n1 1 1\n",
      /bad\.uai:6: expected 2 entries in the table of factor 0 .*found 3/,
    ],
    [
      "a truncated table",
      "MARKOV\n1\n2\n1\n1 0\n2\n1\n",
      /bad\.uai:8: expected 1 more entries of factor 0, found the end/,
    ],
    [
      "a table too long",
      "MARKOV\n1\n2\n1\n1 0\n2\n1 2 3\n",
      /bad\.uai:7: the table of factor 0 has more than its 2 entries/,
    ],
    [
      "a bad number",
      "MARKOV\n1\n2\n1\n1 0\n2\n1 x\n",
      /bad\.uai:7: expected a potential of factor 0 \(a finite number\), found "x"/,
    ],
    [
      "a negative potential",
      "MARKOV\n1\n2\n1\n1 0\n2\n1 -2\n",
      /bad\.uai:7: expected a finite potential ≥ 0 in factor 0, found -2/,
    ],
    [
      "a missing table",
      "MARKOV\n1\n2\n1\n1 0\n",
      /bad\.uai:6: expected the table of factor 0 \(declared on line 5\)/,
    ],
    [
      "a second network",
      "MARKOV\n1\n2\n1\n1 0\n2\n1 1\nMARKOV\n",
      /bad\.uai:8: expected the end of the file/,
    ],
  ];
  bad.push(
    [
      "more states than it allocates",
      "MARKOV\n2\n100000000 2\n0\n",
      /bad\.uai:3: expected at most 67108864 states in all/,
    ],
    [
      "a table larger than it allocates",
      "MARKOV\n3\n10000 10000 10\n1\n3 0 1 2\n1\n0\n",
      /bad\.uai:5: factor 0 has 1000000000 entries/,
    ],
    // Sizes are checked exactly (issue 42): before, 2^32 + 2 states wrapped to 2 in an
    // Int32Array and a different, two-state graph was solved.
    [
      "a cardinality that wraps at 32 bits",
      "MARKOV\n2\n4294967298 2\n0\n",
      /bad\.uai:3: expected at most 67108864 states in all, found more \(variable 0 has 4294967298/,
    ],
    [
      "cardinalities whose sum wraps at 32 bits",
      `MARKOV\n65\n${Array(65).fill(66_000_000).join(" ")}\n0\n`,
      /bad\.uai:3: expected at most 67108864 states in all, found more \(variable 1 has 66000000, after 66000000/,
    ],
    [
      "a table whose size no double holds exactly",
      `MARKOV\n40\n${Array(40).fill(3).join(" ")}\n1\n40 ${Array.from({ length: 40 }, (_, v) => v).join(" ")}\n1\n0\n`,
      /bad\.uai:5: factor 0 has 12157665459056928801 entries/,
    ],
    [
      "an infinite potential",
      "MARKOV\n1\n2\n1\n1 0\n2\n1 1e999\n",
      /bad\.uai:7: expected a potential of factor 0 \(a finite number\), found "1e999"/,
    ],
  );
  it.each(bad)("rejects %s, naming the line", (_, text, message) => {
    let caught: unknown;
    try {
      parseUaiFactorGraph(text, "bad.uai");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FactorGraphFormatError);
    expect(lagrangeErrorCode(caught)).toBe("bad-input");
    expect((caught as Error).message).toMatch(message);
  });
});
