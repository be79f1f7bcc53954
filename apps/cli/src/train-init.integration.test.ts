import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelFromBytes } from "@lagrange/chain-crf";
import { findMirrorDir } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

/* `lagrange train --init` on real CoNLL-2000 sentences: what is kept, recorded and refused. */

const mirror = findMirrorDir();
const train = mirror === undefined ? undefined : join(mirror, "conll2000", "train.txt");
const available = train !== undefined && existsSync(train);
const why = available ? "" : " — skipped: no conll2000 in the dataset mirror";

let dir: string;
let partA: string;
let union: string;
let initial: string;

beforeAll(async () => {
  if (!available) return;
  dir = await mkdtemp(join(tmpdir(), "lagrange-init-"));
  const sentences = readFileSync(train!, "utf8").split(/\n\s*\n/);
  partA = join(dir, "a.conll");
  union = join(dir, "ab.conll");
  // The first 60 sentences lack some chunk types the first 200 have.
  await writeFile(partA, `${sentences.slice(0, 60).join("\n\n")}\n\n`);
  await writeFile(union, `${sentences.slice(0, 200).join("\n\n")}\n\n`);
  initial = join(dir, "a.lgm");
  const trained = await run([
    "train",
    "--data",
    partA,
    "--preset",
    "chunking",
    "--max-iterations",
    "30",
    "--out",
    initial,
  ]);
  expect(trained.code, trained.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const continueArgs = (out: string, ...extra: string[]) => [
  "train",
  "--data",
  union,
  "--init",
  initial,
  "--max-iterations",
  "5",
  ...extra,
  "--out",
  out,
];

describe.skipIf(!available)(`train --init${why}`, () => {
  it("keeps the initial model's labels and features, adds the data's, and records the model it started from", async () => {
    const out = join(dir, "continued.lgm");
    const result = await run(continueArgs(out));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/continued from .*a\.lgm \(\+\d+ labels?, \+\d+ attributes?\)/);
    const bytes = readFileSync(initial);
    const before = loadModelFromBytes(bytes);
    const after = loadModelFromBytes(readFileSync(out));
    expect(after.preset).toBe("chunking");
    expect(after.labels.names().slice(0, before.numLabels)).toEqual(before.labels.names());
    expect(after.numLabels).toBeGreaterThan(before.numLabels);
    for (const name of before.attributes.names()) expect(after.attributes.has(name)).toBe(true);
    expect(after.settings.initModel).toEqual({
      file: initial,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      kind: "lagrange",
    });
    expect(after.settings.init).toMatchObject({
      labels: before.numLabels,
      attributes: before.attributes.size,
      addedLabels: after.numLabels - before.numLabels,
    });
    expect(after.settings.scheme).toBe("IOB2");
  }, 60_000);

  it("works with every algorithm and with a compatible --preset", async () => {
    for (const extra of [
      ["--algorithm", "owlqn"],
      ["--algorithm", "ap"],
      ["--algorithm", "sgd"],
      ["--preset", "chunking", "--objective", "bcrf"],
    ]) {
      const result = await run(continueArgs(join(dir, "x.lgm"), ...extra));
      expect(result.code, `${extra.join(" ")}: ${result.stderr}`).toBe(0);
    }
  }, 120_000);

  it("continues a CRFsuite model (exported, then read as CRFsuite) given the preset of its attributes", async () => {
    const crfsuite = join(dir, "a.crfsuite");
    const exported = await run([
      "export",
      "--to",
      "crfsuite",
      "--model",
      initial,
      "--out",
      crfsuite,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const out = join(dir, "from-crfsuite.lgm");
    const noPreset = await run(["train", "--data", union, "--init", crfsuite, "--out", out]);
    expect(noPreset.code).toBe(2);
    expect(noPreset.stderr).toMatch(/a\.crfsuite records no feature preset .*--preset/);
    const result = await run([
      "train",
      "--data",
      union,
      "--init",
      crfsuite,
      "--preset",
      "chunking",
      "--max-iterations",
      "5",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const model = loadModelFromBytes(readFileSync(out));
    expect(model.settings.initModel).toMatchObject({ file: crfsuite, kind: "crfsuite" });
    // CRFsuite has no first/last-label weights: the continued model keeps that layout.
    expect(model.layout.startBase).toBe(-1);
  }, 120_000);

  it("refuses what it cannot honour, naming the option or the file", async () => {
    const out = join(dir, "refused.lgm");
    const cases: [string[], number, RegExp][] = [
      [["--preset", "ner"], 2, /--preset ner conflicts with .*a\.lgm, trained with chunking/],
      [["--scheme", "BIOES"], 2, /--scheme BIOES conflicts with .*IOB2/],
      [["--template", partA], 2, /--template with --init/],
      [["--model", "general", "--groups", "documents"], 2, /--model general with --init/],
      [["--two-stage"], 2, /--two-stage with --init/],
    ];
    for (const [extra, code, message] of cases) {
      const result = await run(continueArgs(out, ...extra));
      expect(result.code, extra.join(" ")).toBe(code);
      expect(result.stderr).toMatch(message);
    }
    const missing = await run([
      "train",
      "--data",
      union,
      "--init",
      join(dir, "no.lgm"),
      "--out",
      out,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--init .*no\.lgm: no such file/);
    const notAModel = await run(["train", "--data", union, "--init", partA, "--out", out]);
    expect(notAModel.code).toBe(3);
    expect(notAModel.stderr).toMatch(/a\.conll: not a Lagrange chain-CRF model file/);
    const l2s = await run([
      "train",
      "--learner",
      "l2s",
      "--task",
      "pos",
      "--data",
      union,
      "--init",
      initial,
      "--out",
      out,
    ]);
    expect(l2s.code).toBe(2);
    expect(l2s.stderr).toMatch(/--init: an option of the CRF learner/);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
