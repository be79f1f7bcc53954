import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { twoSlaveNer, twoSlaveNerMarkdown, writeTwoSlaveNerFigures } from "./two-slave-ner.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const wnut16 = join(repoRoot, "..", "shared", "datasets", "wnut16", "train");
const present = existsSync(wnut16);

describe.skipIf(!present)(
  `bench two-slave-ner, a small run${present ? "" : ` — skipped: ${wnut16} is missing`}`,
  () => {
    let dir: string | undefined;
    afterAll(async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("fills Table 2 and the Figure 2 curves for every system and writes the SVG curves", async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-bench-two-slave-"));
      const result = await twoSlaveNer({
        datasets: ["wnut16"],
        maxTrainSentences: 300,
        maxDevSentences: 300,
        crfIterations: 10,
        folds: 2,
        epochs: 1,
        exactTimeLimitMs: 500,
        curveIterations: [1, 10],
        cacheDir: dir,
      });
      const d = result.datasets[0]!;
      expect(d.table2.map((r) => r.decoder)).toEqual(["viterbi", "two-slave", "naive-dd", "exact"]);
      for (const r of d.table2) {
        expect(r.scores.fMicro).toBeGreaterThanOrEqual(0);
        expect(r.scores.fMicro).toBeLessThanOrEqual(100);
      }
      for (const decoder of ["two-slave", "naive-dd"] as const) {
        const curve = d.curves[decoder];
        expect(curve.map((p) => p.maxIterations)).toEqual([1, 10]);
        // More iterations never loosen the best dual.
        expect(curve[1]!.meanDual).toBeLessThanOrEqual(curve[0]!.meanDual + 1e-9);
      }
      const markdown = twoSlaveNerMarkdown(result);
      expect(markdown).toContain("General CRF (2-slave DD)");
      const files = await writeTwoSlaveNerFigures(result, join(dir, "r.json"));
      expect(files).toHaveLength(3);
      expect(await readFile(files[0]!, "utf8")).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
    }, 300_000);
  },
);
