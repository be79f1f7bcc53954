import { BCRF_DEFAULT_ITERATIONS, MEAN_FIELD_DEFAULTS } from "@lagrange/bcrf";
import { describe, expect, it } from "vitest";
import { objectiveIterations, objectiveTraining } from "./training-objective.js";

describe("objectiveTraining", () => {
  it("records every objective in the model's settings, the likelihood included", () => {
    const crf = objectiveTraining({});
    expect(crf.objective).toBeUndefined();
    expect(crf.settings).toEqual({ objective: "crf" });
    const bcrf = objectiveTraining({ objective: "bcrf", partialLabels: true });
    expect(bcrf.objective?.name).toBe("bcrf");
    expect(bcrf.partialLabels).toBe(true);
    expect(bcrf.settings).toEqual({
      objective: "bcrf",
      objectiveIterations: BCRF_DEFAULT_ITERATIONS,
      partialLabels: true,
    });
    const meanField = objectiveTraining({ objective: "mean-field", iterations: 3 });
    expect(meanField.settings).toEqual({ objective: "mean-field", objectiveIterations: 3 });
    expect("partialLabels" in meanField).toBe(false);
  });

  it("fills in the iterating objectives' defaults; the likelihood has none", () => {
    expect(objectiveIterations("crf", 7)).toBeUndefined();
    expect(objectiveIterations("bcrf")).toBe(BCRF_DEFAULT_ITERATIONS);
    expect(objectiveIterations("mean-field")).toBe(MEAN_FIELD_DEFAULTS.iterations);
    expect(objectiveIterations("bcrf", 4)).toBe(4);
  });
});
