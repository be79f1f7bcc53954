import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { l2sMarkdown, l2sSuite, l2sTarget, writeL2sFigures } from "./l2s.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const datasets = join(repoRoot, "..", "shared", "datasets");
const present =
  existsSync(join(datasets, "conll2003", "eng.train")) &&
  existsSync(join(datasets, "ud_english_ewt"));

describe.skipIf(!present)(
  `bench l2s, a small run${present ? "" : " — skipped: the CoNLL-2003 / UD English EWT files are missing"}`,
  () => {
    let dir: string | undefined;
    afterAll(async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("measures L2S and the CRF trainers on the same data, with the bridge keeping BIO valid, and the parsing table", async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-bench-l2s-"));
      const result = await l2sSuite({
        maxTrainSentences: 300,
        maxDevSentences: 100,
        l2sPasses: [0.5, 1],
        lbfgsIterations: [5],
        perceptronEpochs: [1],
        sgdEpochs: [1],
        parserPasses: [1],
        csoaaParserPasses: 1,
      });
      expect(result.datasets.map((d) => d.dataset)).toEqual(["ud-en-ewt", "conll2003"]);
      for (const d of result.datasets) {
        expect([...new Set(d.points.map((p) => p.system))]).toEqual([
          "l2s-csoaa",
          "l2s-perceptron",
          "crf-lbfgs",
          "crf-ap",
          "crf-sgd",
        ]);
        for (const p of d.points) {
          expect(p.score).toBeGreaterThanOrEqual(0);
          expect(p.score).toBeLessThanOrEqual(100);
          expect(p.trainingSeconds).toBeGreaterThan(0);
          // With the constraint bridge, an L2S tagger never emits an invalid BIO sequence.
          if (p.system.startsWith("l2s-")) expect(p.invalid).toBe(0);
        }
        expect(l2sTarget(d).crf.system).toBe("crf-lbfgs");
        // Even 300 sentences teach L2S something.
        expect(l2sTarget(d).bestL2s.score).toBeGreaterThan(d.metric === "accuracy" ? 50 : 10);
      }
      expect(result.datasets[1]!.withoutBridge).toBeDefined();
      const parsing = result.parsing!;
      expect(parsing.rows.map((r) => `${r.learner}/${r.oracle}/${r.tags}`)).toEqual([
        "perceptron/dynamic/gold",
        "perceptron/dynamic/predicted",
        "perceptron/static/gold",
        "perceptron/static/predicted",
        "csoaa/dynamic/gold",
        "csoaa/dynamic/predicted",
      ]);
      for (const row of parsing.rows) {
        expect(row.las).toBeLessThanOrEqual(row.uas);
        expect(row.uas).toBeGreaterThan(30);
        expect(row.sentencesPerSecond).toBeGreaterThan(0);
      }
      expect(l2sMarkdown(result)).toContain("Dependency parsing");
      const files = await writeL2sFigures(result, join(dir, "r.json"));
      expect(await readFile(files[0]!, "utf8")).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
    });
  },
);
