import { describe, expect, it } from "vitest";
import { PbfFormatError } from "./errors.js";
import { parsePbf } from "./pbf-format.js";

const GOOD = "3 1 1\n5\n-2\n0\n0 2 4\n6 3 0 1 2\n";

describe("parsePbf", () => {
  it("reads the objective F as the energy E = −F", () => {
    const { energy, numVariables, numPairs, numTerms } = parsePbf(GOOD, "tiny.pbf.txt");
    expect([numVariables, numPairs, numTerms]).toEqual([3, 1, 1]);
    // F(1,0,1) = 5 + 0 + 4 = 9; F(1,1,1) = 5 − 2 + 4 + 6 = 13
    expect(energy.evaluate([1, 0, 1])).toBe(-9);
    expect(energy.evaluate([1, 1, 1])).toBe(-13);
    expect(parsePbf(GOOD.replaceAll("\n", "\r\n")).energy.evaluate([1, 1, 1])).toBe(-13);
    expect(parsePbf("0 0 0\n").numVariables).toBe(0);
    expect(parsePbf("2 0 0\n1.5\n-2e1\n\n\n").energy.evaluate([1, 1])).toBe(18.5);
  });

  const cases: [string, string, RegExp][] = [
    ["", "x.pbf:1:", /the file ends here, but the header `N P H` was expected/],
    ["3 1\n", "x.pbf:1:", /expected 3 fields \(N P H\), got 2/],
    ["3 a 0\n", "x.pbf:1:", /P \(pairs\) must be an integer, got "a"/],
    ["-1 0 0\n", "x.pbf:1:", /N \(variables\) must be ≥ 0/],
    ["3 1 1\n5\n-2\n", "x.pbf:4:", /ends here, but θ_2/],
    ["3 1 1\n5\n\n0\n", "x.pbf:3:", /empty line; expected θ_1/],
    ["3 1 1\n5\nnan\n0\n", "x.pbf:3:", /θ_1 must be a finite number, got "nan"/],
    ["3 1 1\n5\n1e999\n0\n", "x.pbf:3:", /finite number/],
    ["3 1 1\n5\n-2\n0\n0 3 4\n", "x.pbf:5:", /b 3 is not a variable \(N = 3: 0 … 2\)/],
    ["3 1 1\n5\n-2\n0\n1 1 4\n", "x.pbf:5:", /two different variables, got 1 twice/],
    ["3 1 1\n5\n-2\n0\n0 1\n", "x.pbf:5:", /expected 3 fields \(a b w\)/],
    ["3 1 1\n5\n-2\n0\n0 2 4\n", "x.pbf:6:", /ends here, but term 1 of 1/],
    ["3 1 1\n5\n-2\n0\n0 2 4\n6 3 0 1\n", "x.pbf:6:", /expected 5 fields \(w k and k = 3/],
    ["3 1 1\n5\n-2\n0\n0 2 4\n6 2 1 1\n", "x.pbf:6:", /variable 1 appears twice/],
    ["3 1 1\n5\n-2\n0\n0 2 4\n6 0\n", "x.pbf:6:", /k must be ≥ 1/],
    [`${GOOD}7\n`, "x.pbf:7:", /unexpected line after the 3 θ, 1 pair and 1 term lines/],
    ["3 1 1\n5\n-2\n0\n0 2 4\n\n6 3 0 1 2\n", "x.pbf:6:", /empty line; expected term 1/],
  ];
  it.each(cases)("refuses %j at %s", (text, where, detail) => {
    let error: unknown;
    try {
      parsePbf(text, "x.pbf");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PbfFormatError);
    const message = (error as PbfFormatError).message;
    expect(message.startsWith(`${where} `)).toBe(true);
    expect(message).toMatch(detail);
    expect((error as PbfFormatError).code).toBe("bad-input");
  });
});
