import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { softDdCitations, softDdCitationsMarkdown } from "./soft-dd-citations.js";

describe("bench soft-dd-citations --quick (generated citations)", () => {
  let cacheDir: string | undefined;
  afterAll(async () => {
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("renders the recipe's tables, labelled as generated, as Markdown and JSON", async () => {
    cacheDir = await mkdtemp(join(tmpdir(), "lagrange-bench-sdd-"));
    const result = await softDdCitations({ quick: true, cacheDir });
    expect(result.generated).toBe(true);
    expect(result.experiment.crfCached).toBe(false);
    const markdown = softDdCitationsMarkdown(result);
    expect(markdown).toContain("GENERATED citations");
    expect(markdown).toContain("| CRF Viterbi (baseline) |");
    expect(markdown).toContain("early termination");
    expect(markdown).toMatch(/\| soft-dd \| [\d.]+ \| [\d.]+× \|/);
    for (const row of result.families) expect(markdown).toContain(`| ${row.name} |`);
    const json = JSON.parse(JSON.stringify(result));
    expect(json.suite).toBe("soft-dd-citations");
    expect(json.timing.map((t: { decoder: string }) => t.decoder)).toEqual(["viterbi", "soft-dd"]);
    const again = await softDdCitations({ quick: true, cacheDir, timingRuns: 1 });
    expect(again.experiment.crfCached).toBe(true);
    expect(again.baseline).toEqual(result.baseline);
  });
});
