import { ProblemValidationError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTerm, PseudoBooleanFunction } from "./function.js";

describe("PseudoBooleanFunction", () => {
  it("sums constants and linear terms and keeps higher-order terms as given", () => {
    const f = new PseudoBooleanFunction(4)
      .addConstant(2)
      .addLinear(0, 3)
      .addLinear(0, -1)
      .addQuadratic(1, 2, -4)
      .addMonomial([0, 1, 3], 5)
      .addPattern([2, 3], [1, 0], 7)
      .addPattern([1], [0], 6);
    expect(f.constant).toBe(8);
    expect(f.linearCoefficient(0)).toBe(2);
    expect(f.linearCoefficient(1)).toBe(-6);
    expect(f.numTerms).toBe(3);
    expect(f.term(1)).toEqual({
      index: 1,
      kind: "monomial",
      variables: [0, 1, 3],
      values: [1, 1, 1],
      coefficient: 5,
    });
    expect(f.term(2).kind).toBe("pattern");
    expect(f.term(2).values).toEqual([1, 0]);
    // x = (1, 1, 1, 0): 8 + 2 − 6 − 4 + 0 + 7 = 7
    expect(f.evaluate([1, 1, 1, 0])).toBe(7);
    // x = (1, 1, 0, 1): 8 + 2 − 6 + 5 = 9
    expect(f.evaluate([1, 1, 0, 1])).toBe(9);
  });

  it("evaluates every term as the product of its literals, and negated() is −E", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }).chain((n) =>
          fc.record({
            n: fc.constant(n),
            terms: fc.array(
              fc.record({
                vars: fc.shuffledSubarray(
                  Array.from({ length: n }, (_, i) => i),
                  { minLength: 0, maxLength: n },
                ),
                bits: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
                a: fc.integer({ min: -9, max: 9 }),
                pattern: fc.boolean(),
              }),
              { maxLength: 6 },
            ),
            x: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
          }),
        ),
        ({ n, terms, x }) => {
          const f = new PseudoBooleanFunction(n);
          let expected = 0;
          for (const { vars, bits, a, pattern } of terms) {
            const values = vars.map((_, r) => (pattern ? bits[r]! : 1));
            if (pattern) f.addPattern(vars, values, a);
            else f.addMonomial(vars, a);
            if (vars.every((v, r) => x[v] === values[r])) expected += a;
          }
          expect(f.evaluate(x)).toBe(expected);
          expect(f.negated().evaluate(x) + 0).toBe(-expected + 0);
        },
      ),
    );
  });

  it("refuses bad variables, values and coefficients with clear messages", () => {
    const f = new PseudoBooleanFunction(3);
    expect(() => f.addLinear(3, 1)).toThrow(/3 is not a variable \(the function has 3: 0 … 2/);
    expect(() => f.addQuadratic(1, 1, 1)).toThrow(/x1 twice/);
    expect(() => f.addMonomial([0, 2, 0], 1)).toThrow(/x0 appears twice/);
    expect(() => f.addPattern([0, 1], [1], 1)).toThrow(/2 variables but 1 values/);
    expect(() => f.addPattern([0, 1], [1, 2], 1)).toThrow(/values\[1\]: must be 0 or 1, got 2/);
    expect(() => f.addMonomial([0, 1], Number.NaN)).toThrow(/finite number, got NaN/);
    expect(() => f.addConstant(Number.POSITIVE_INFINITY)).toThrow(ProblemValidationError);
    expect(() => f.evaluate([0, 1])).toThrow(/2 entries, the function 3 variables/);
    expect(f.addVariables(2)).toBe(3);
    expect(() => f.addLinear(4, 1)).not.toThrow();
  });

  it("formats terms for messages", () => {
    expect(
      formatTerm({ kind: "monomial", variables: [1, 4], values: [1, 1], coefficient: 5 }),
    ).toBe("+5·x1·x4");
    expect(
      formatTerm({ kind: "pattern", variables: [2, 5], values: [1, 0], coefficient: -3 }),
    ).toBe("−3·[x2=1, x5=0]");
  });
});
