import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRandom, lagrangeErrorCode } from "@lagrange/core";
import type { BinaryProblem } from "@lagrange/core/dual-decomposition";
import { describe, expect, it } from "vitest";
import { FactorGraphFormatError } from "./factor-graph-file.js";
import { parseAd3FactorGraph } from "./fg.js";
import { parseUaiFactorGraph } from "./uai.js";

/** Σ unary·z + Σ factor scores, through the parsed problem. */
function problemObjective(problem: BinaryProblem, z: ArrayLike<number>): number {
  let total = 0;
  if (problem.unary) for (let i = 0; i < problem.variables; i++) total += problem.unary[i]! * z[i]!;
  for (const { factor, variables } of problem.factors) {
    total += factor.score(Array.from(variables, (v) => z[v]!));
  }
  return total;
}

/**
 * The objective read straight off a `.fg` text, following the format's definition, written
 * independently of the parser (no validation: the inputs are well formed).
 */
function fgObjective(text: string, z: ArrayLike<number>): number {
  const lines = text.split("\n").map((l) => l.split("#")[0]!.trim());
  const n = Number(lines[0]);
  const m = Number(lines[1]);
  let total = 0;
  for (let i = 0; i < n; i++) total += Number(lines[2 + i]) * z[i]!;
  for (let f = 0; f < m; f++) {
    const fields = lines[2 + n + f]!.split(/\s+/);
    const type = fields[0]!;
    const k = Number(fields[1]);
    const ids = fields.slice(2, 2 + k).map(Number);
    const rest = fields.slice(2 + k).map(Number);
    const lit = ids.map((id) => (id < 0 ? 1 - z[-id - 1]! : z[id - 1]!));
    const raw = ids.map((id) => z[Math.abs(id) - 1]!);
    const sum = lit.reduce((a, b) => a + b, 0);
    const inputs = lit.slice(0, -1);
    const out = lit[lit.length - 1]!;
    let ok = true;
    const sibling = (scores: number[], length: number, m: number, s: number): number => {
      let index = 0;
      for (let j = 0; j < m; j++) index += length - j;
      return scores[index + s - m - 1]!;
    };
    const chain = (selected: number[], length: number, scores: number[]): number => {
      let previous = 0;
      let value = 0;
      selected.forEach((on, j) => {
        if (on === 1) {
          value += sibling(scores, length, previous, j + 1);
          previous = j + 1;
        }
      });
      return value + sibling(scores, length, previous, length);
    };
    if (type === "XOR") ok = sum === 1;
    else if (type === "XOROUT") ok = inputs.reduce((a, b) => a + b, 0) === out;
    else if (type === "ARBORESCENCE") {
      const nodes = rest[0]!;
      const head = new Array<number>(nodes).fill(-1);
      raw.forEach((on, r) => {
        if (on !== 1) return;
        const m = rest[2 + 2 * r]!;
        if (head[m]! >= 0) ok = false;
        head[m] = rest[1 + 2 * r]!;
      });
      for (let m = 1; m < nodes && ok; m++) {
        let v = m;
        for (let step = 0; v > 0 && step <= nodes; step++) v = head[v]!;
        if (v !== 0) ok = false;
      }
    } else if (type === "HEAD_AUTOMATON") total += chain(raw, k + 1, rest);
    else if (type === "GRANDPARENT_HEAD_AUTOMATON") {
      const g = rest[0]!;
      const length = k + 1 - g;
      const on = raw.slice(0, g);
      if (on.filter((x) => x === 1).length !== 1) ok = false;
      else {
        const gp = on.indexOf(1);
        const modifiers = raw.slice(g);
        modifiers.forEach((x, j) => {
          if (x === 1) total += rest[1 + gp * (length - 1) + j]!;
        });
        total += chain(modifiers, length, rest.slice(1 + g * (length - 1)));
      }
    } else if (type === "ATMOSTONE") ok = sum <= 1;
    else if (type === "OR") ok = sum >= 1;
    else if (type === "OROUT") ok = out === (inputs.some((x) => x === 1) ? 1 : 0);
    else if (type === "ANDOUT") ok = out === (inputs.every((x) => x === 1) ? 1 : 0);
    else if (type === "BUDGET") ok = sum <= rest[0]!;
    else if (type === "PAIR") total += rest[0]! * raw[0]! * raw[1]!;
    else if (type === "DENSE" || type.startsWith("SEQUENCE") || type.startsWith("GENERAL_TREE")) {
      const hasBudget = type === "SEQUENCE_BUDGET";
      const groups = rest[0]!;
      const states = rest.slice(hasBudget ? 2 : 1, (hasBudget ? 2 : 1) + groups);
      const chosen: number[] = [];
      let offset = 0;
      for (const s of states) {
        const on = raw.slice(offset, offset + s);
        offset += s;
        if (on.filter((x) => x === 1).length !== 1) ok = false;
        chosen.push(on.indexOf(1));
      }
      const scores = rest.slice((hasBudget ? 2 : 1) + groups);
      if (ok && type === "DENSE") {
        let index = 0;
        chosen.forEach((c, g) => {
          index = index * states[g]! + c;
        });
        total += scores[index]!;
      } else if (ok && type.startsWith("GENERAL_TREE")) {
        if (type === "GENERAL_TREE_COUNTS") {
          const zeros = chosen.filter((c) => c === 0).length;
          raw.slice(offset).forEach((x, c) => {
            if (x !== (c === zeros ? 1 : 0)) ok = false;
          });
        }
        const parents = scores.slice(0, groups);
        let at = groups;
        for (let i = 1; i < groups; i++) {
          const p = parents[i]!;
          total += scores[at + chosen[p]! * states[i]! + chosen[i]!]!;
          at += states[p]! * states[i]!;
        }
      } else if (ok) {
        let at = 0;
        let previous = 0;
        chosen.forEach((c, i) => {
          const width = states[i]!;
          total += scores[at + previous * width + c]!;
          at += (i === 0 ? 1 : states[i - 1]!) * width;
          previous = c;
        });
        total += scores[at + previous]!;
        if (hasBudget && chosen.filter((c) => c === 0).length > rest[1]!) ok = false;
      }
    }
    if (!ok) return -Infinity;
  }
  return total;
}

