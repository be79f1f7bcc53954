import { exactDecoding } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { InfeasibleSentenceError } from "./tagger.js";

describe("InfeasibleSentenceError", () => {
  const infeasible = exactDecoding(Int32Array.of(-1, -1), Number.NEGATIVE_INFINITY);

  it("names the conflicting constraints, at most ten of them, and says when the set may not be minimal", () => {
    const conflict = Array.from({ length: 25 }, (_, k) => `rule ${k}`);
    const error = new InfeasibleSentenceError({
      ...infeasible,
      conflict,
      conflictMinimal: false,
    } as never);
    expect(error.code).toBe("bad-input");
    expect(error.message).toBe(
      `no labelling meets these hard constraints together: ${conflict
        .slice(0, 10)
        .map((c) => `"${c}"`)
        .join(", ")} and 15 more (the time limit ended the search for a smaller set)`,
    );
    expect(error.conflict).toEqual(conflict);
  });

  it("a minimal set is named whole, with no note", () => {
    const error = new InfeasibleSentenceError({
      ...infeasible,
      conflict: ["a", "b"],
      conflictMinimal: true,
    } as never);
    expect(error.message).toBe('no labelling meets these hard constraints together: "a", "b"');
  });
});
