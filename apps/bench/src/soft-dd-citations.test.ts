import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { softDdCitations, softDdCitationsMarkdown } from "./suites/soft-dd-citations.ts";

describe("bench soft-dd-citations --quick (generated citations)", () => {
  let cacheDir: string | undefined;
  afterAll(async () => {
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("runs the whole pipeline, labelled as generated, with consistent tables", async () => {
    cacheDir = await mkdtemp(join(tmpdir(), "lagrange-bench-sdd-"));
    const messages: string[] = [];
    const result = await softDdCitations({
      quick: true,
      cacheDir,
      timingRuns: 1,
      onStatus: (m) => messages.push(m),
    });
    expect(result.generated).toBe(true);
    expect(result.data).toContain("GENERATED");
    expect(messages.some((m) => m.includes("cached as"))).toBe(true);

    // One row per family, then all families together.
    expect(result.families.map((r) => r.name)).toEqual([
      "singleton (soft)",
      "pairwise (soft)",
      "hierarchical (soft)",
      "all families (soft)",
    ]);
    const all = result.families[3]!;
    for (const row of [...result.families, result.hard]) {
      expect(row.f1).toBeGreaterThan(0);
      expect(row.f1).toBeLessThanOrEqual(100);
      expect(row.certified).toBeGreaterThanOrEqual(0);
      expect(row.certified).toBeLessThanOrEqual(100);
      expect(row.meanIterations).toBeGreaterThanOrEqual(1);
      expect(row.active).toBeLessThanOrEqual(row.constraints);
      const reduction = (100 * (row.f1 - result.baseline.f1)) / (100 - result.baseline.f1);
      expect(row.errorReduction).toBeCloseTo(reduction, 9);
    }
    // One iteration is the unconstrained labelling; no cap is the full soft-DD run.
    const caps = result.earlyTermination;
    expect(caps.map((c) => c.cap)).toEqual(["1", "2", "3", "5", "10", "20", "none (200)"]);
    expect(caps[0]!.f1).toBeCloseTo(result.baseline.f1, 9);
    expect(caps[0]!.meanIterations).toBe(1);
    expect(caps[6]!.f1).toBeCloseTo(all.f1, 9);
    for (let k = 1; k < caps.length; k++) {
      expect(caps[k]!.meanIterations).toBeGreaterThanOrEqual(caps[k - 1]!.meanIterations);
    }
    expect(result.timing.ratio).toBeGreaterThan(0);
    const { pValue } = result.significance.wilcoxonPerCitationF1;
    expect(pValue).toBeGreaterThanOrEqual(0);
    expect(pValue).toBeLessThanOrEqual(1);

    // The cached model is reused on a second run, giving the same baseline.
    const again = await softDdCitations({ quick: true, cacheDir, timingRuns: 1 });
    expect(again.setup.crfCached).toBe(true);
    expect(again.baseline).toEqual(result.baseline);

    const markdown = softDdCitationsMarkdown(result);
    expect(markdown).toContain("GENERATED citations");
    expect(markdown).toContain("| CRF Viterbi (baseline) |");
    expect(markdown).toContain("early termination");
    expect(JSON.parse(JSON.stringify(result)).suite).toBe("soft-dd-citations");
  });
});
