import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCrfsuiteBinding } from "../systems/crfsuite-binding.js";
import { crfVsCrfsuite, crfVsCrfsuiteMarkdown } from "./crf-vs-crfsuite.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const datasets = join(repoRoot, "..", "shared", "datasets");
const present =
  loadCrfsuiteBinding() !== null &&
  existsSync(join(datasets, "umass_citation", "training.docs")) &&
  existsSync(join(datasets, "umass_citation", "dev.docs"));

describe.skipIf(!present)(
  `bench crf-vs-crfsuite, a small UMass run${present ? "" : " — skipped: the crfsuite binding or the UMass files are missing"}`,
  () => {
    it("runs CRFsuite once and Lagrange once per thread count, with a ratio set per count and decoding", async () => {
      const result = await crfVsCrfsuite({
        repeats: 1,
        threads: [1, 2],
        cases: ["umass"],
        maxTrainSentences: 40,
        umassIterations: 2,
        minTagSeconds: 0,
      });
      expect(result.cases.map((c) => c.case)).toEqual(["umass"]);
      const umass = result.cases[0]!;
      expect(umass.setup.testSplit).toBe("dev");
      expect(umass.setup.trainSequences).toBe(40);
      expect(umass.crfsuite.trainIterations).toBe(2);
      expect(umass.crfsuite.extractTokensPerSecond).toBeNull();
      expect(umass.lagrange.map((l) => [l.threads, l.decoding])).toEqual([
        [1, "mask"],
        [1, "no mask"],
        [2, "mask"],
        [2, "no mask"],
      ]);
      for (const l of umass.lagrange) {
        expect(l.lagrange.trainIterations).toBe(2);
        expect(l.lagrange.extractTokensPerSecond).toBeGreaterThan(0);
        expect(l.ratios.trainTime).toBeGreaterThan(0);
        expect(l.ratios.tagThroughput).toBeGreaterThan(0);
        expect(l.ratios.peakRss).toBeGreaterThan(0);
      }
      // Mask and no mask decode the same trained model: the same training time.
      expect(umass.lagrange[0]!.lagrange.trainSeconds).toBe(
        umass.lagrange[1]!.lagrange.trainSeconds,
      );
      const markdown = crfVsCrfsuiteMarkdown(result);
      expect(markdown).toContain("| CRFsuite | 1 | — |");
      expect(markdown).toContain("| Lagrange | 2 | scheme mask |");
      expect(markdown).toContain("- Lagrange, 2 threads, no mask: train time");
      expect(markdown).toContain("field F1");
    }, 180_000);
  },
);
