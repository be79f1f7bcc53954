import { scoreLabelling } from "@lagrange/core";
import { bruteForceBest } from "@lagrange/core/testing";
import { describe, expect, it } from "vitest";
import { solution } from "./own-energy.js";

describe("README example: my own energy → min-cut slave → DD with a chain", () => {
  it("certifies the optimum that brute force finds", () => {
    const chain = {
      n: 4,
      L: 2,
      unary: Float64Array.of(0, 1.2, 0, -0.4, 0, 0.3, 0, -0.5),
      transition: Float64Array.of(0, 0, 0, -0.2),
    };
    const score = (y: Int32Array) =>
      scoreLabelling(chain, y) +
      (y[1] === 1 && y[3] === 1 ? 1 : 0) +
      (y[0] === 1 && y[1] === 1 && y[3] === 1 ? 0.5 : 0);
    const best = bruteForceBest({ domainSizes: [2, 2, 2, 2], score });
    expect(solution.status).toBe("optimal");
    expect(Array.from(solution.labels)).toEqual(Array.from(best.labels!));
    expect(solution.primal).toBeCloseTo(best.score, 9);
    expect(solution.dual).toBeCloseTo(best.score, 9);
  });
});