/** Every factor type the reader supports, negated variables included. */
const INLINE = `12 # variables
9 # factors
0.5
-1.25
0.75
0.1
-0.3
2
-0.7
0.2
0.4
-0.1
0.3
-0.2
XOR 3 1 -2 3
ATMOSTONE 3 -1 4 5
OR 2 -3 -4
OROUT 3 1 2 -6
ANDOUT 3 -4 5 6
BUDGET 4 1 -3 5 6 2
PAIR 2 2 5 -1.5
DENSE 5 7 8 9 10 11 2 2 3 0.1 -0.2 0.3 0.4 0.5 -0.6
SEQUENCE 5 7 8 9 10 11 2 2 3 0.1 -0.1 0.2 0.3 -0.4 0.5 0.6 -0.7 0.8 0.9 -1
`;

const CHAINS = `7
3
0.1
0.2
-0.3
0.4
-0.5
0.6
0.7
SEQUENCE_BUDGET 5 1 2 3 4 5 3 1 2 2 1 0.1 -0.1 0.2 0.3 -0.4 0.5 0.6 -0.7 0.8
GENERAL_TREE 5 1 2 3 4 5 3 2 2 1 -1 0 0 0.3 -0.2 0.1 0.4 -0.5 0.6
PAIR 2 6 7 0.25
`;

const TREE_COUNTS = `8
1
0.1
-0.2
0.3
0.4
-0.5
0.6
0.7
-0.8
GENERAL_TREE_COUNTS 8 1 2 3 4 5 6 7 8 3 2 1 1 -1 0 1 0.3 -0.6 0.9
`;

/** The dependency-parsing factors and XOR-with-output. */
const PARSING = `8
4
0.3
-0.2
0.1
0.5
-0.4
0.2
0.6
-0.1
XOROUT 3 1 -5 3
ARBORESCENCE 3 1 2 3 3 0 1 0 2 1 2
HEAD_AUTOMATON 2 4 5 0.1 -0.2 0.3 0.4 -0.5 0.6
GRANDPARENT_HEAD_AUTOMATON 4 6 7 4 8 2 0.5 -0.7 0.2 0.9 -0.3 0.8 -0.6 0.4 0.1 0.35
`;

