import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONLL2000_TRAIN, lastColumn, run, trainConll2000Chunker } from "./testing/run-cli.js";

/*
 * `lagrange train --order 2` and tagging with the second-order model on real CoNLL-2000
 * sentences: a small chunker trained on 150 sentences of train tags the next 40.
 */

const available = CONLL2000_TRAIN !== undefined;
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let model: string;
let data: string;

beforeAll(async () => {
  if (!available) return;
  ({ dir, model, data } = await trainConll2000Chunker({
    prefix: "lagrange-second-order-",
    trainSentences: 150,
    testSentences: 40,
    trainArgs: ["--order", "2", "--max-iterations", "25"],
  }));
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!available)(`train --order 2, tag with the second-order model${why}`, () => {
  it("info shows the order; tag decodes every sentence with valid chunk labels", async () => {
    const info = await run(["info", model]);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toMatch(/order\s+2 \(\d+ label-trigram weights/);
    const tagged = await run(["tag", "--model", model, "--data", data]);
    expect(tagged.code, tagged.stderr).toBe(0);
    const labels = lastColumn(tagged.stdout);
    expect(labels).toHaveLength(40);
    expect(labels.flat().every((l) => /^(O|[BI]-[A-Z]+)$/.test(l))).toBe(true);
    expect(tagged.stderr).toMatch(/chunk F1 \d/);
  });

  it("refuses the decoders and outputs a second-order model has not got (exit 2)", async () => {
    for (const extra of [["--decoder", "bcrf"], ["--marginals"]]) {
      const refused = await run(["tag", "--model", model, "--data", data, ...extra]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/second-order/);
    }
    const ap = await run([
      "train",
      "--data",
      data,
      "--preset",
      "chunking",
      "--order",
      "2",
      "--algorithm",
      "ap",
      "--out",
      join(dir, "never.lgm"),
    ]);
    expect(ap.code).toBe(2);
    expect(ap.stderr).toMatch(/--order 2 with --algorithm ap/);
  });
});
