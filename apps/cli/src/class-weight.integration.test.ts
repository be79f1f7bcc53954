import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelFromBytes } from "@lagrange/chain-crf";
import { findMirrorDir } from "@lagrange/datasets/node";
import { l2sModelFromBytes } from "@lagrange/l2s";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

/* `lagrange train --class-weight` on 200 real CoNLL-2000 sentences: settings, errors, learners. */

const mirror = findMirrorDir();
const train = mirror === undefined ? undefined : join(mirror, "conll2000", "train.txt");
const available = train !== undefined && existsSync(train);
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let data: string;

beforeAll(async () => {
  if (!available) return;
  dir = await mkdtemp(join(tmpdir(), "lagrange-class-weight-"));
  const sentences = readFileSync(train!, "utf8").split(/\n\s*\n/);
  data = join(dir, "train.conll");
  await writeFile(data, `${sentences.slice(0, 200).join("\n\n")}\n\n`);
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const base = () => ["train", "--data", data, "--preset", "chunking", "--max-iterations", "5"];

describe.skipIf(!available)(`train --class-weight${why}`, () => {
  it("stores the resolved weights in the model's settings", async () => {
    const out = join(dir, "weighted.lgm");
    const args = [...base(), "--class-weight", "balanced:0.5", "--class-weight", "B-PRT=4"];
    const trained = await run([...args, "--out", out]);
    expect(trained.code, trained.stderr).toBe(0);
    const model = loadModelFromBytes(readFileSync(out));
    const record = model.settings.classWeights as {
      labels: { [label: string]: number };
      balanced: number;
    };
    expect(record.balanced).toBe(0.5);
    expect(record.labels["B-PRT"]).toBe(4);
    expect(record.labels.O).toBeLessThan(1);
    expect(record.labels["B-NP"]).toBeLessThan(record.labels["B-ADJP"]!);
  }, 60_000);

  it("an unknown label is a usage error naming it and the known ones", async () => {
    const result = await run([...base(), "--class-weight", "B-FOO=2", "--out", join(dir, "x.lgm")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown label "B-FOO"; the training labels are .*B-NP/);
  }, 60_000);

  it("a malformed spec is a usage error", async () => {
    for (const spec of ["B-NP", "B-NP=0", "B-NP=x", "balanced:9"]) {
      const result = await run([...base(), "--class-weight", spec, "--out", join(dir, "x.lgm")]);
      expect(result.code, spec).toBe(2);
      expect(result.stderr).toContain(`--class-weight ${spec}`);
    }
  }, 60_000);

  it("the L2S tagger records its weights; the parser refuses them", async () => {
    const out = join(dir, "l2s.lgm");
    const trained = await run([
      "train",
      "--learner",
      "l2s",
      "--task",
      "pos",
      "--data",
      data,
      "--class-weight",
      "B-NP=2",
      "--out",
      out,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const settings = l2sModelFromBytes(readFileSync(out)).settings;
    expect(settings.classWeights).toMatchObject({ labels: { "B-NP": 2, O: 1 } });
    const parser = await run([
      "train",
      "--learner",
      "l2s",
      "--task",
      "parser",
      "--data",
      "ud_english_ewt:train",
      "--class-weight",
      "nsubj=2",
      "--out",
      join(dir, "p.lgm"),
    ]);
    expect(parser.code).toBe(2);
    expect(parser.stderr).toContain("--class-weight with --task parser");
  }, 120_000);
});
