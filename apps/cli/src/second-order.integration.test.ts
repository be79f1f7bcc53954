import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findMirrorDir } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./test-support.js";

/*
 * `lagrange train --order 2` and tagging with the second-order model on real CoNLL-2000
 * sentences: a small chunker trained on 150 sentences of train tags the next 40.
 */

const mirror = findMirrorDir();
const train = mirror === undefined ? undefined : join(mirror, "conll2000", "train.txt");
const available = train !== undefined && existsSync(train);
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let model: string;
let data: string;

beforeAll(async () => {
  if (!available) return;
  dir = await mkdtemp(join(tmpdir(), "lagrange-second-order-"));
  const sentences = readFileSync(train!, "utf8").split(/\n\s*\n/);
  await writeFile(join(dir, "train.conll"), `${sentences.slice(0, 150).join("\n\n")}\n\n`);
  data = join(dir, "test.conll");
  await writeFile(data, `${sentences.slice(150, 190).join("\n\n")}\n\n`);
  model = join(dir, "chunk2.lgm");
  const trained = await run([
    "train",
    "--data",
    join(dir, "train.conll"),
    "--preset",
    "chunking",
    "--order",
    "2",
    "--max-iterations",
    "25",
    "--out",
    model,
  ]);
  expect(trained.code, trained.stderr).toBe(0);
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
