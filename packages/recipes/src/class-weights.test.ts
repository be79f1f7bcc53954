import { LagrangeError } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { parseClassWeights } from "./class-weights.js";

describe("parseClassWeights", () => {
  it("reads LABEL=w (the last one wins), balanced and balanced:POWER", () => {
    expect(parseClassWeights([])).toBeUndefined();
    expect(parseClassWeights(["B-MISC=2", "I-MISC=1.5", "B-MISC=3"])).toEqual({
      labels: { "B-MISC": 3, "I-MISC": 1.5 },
    });
    expect(parseClassWeights(["balanced"])).toEqual({ balanced: 1 });
    expect(parseClassWeights(["balanced:0.5", "O=1"])).toEqual({
      balanced: 0.5,
      labels: { O: 1 },
    });
    // A label may hold "=": the weight follows the last one.
    expect(parseClassWeights(["a=b=2"])).toEqual({ labels: { "a=b": 2 } });
  });

  it("refuses malformed specs with a usage error naming them", () => {
    for (const spec of [
      "B-MISC",
      "=2",
      "B-MISC=",
      "B-MISC=0",
      "B-MISC=-1",
      "B-MISC=x",
      "B-MISC=1e300",
      "B-MISC=2e6",
      "B-MISC=1e-7",
      "balanced:",
      "balanced:0",
      "balanced:5",
    ]) {
      let error: unknown;
      try {
        parseClassWeights([spec]);
      } catch (e) {
        error = e;
      }
      expect(error, spec).toBeInstanceOf(LagrangeError);
      expect((error as LagrangeError).code).toBe("usage");
      expect((error as Error).message).toContain(`--class-weight ${spec}:`);
    }
  });
});
