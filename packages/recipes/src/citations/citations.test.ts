import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { citationDemo, prepareCitationExperiment } from "@lagrange/recipes";
import { afterAll, describe, expect, it } from "vitest";

describe("anzaroot2014's citation experiment (quick: generated citations)", () => {
  let cacheDir: string | undefined;
  afterAll(async () => {
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("prepares, caches the model by what shapes it, and runs the demo consistently", async () => {
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
  });
});
