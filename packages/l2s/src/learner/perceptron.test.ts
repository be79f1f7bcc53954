import { describe, expect, it } from "vitest";
import { HashedFeatures } from "../features/hashing.js";
import { CostSensitivePerceptron } from "./perceptron.js";

describe("CostSensitivePerceptron: arguments", () => {
  it("rejects a bad action count or table size with the regressor's messages, naming itself", () => {
    expect(() => new CostSensitivePerceptron(0)).toThrow(
      /^CostSensitivePerceptron: actions must be an integer ≥ 1, got 0$/,
    );
    expect(() => new CostSensitivePerceptron(3, { bits: 31 })).toThrow(
      /CostSensitivePerceptron: bits must be an integer in 1\.\.30, got 31/,
    );
    expect(() => new CostSensitivePerceptron(3, { bits: 1 })).toThrow(
      /CostSensitivePerceptron: actions \(3\) must not exceed the table's 2\^bits = 2 slots/,
    );
  });

  it("rejects bad update arguments before learning anything", () => {
    const m = new CostSensitivePerceptron(3, { bits: 8 });
    const f = new HashedFeatures();
    f.addHash(1, 1);
    expect(() => m.update(f, [3], [0], 1)).toThrow(/actions\[0\] must be an integer in 0\.\.2/);
    expect(() => m.update(f, [0.5], [0], 1)).toThrow(/actions\[0\] must be an integer/);
    expect(() => m.update(f, [0, 1], [1, Number.NaN], 2)).toThrow(/costs\[1\] must be finite/);
    const out = new Float64Array(3);
    m.addScores(f, out);
    expect(Array.from(out)).toEqual([0, 0, 0]);
  });
});
