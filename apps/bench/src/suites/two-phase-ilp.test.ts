import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { twoPhaseIlp, twoPhaseIlpMarkdown } from "./two-phase-ilp.js";

describe("bench two-phase-ilp --quick (generated citations)", () => {
  let cacheDir: string | undefined;
  afterAll(async () => {
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("renders the recipe's tables, labelled as generated, as Markdown and JSON", async () => {
    cacheDir = await mkdtemp(join(tmpdir(), "lagrange-bench-2p-"));
    const result = await twoPhaseIlp({ quick: true, cacheDir });
    expect(result.datasets.map((d) => d.id)).toEqual(["generated-flat", "generated-nested"]);
    expect(result.datasets.every((d) => d.generated)).toBe(true);
    const markdown = twoPhaseIlpMarkdown(result);
    expect(markdown).toContain("GENERATED citations");
    for (const d of result.datasets) {
      expect(d.systems.map((s) => s.name)).toEqual([
        "CRF-Viterbi",
        "two-phase: adjacency",
        "two-phase: precedence",
        "two-phase: state-change",
        "two-phase: begin-end",
        "two-phase: presence-precedence",
        "two-phase: all rules",
        "Soft-DD: all rules",
      ]);
      for (const s of d.systems) expect(markdown).toContain(`| ${s.name} |`);
      expect(d.rules.mined).toBeGreaterThan(0);
      expect(d.timing.map((t) => t.decoder)).toEqual(["viterbi", "two-phase", "soft-dd"]);
      // The flat stand-in is scored by conlleval chunks, the nested one by segments.
      expect(d.systems[0]!.fields.unit).toBe(d.id === "generated-flat" ? "chunks" : "segments");
    }
    expect(markdown).toContain("**Targets**");
    // No real dataset ran: no target is judged, and no paper row is claimed.
    expect(result.targets.every((t) => t.met === null)).toBe(true);
    expect(result.comparison).toEqual([]);
    const json = JSON.parse(JSON.stringify(result));
    expect(json.suite).toBe("two-phase-ilp");
  });
});