describe("parseAd3FactorGraph", () => {
  it("builds ad3_multi's variables, unaries and factors, in file order", () => {
    const file = parseAd3FactorGraph(INLINE, "inline.fg");
    expect(file.format).toBe("ad3");
    expect(file.problem.variables).toBe(12);
    expect(Array.from(file.problem.unary!.subarray(0, 3))).toEqual([0.5, -1.25, 0.75]);
    expect(file.problem.factors.map((f) => f.factor.size)).toEqual([3, 3, 2, 3, 3, 4, 2, 5, 5]);
    expect(Array.from(file.problem.factors[1]!.variables)).toEqual([0, 3, 4]);
    expect(file.counts).toEqual({
      variables: 12,
      factors: 9,
      factorsByType: {
        XOR: 1,
        ATMOSTONE: 1,
        OR: 1,
        OROUT: 1,
        ANDOUT: 1,
        BUDGET: 1,
        PAIR: 1,
        DENSE: 1,
        SEQUENCE: 1,
      },
    });
    expect(file.binaryVariables[4]).toEqual({ fileVariable: 5, state: -1 });
    expect(file.multiVariables.map((m) => Array.from(m.states))).toEqual([
      [6, 7],
      [8, 9, 10],
    ]);
    expect(file.problem.oneHot?.map((g) => Array.from(g))).toEqual([
      [6, 7],
      [8, 9, 10],
    ]);
  });

  it.each([
    ["every factor type", INLINE, 12],
    ["chains and trees", CHAINS, 7],
    ["parsing factors", PARSING, 8],
    ["a tree with its count", TREE_COUNTS, 8],
  ])("scores random assignments as the file defines them (%s)", (_, text, n) => {
    const file = parseAd3FactorGraph(text, "inline.fg");
    const random = createRandom(29);
    let finite = 0;
    for (let run = 0; run < 4000; run++) {
      const z = Array.from({ length: n }, () => (random.bool() ? 1 : 0));
      const expected = fgObjective(text, z);
      const actual = problemObjective(file.problem, z);
      if (expected === -Infinity) expect(actual).toBe(-Infinity);
      else {
        finite++;
        expect(actual).toBeCloseTo(expected, 12);
      }
    }
    // The assignments reach the allowed configurations, not only forbidden ones.
    expect(finite).toBeGreaterThan(5);
  });

  it("reads example2.fg as AD3 ships it (no final newline)", () => {
    const file = parseAd3FactorGraph(
      "3\n2\n0.75\n1.25\n-0.5\nOR 3 1 2 3\nPAIR 2 1 2 -1.05",
      "e.fg",
    );
    expect(file.problem.factors).toHaveLength(2);
    expect(problemObjective(file.problem, [1, 1, 0])).toBeCloseTo(0.75 + 1.25 - 1.05, 12);
    expect(problemObjective(file.problem, [0, 0, 0])).toBe(-Infinity);
  });

  it("skips the one line after the factors, whatever it holds, as ad3_multi does", () => {
    const file = parseAd3FactorGraph("1\n1\n0.5\nXOR 1 1\nCARALHO3\n\n", "e.fg");
    expect(file.problem.factors).toHaveLength(1);
  });

  const bad: [string, string, RegExp][] = [
    ["an empty file", "", /bad\.fg:1: expected the number of variables, found the end/],
    [
      "a word for a count",
      "three\n0\n",
      /bad\.fg:1: expected the number of variables \(an integer\)/,
    ],
    [
      "a truncated variable list",
      "3\n0\n0.5\n",
      /bad\.fg:4: expected the log-potential of variable 2, found the end/,
    ],
    ["a bad number", "2\n0\n0.5\n1.2.3\n", /bad\.fg:4: .*found "1\.2\.3"/],
    [
      "a blank line for a number",
      "2\n0\n0.5\n\n",
      /bad\.fg:4: expected the log-potential of variable 2/,
    ],
    ["a missing factor", "1\n2\n0\nOR 1 1\n", /bad\.fg:5: expected factor 2 of 2/],
    [
      "an out-of-range id",
      "2\n1\n0\n0\nOR 2 1 3\n",
      /bad\.fg:5: expected variable id 2 of 2 of OR in 1\.\.2/,
    ],
    ["id 0", "2\n1\n0\n0\nXOR 2 0 1\n", /bad\.fg:5: .*in 1\.\.2 .*found 0/],
    [
      "too few ids",
      "2\n1\n0\n0\nXOR 3 1 2\n",
      /bad\.fg:5: expected variable id 3 of 3 of XOR, found the end/,
    ],
    ["a repeated id", "2\n1\n0\n0\nXOR 2 1 -1\n", /bad\.fg:5: XOR links variable 1 twice/],
    ["extra fields", "2\n1\n0\n0\nXOR 2 1 2 7\n", /bad\.fg:5: expected the end of the XOR line/],
    ["an unknown type", "2\n1\n0\n0\nNAND 2 1 2\n", /bad\.fg:5: unknown factor type "NAND"/],
    [
      "an unsupported type",
      "2\n1\n0\n0\nSEQUENCE_COMPRESSOR 2 1 2\n",
      /bad\.fg:5: factor type SEQUENCE_COMPRESSOR .*not supported/,
    ],
    [
      "an arc into the root",
      "2\n1\n0\n0\nARBORESCENCE 2 1 2 3 0 1 1 0\n",
      /bad\.fg:5: arc 1→0 is not an arc/,
    ],
    [
      "a short head automaton",
      "2\n1\n0\n0\nHEAD_AUTOMATON 2 1 2 0 0 0 0 0\n",
      /bad\.fg:5: expected 6 log-potentials for HEAD_AUTOMATON, found 5/,
    ],
    ["a PAIR of three", "3\n1\n0\n0\n0\nPAIR 3 1 2 3 0.5\n", /bad\.fg:6: expected PAIR to link 2/],
    ["a negated PAIR", "2\n1\n0\n0\nPAIR 2 1 -2 0.5\n", /bad\.fg:5: PAIR takes no negated/],
    [
      "a PAIR without its score",
      "2\n1\n0\n0\nPAIR 2 1 2\n",
      /bad\.fg:5: expected the log-potential of PAIR, found the end/,
    ],
    [
      "DENSE states that do not add up",
      "3\n1\n0\n0\n0\nDENSE 3 1 2 3 1 2 0 0\n",
      /bad\.fg:6: the states of DENSE add up to 2, expected the 3/,
    ],
    [
      "a short DENSE table",
      "2\n1\n0\n0\nDENSE 2 1 2 1 2 0.5\n",
      /bad\.fg:5: expected 2 log-potentials for DENSE, found 1/,
    ],
    [
      "a short SEQUENCE table",
      "2\n1\n0\n0\nSEQUENCE 2 1 2 1 2 0 0 0\n",
      /bad\.fg:5: expected 4 log-potentials for SEQUENCE, found 3/,
    ],
    [
      "a tree with a cycle",
      "2\n1\n0\n0\nGENERAL_TREE 2 1 2 2 1 1 -1 1 0\n",
      /bad\.fg:5: expected the parents to form a tree/,
    ],
    [
      "a second graph",
      "1\n0\n0\n\n1\n0\n0\n",
      /bad\.fg:5: expected the end of the file after 0 factors/,
    ],
    [
      "two lines after the graph",
      "1\n0\n0\nEND\nMORE\n",
      /bad\.fg:5: expected the end of the file/,
    ],
  ];
  bad.push(
    [
      "a count larger than the file",
      "900000000000\n0\n0.5\n",
      /bad\.fg:4: expected the log-potential of variable 2, found the end/,
    ],
    [
      "a sentence no arc set can span",
      "1\n1\n0\nARBORESCENCE 1 1 99999999 0 1\n",
      /bad\.fg:4: expected a sentence length in 1\.\.2/,
    ],
    [
      "more positions than fields",
      "1\n1\n0\nSEQUENCE 1 1 99999999 1\n",
      /bad\.fg:4: expected 99999999 state counts for SEQUENCE, found 1/,
    ],
    // Class 9 (issue 42): a non-finite log-potential would pass into every bound.
    ...["inf", "-inf", "Infinity", "nan", "NaN", "1e999", "-1e400"].flatMap(
      (value): [string, string, RegExp][] => [
        [
          `a variable's log-potential ${value}`,
          `2\n0\n0.5\n${value}\n`,
          new RegExp(
            `bad\\.fg:4: expected the log-potential of variable 2 of 2 \\(a finite number\\), found "${value}"`,
          ),
        ],
        [
          `a PAIR's log-potential ${value}`,
          `2\n1\n0\n0\nPAIR 2 1 2 ${value}\n`,
          new RegExp(
            `bad\\.fg:5: expected the log-potential of PAIR \\(a finite number\\), found "${value}"`,
          ),
        ],
        [
          `a DENSE log-potential ${value}`,
          `2\n1\n0\n0\nDENSE 2 1 2 1 2 0.5 ${value}\n`,
          new RegExp(
            `bad\\.fg:5: expected log-potential 2 of 2 of DENSE \\(a finite number\\), found "${value}"`,
          ),
        ],
      ],
    ),
  );
  it.each(bad)("rejects %s, naming the line", (_, text, message) => {
    let caught: unknown;
    try {
      parseAd3FactorGraph(text, "bad.fg");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FactorGraphFormatError);
    expect(lagrangeErrorCode(caught)).toBe("bad-input");
    expect((caught as Error).message).toMatch(message);
  });
});

