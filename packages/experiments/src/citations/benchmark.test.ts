import { prepareCitationExperiment } from "@lagrange/recipes";
import { describe, expect, it } from "vitest";
import { citationBenchmark } from "./benchmark.js";

describe("anzaroot2014's tables (quick: generated citations)", () => {
  it("fills Tables 1–3 consistently with the baseline, the caps and the statistics", async () => {
    const experiment = await prepareCitationExperiment({ quick: true });
    const tables = await citationBenchmark(experiment, {
      epochs: 2,
      timingRuns: 1,
      bootstrapSamples: 200,
    });
    expect(tables.families.map((r) => r.name)).toEqual([
      "singleton (soft)",
      "pairwise (soft)",
      "hierarchical (soft)",
      "all families (soft)",
    ]);
    const all = tables.families[3]!;
    for (const row of [...tables.families, tables.hard, tables.otherUnit]) {
      expect(row.f1).toBeGreaterThan(0);
      expect(row.f1).toBeLessThanOrEqual(100);
      expect(row.meanIterations).toBeGreaterThanOrEqual(1);
      expect(row.active).toBeLessThanOrEqual(row.constraints);
      const reduction = (100 * (row.f1 - tables.baseline.f1)) / (100 - tables.baseline.f1);
      expect(row.errorReduction).toBeCloseTo(reduction, 9);
    }
    // One iteration is the unconstrained labelling; no cap is the full Soft-DD run.
    const caps = tables.earlyTermination;
    expect(caps.map((c) => c.cap)).toEqual(["1", "2", "3", "5", "10", "20", "200"]);
    expect(caps[0]!.f1).toBeCloseTo(tables.baseline.f1, 9);
    expect(caps[0]!.meanIterations).toBe(1);
    // Without the stall rule a run only stops to certify or at its cap: never fewer certificates.
    expect(caps[6]!.certified).toBeGreaterThanOrEqual(all.certified);
    for (let k = 1; k < caps.length; k++) {
      expect(caps[k]!.meanIterations).toBeGreaterThanOrEqual(caps[k - 1]!.meanIterations);
    }
    expect(tables.timing[1]!.taggingRatio).toBeGreaterThan(0);
    const { pValue } = tables.significance.wilcoxonPerCitationF1;
    expect(pValue).toBeGreaterThanOrEqual(0);
    expect(pValue).toBeLessThanOrEqual(1);
  });
});
