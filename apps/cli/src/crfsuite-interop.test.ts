import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CrfModel,
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
  fromAttributeLists,
  loadModel,
  modelFromTraining,
  prepareTrainingData,
  saveModel,
} from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCleanExit, runCli } from "./probe/cli-process.js";
import { run } from "./testing/run-cli.js";

/** Random attribute lists over w=0 … w=9, `__BOS__` / `__EOS__` on the ends as the presets emit. */
function sequences(seed: number, count: number): string[][][] {
  const rnd = seededRandom(seed);
  const out: string[][][] = [];
  for (let s = 0; s < count; s++) {
    const n = 1 + Math.floor(rnd() * 6);
    const tokens: string[][] = [];
    for (let t = 0; t < n; t++) {
      const names = [`w=${Math.floor(rnd() * 10)}`];
      if (t === 0) names.push("__BOS__");
      if (t === n - 1) names.push("__EOS__");
      tokens.push(names);
    }
    out.push(tokens);
  }
  return out;
}

/** A model with random weights (first/last weights when `startEnd`), recording `preset`. */
function randomModel(seed: number, startEnd: boolean, preset: string | null): CrfModel {
  const rnd = seededRandom(seed);
  const data = prepareTrainingData(
    sequences(seed, 40).map((tokens) => ({
      attributes: fromAttributeLists(tokens),
      labels: tokens.map(() => ["A", "B", "C"][Math.floor(rnd() * 3)]!),
    })),
    { startEnd, shared: false },
  );
  const weights = new Float64Array(data.layout.numWeights).map(() => rnd() * 4 - 2);
  return modelFromTraining(data, weights, { preset });
}

function expectSameTags(a: CrfModel, b: CrfModel): void {
  for (const tokens of sequences(99, 50)) {
    const x = fromAttributeLists(tokens);
    expect(b.tag(x)).toEqual(a.tag(x));
  }
}

describe("lagrange import / export (CRFsuite)", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-crfsuite-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("imports a CRFsuite model into a model file that tags the same", async () => {
    const original = randomModel(1, false, null);
    const source = join(dir, "in.crfsuite");
    await writeFile(source, crfsuiteModelToBytes(original));
    const out = join(dir, "in.lgm");
    const result = await run(["import", "--from", "crfsuite", source, "--out", out]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/imported a CRFsuite model: 3 labels/);
    const imported = await loadModel(out);
    expect(imported.settings.importedFrom).toBe("crfsuite");
    expect(imported.preset).toBeNull();
    expectSameTags(original, imported);
  });

  it("tags CRFsuite-format data with an imported model (--format crfsuite), as the model tags it", async () => {
    const original = randomModel(5, false, null);
    const source = join(dir, "tagging.crfsuite");
    await writeFile(source, crfsuiteModelToBytes(original));
    const model = join(dir, "tagging.lgm");
    expect((await run(["import", "--from", "crfsuite", source, "--out", model])).code).toBe(0);
    const data = sequences(7, 30);
    const expected = data.map((tokens) => original.tag(fromAttributeLists(tokens)));
    // The label field holds what the original model says for the first 20, something else after.
    const text = data
      .map(
        (tokens, i) =>
          `${tokens
            .map((names, t) => `${i < 20 ? expected[i]![t] : "?"}\t${names.join("\t")}`)
            .join("\n")}\n`,
      )
      .join("\n");
    const input = join(dir, "tagging.txt");
    await writeFile(input, text);
    const out = join(dir, "tagged.txt");
    const result = await run([
      "tag",
      "--model",
      model,
      "--data",
      input,
      "--format",
      "crfsuite",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const goldTokens = expected.slice(0, 20).reduce((sum, labels) => sum + labels.length, 0);
    expect(result.stderr).toContain(
      `token accuracy 100.00% against the input's labels (${goldTokens} tokens)`,
    );
    expect(await readFile(out, "utf8")).toBe(expected.map((l) => `${l.join("\n")}\n\n`).join(""));

    const conll = join(dir, "words.conll");
    await writeFile(conll, "a\nb\n");
    const refused = await run(["tag", "--model", model, "--data", conll]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/CRFsuite import.*--format crfsuite/);
    const malformed = join(dir, "malformed.txt");
    await writeFile(malformed, "A\tw=1\nB\tw=2:x\n");
    const bad = await run(["tag", "--model", model, "--data", malformed, "--format", "crfsuite"]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/malformed\.txt:2:\d+: weight "x"/);
  });

  it("exports a model, first/last weights on __BOS__/__EOS__ for a preset model", async () => {
    const original = randomModel(2, true, "chunking");
    const model = join(dir, "out.lgm");
    await saveModel(original, model, { precision: "float64" });
    const out = join(dir, "out.crfsuite");
    const result = await run(["export", "--to", "crfsuite", "--model", model, "--out", out]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/__BOS__ \/ __EOS__; wrote/);
    expectSameTags(original, crfsuiteModelFromBytes(new Uint8Array(await readFile(out))));
  });

  it("refuses what CRFsuite cannot hold, and bad options, with exit codes", async () => {
    const model = join(dir, "no-preset.lgm");
    await saveModel(randomModel(3, true, null), model);
    const out = join(dir, "refused.crfsuite");
    const refused = await run(["export", "--to", "crfsuite", "--model", model, "--out", out]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/first-label weights.*boundary attributes/);
    const named = await run([
      "export",
      "--to",
      "crfsuite",
      "--model",
      model,
      "--out",
      out,
      "--boundary-attributes",
      "__BOS__,__EOS__",
    ]);
    expect(named.code).toBe(0);
    const bad = await run([
      "export",
      "--to",
      "crfsuite",
      "--model",
      model,
      "--out",
      out,
      "--boundary-attributes",
      "x",
    ]);
    expect(bad.code).toBe(2);
    expect((await run(["import", "--from", "crf++", model, "--out", out])).code).toBe(2);
    expect((await run(["import", "--from", "crfsuite", model])).code).toBe(2);
  });

  it("reports a corrupt CRFsuite file by name, with no stack trace and no output left", async () => {
    const bytes = crfsuiteModelToBytes(randomModel(4, false, null));
    const corrupt = join(dir, "corrupt.crfsuite");
    await writeFile(corrupt, bytes.subarray(0, bytes.length - 100));
    const result = await runCli(
      ["import", "--from", "crfsuite", corrupt, "--out", join(dir, "never.lgm")],
      { cwd: dir },
    );
    expectCleanExit(result, 3);
    expect(result.stderr).toMatch(/corrupt\.crfsuite: the header gives the file size/);
    await expect(readFile(join(dir, "never.lgm"))).rejects.toThrow();
  }, 60_000);
});
