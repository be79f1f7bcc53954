import { solveBinaryProblem } from "@lagrange/core/dual-decomposition";
import { describe, expect, it } from "vitest";
import { cppDefaultFormat, fileAssignment, parseFactorGraph, posteriorsFile } from "./solution.js";

/** Four binary variables: XOR over 1..3, a PAIR rewarding 3 and 4 together; the MAP is {3, 4}. */
const SMALL_FG = "4\n2\n0.5\n1.0\n-0.2\n-0.5\nXOR 3 1 2 3\nPAIR 2 3 4 2.0\n";
/** Two variables (3 and 2 states) whose MAP is (2, 1). */
const SMALL_UAI = "MARKOV\n2\n3 2\n2\n1 0\n2 0 1\n\n3\n1 2 4\n\n6\n1 1 1 1 1 5\n";

function solve(text: string, name: string) {
  const file = parseFactorGraph(text, name);
  const solution = solveBinaryProblem(file.problem, {
    maxIterations: 1000,
    eta: 1,
    tolerance: 1e-6,
    exact: true,
  });
  return { file, solution };
}

describe("a solved factor graph in the file's terms", () => {
  it("gives a .fg file's 0/1 per variable and ad3_multi's posteriors file", () => {
    const { file, solution } = solve(SMALL_FG, "small.fg");
    expect(file.format).toBe("ad3");
    expect(fileAssignment(file, solution.assignment)).toEqual({ assignment: [0, 0, 1, 1] });
    expect(posteriorsFile(solution, true)).toBe("0\n0\n1\n1\n\n\n");
  });

  it("gives a UAI file's chosen state per variable", () => {
    const { file, solution } = solve(SMALL_UAI, "small.uai");
    expect(file.format).toBe("uai");
    expect(fileAssignment(file, solution.assignment)).toEqual({ assignment: [2, 1] });
  });
});

describe("ad3_multi's number format", () => {
  it("writes doubles as C++'s default ostream does (%g, 6 significant digits)", () => {
    const cases: [number, string][] = [
      [0, "0"],
      [-0, "-0"],
      [1, "1"],
      [0.5, "0.5"],
      [1 / 3, "0.333333"],
      [0.4999996, "0.5"],
      [0.0001234, "0.0001234"],
      [0.00001234, "1.234e-05"],
      [1e-7, "1e-07"],
      [100000, "100000"],
      [999999.7, "1e+06"],
      [123456789, "1.23457e+08"],
      [-2.5, "-2.5"],
      [Number.POSITIVE_INFINITY, "inf"],
    ];
    for (const [x, text] of cases) expect(cppDefaultFormat(x), String(x)).toBe(text);
  });
});
