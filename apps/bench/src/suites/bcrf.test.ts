import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bcrfMarkdown, bcrfSuite, writeBcrfFigures } from "./bcrf.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const conll = join(repoRoot, "..", "shared", "datasets", "conll2003", "eng.train");
const present = existsSync(conll);

describe.skipIf(!present)(
  `bench bcrf, a small run${present ? "" : ` — skipped: ${conll} is missing`}`,
  () => {
    let dir: string | undefined;
    afterAll(async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("fills the training × decoding tables (supervised and partial), the time ratios and the convergence curve", async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-bench-bcrf-"));
      const result = await bcrfSuite({
        datasets: ["conll2003"],
        maxTrainSentences: 300,
        maxDevSentences: 100,
        trainIterations: 8,
        timingRepeats: 1,
        threads: 1,
        crossoverLengths: [50, 2000],
        cacheDir: dir,
      });
      const d = result.datasets[0]!;
      const trainings = [...new Set(d.supervised.map((c) => c.training))];
      expect(trainings).toEqual(["crf", "mean-field", "bcrf"]);
      expect([...new Set(d.partial!.map((c) => c.training))]).toEqual([
        "crf-partial",
        "bcrf-partial",
      ]);
      for (const c of [...d.supervised, ...d.partial!]) {
        expect(c.score).toBeGreaterThanOrEqual(0);
        expect(c.score).toBeLessThanOrEqual(100);
        // The validity-aware Bcrf output never breaks the BIO mask.
        if (/^bcrf-\d+$/.test(c.decoding)) expect(c.invalid).toBe(0);
      }
      expect(d.training.map((t) => t.objective)).toEqual(["crf", "mean-field", "bcrf"]);
      expect(d.training[0]!.ratioToCrf).toBe(1);
      expect(d.decoding[0]!.decoding).toBe("viterbi");
      // IBP's violation shrinks with the half-steps.
      for (const c of d.convergence) {
        expect(c.points.at(-1)!.mean).toBeLessThan(c.points[0]!.mean);
      }
      expect(result.crossover!.points.map((p) => p.n)).toEqual([50, 2000]);
      expect(result.crossover!.points.every((p) => p.viterbiMs > 0 && p.threadedMs > 0)).toBe(true);
      expect(bcrfMarkdown(result)).toContain("Table 1 analogue");
      const files = await writeBcrfFigures(result, join(dir, "r.json"));
      expect(await readFile(files[0]!, "utf8")).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
    });
  },
);
