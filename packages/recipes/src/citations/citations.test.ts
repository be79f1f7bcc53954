import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { citationBenchmark } from "./benchmark.js";
import { citationDemo } from "./demo.js";
import { prepareCitationExperiment } from "./experiment.js";

describe("anzaroot2014's citation experiment (quick: generated citations)", () => {
  let cacheDir: string | undefined;
  afterAll(async () => {
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("prepares, caches the model by what shapes it, and runs the demo and the tables consistently", async () => {
    cacheDir = await mkdtemp(join(tmpdir(), "lagrange-citations-"));
    const messages: string[] = [];
    const experiment = await prepareCitationExperiment({
      quick: true,
      cacheDir,
      onStatus: (m) => messages.push(m),
    });
    expect(experiment.generated).toBe(true);
    expect(experiment.learn.length + experiment.test.length).toBe(120);
    expect(messages.some((m) => m.includes("cached as"))).toBe(true);

    // The same attributes, labels and settings find the cached model; other settings do not.
    const again = await prepareCitationExperiment({ quick: true, cacheDir });
    expect(again.base.cached).toBe(true);
    const other = await prepareCitationExperiment({ quick: true, cacheDir, crfIterations: 3 });
    expect(other.base.cached).toBe(false);

    const demo = await citationDemo(experiment, { epochs: 2, timingRuns: 1 });
    expect(demo.viterbi.summary.meanIterations).toBe(1);
    expect(demo.softDD.summary.meanIterations).toBeGreaterThanOrEqual(1);
    expect(demo.timing.map((t) => t.decoder)).toEqual(["viterbi", "soft-dd"]);
    expect(demo.timing[0]!.taggingRatio).toBe(1);
    expect(demo.timing[1]!.taggingMs).toBeGreaterThan(0);
    if (demo.example !== undefined) {
      expect(demo.example.viterbi).not.toEqual(demo.example.constrained);
    }
    // The cached model decodes exactly as the freshly trained one.
    const cachedDemo = await citationDemo(again, { epochs: 2, timingRuns: 1 });
    expect(cachedDemo.viterbi.labels).toEqual(demo.viterbi.labels);

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