const DATA = fileURLToPath(new URL("../../../../shared/anchors/ad3/data", import.meta.url));
const hasData = existsSync(DATA);

/** What each of AD3's data graphs holds (as the lead's benchmark plan lists them). */
const SIZES: Record<string, unknown> = {
  "10_14_s.binary.uai": {
    problemVariables: 462,
    variables: 231,
    factors: 861,
    factorsByType: { UNARY: 231, DENSE: 630, XOR: 231 },
  },
  "30markers.uai": {
    problemVariables: 812,
    variables: 30,
    factors: 465,
    factorsByType: { UNARY: 30, DENSE: 435, XOR: 30 },
  },
  "Family2Dominant.1.5loci.uai": {
    problemVariables: 793,
    variables: 385,
    factors: 385,
    factorsByType: { UNARY: 106, DENSE: 279, XOR: 385 },
  },
  "GEOM30a_3.uai": {
    problemVariables: 90,
    variables: 30,
    factors: 81,
    factorsByType: { UNARY: 0, DENSE: 81, XOR: 30 },
  },
  "coref.fg": { problemVariables: 45, variables: 45, factors: 367, factorsByType: { OR: 367 } },
  "deer_rescaled_0034.K10.F1.25.model.uai": {
    problemVariables: 660,
    variables: 60,
    factors: 195,
    factorsByType: { UNARY: 60, DENSE: 135, XOR: 60 },
  },
  "example1.fg": { problemVariables: 3, variables: 3, factors: 1, factorsByType: { OR: 1 } },
  "example2.fg": {
    problemVariables: 3,
    variables: 3,
    factors: 2,
    factorsByType: { OR: 1, PAIR: 1 },
  },
  "general_tree.fg": {
    problemVariables: 43,
    variables: 43,
    factors: 1,
    factorsByType: { GENERAL_TREE: 1 },
  },
  "general_tree_counts.fg": {
    problemVariables: 61,
    variables: 61,
    factors: 1,
    factorsByType: { GENERAL_TREE_COUNTS: 1 },
  },
  "grid10x10.f2.wrap.uai": {
    problemVariables: 200,
    variables: 100,
    factors: 300,
    factorsByType: { UNARY: 100, DENSE: 200, XOR: 100 },
  },
  "grid3x3.uai": {
    problemVariables: 18,
    variables: 9,
    factors: 21,
    factorsByType: { UNARY: 9, DENSE: 12, XOR: 9 },
  },
  "grid4x4.uai": {
    problemVariables: 32,
    variables: 16,
    factors: 40,
    factorsByType: { UNARY: 16, DENSE: 24, XOR: 16 },
  },
  "mln_large.fg": {
    problemVariables: 80292,
    variables: 80292,
    factors: 80292,
    factorsByType: { OR: 30765, OROUT: 49527 },
  },
  "network.uai": {
    problemVariables: 240,
    variables: 120,
    factors: 230,
    factorsByType: { UNARY: 120, DENSE: 110, XOR: 120 },
  },
  "or_chain_10.fg.uai": {
    problemVariables: 922,
    variables: 461,
    factors: 461,
    factorsByType: { UNARY: 177, DENSE: 284, XOR: 461 },
  },
  "parsing01.fg": {
    problemVariables: 354,
    variables: 354,
    factors: 127,
    factorsByType: { ARBORESCENCE: 1, HEAD_AUTOMATON: 2, GRANDPARENT_HEAD_AUTOMATON: 124 },
  },
  "parsing02.fg": {
    problemVariables: 120,
    variables: 120,
    factors: 65,
    factorsByType: { ARBORESCENCE: 1, HEAD_AUTOMATON: 2, GRANDPARENT_HEAD_AUTOMATON: 62 },
  },
  "parsing_excerpt.fg": {
    problemVariables: 1520,
    variables: 1520,
    factors: 616,
    factorsByType: { XOR: 407, OR: 70, PAIR: 115, OROUT: 24 },
  },
  "sequence.fg": {
    problemVariables: 43,
    variables: 43,
    factors: 1,
    factorsByType: { SEQUENCE: 1 },
  },
  "sequence_budget.fg": {
    problemVariables: 43,
    variables: 43,
    factors: 1,
    factorsByType: { SEQUENCE_BUDGET: 1 },
  },
  "smokers_10.uai": {
    problemVariables: 240,
    variables: 120,
    factors: 230,
    factorsByType: { UNARY: 120, DENSE: 110, XOR: 120 },
  },
  "srl_fract_001.fg": {
    problemVariables: 321,
    variables: 321,
    factors: 32,
    factorsByType: { XOR: 12, ATMOSTONE: 20 },
  },
  "srl_fract_002.fg": {
    problemVariables: 884,
    variables: 884,
    factors: 51,
    factorsByType: { XOR: 13, ATMOSTONE: 38 },
  },
  "srl_fract_003.fg": {
    problemVariables: 712,
    variables: 712,
    factors: 59,
    factorsByType: { XOR: 11, ATMOSTONE: 48 },
  },
  "srl_fract_004.fg": {
    problemVariables: 579,
    variables: 579,
    factors: 41,
    factorsByType: { XOR: 19, ATMOSTONE: 22 },
  },
  "srl_fract_005.fg": {
    problemVariables: 443,
    variables: 443,
    factors: 34,
    factorsByType: { XOR: 19, ATMOSTONE: 15 },
  },
};

describe.skipIf(!hasData)(`AD3's data graphs (${DATA})`, () => {
  const files = hasData ? readdirSync(DATA).sort() : [];
  it("holds the 27 graphs", () => {
    expect(files).toHaveLength(27);
  });
  it.each(files)("reads %s", (name) => {
    const text = readFileSync(join(DATA, name), "utf8");
    const parse = name.endsWith(".uai") ? parseUaiFactorGraph : parseAd3FactorGraph;
    const file = parse(text, name);
    expect(file.binaryVariables).toHaveLength(file.problem.variables);
    // Checked in plain loops, then asserted once: mln_large.fg has 80 292 factors.
    let badBindings = 0;
    let emptyFactors = 0;
    for (const { factor, variables } of file.problem.factors) {
      if (variables.length !== factor.size) badBindings++;
      for (const v of variables) if (!(v >= 0 && v < file.problem.variables)) badBindings++;
      // Every factor allows some configuration: its MAP under no adjustment is finite.
      const value = factor.map(new Float64Array(factor.size), new Float64Array(factor.size));
      if (!(value > -Infinity)) emptyFactors++;
    }
    expect({ badBindings, emptyFactors }).toEqual({ badBindings: 0, emptyFactors: 0 });
    expect({ problemVariables: file.problem.variables, ...file.counts }).toEqual(SIZES[name]);
  });
});

if (!hasData) {
  describe("AD3's data graphs", () => {
    it.skip(`skipped: ${DATA} is absent (a fresh clone has no ../shared)`, () => {});
  });
}
