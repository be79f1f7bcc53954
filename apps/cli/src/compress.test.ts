/**
 * `lagrange compress`, in-process: quantised and pruned copies that every reader loads, that keep
 * what the model records (settings, recorded constraints), tag as the model does at 16 bits, and
 * the usage (2) and malformed-model (3) exits.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel, modelFileEncoding, saveModel } from "@lagrange/chain-crf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkingText } from "./probe/probe-data.js";
import { lastColumn, run } from "./testing/run-cli.js";

let dir: string;
const path = (name: string) => join(dir, name);
const RECORDED = { format: "lagrange-constraints", constraints: [{ id: "same-string:NP" }] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-compress-"));
  await writeFile(path("train.conll"), chunkingText(40, { seed: 1 }));
  await writeFile(path("test.conll"), chunkingText(10, { seed: 2 }));
  const trained = await run([
    ...["train", "--data", path("train.conll"), "--preset", "chunking"],
    ...["--max-iterations", "15", "--threads", "1", "--out", path("m.lgm")],
  ]);
  expect(trained.code, trained.stderr).toBe(0);
  const model = await loadModel(path("m.lgm"));
  await saveModel(model.withSettings({ learnedConstraints: RECORDED }), path("recorded.lgm"));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tags = async (model: string) => {
  const out = await run(["tag", "--model", model, "--data", path("test.conll")]);
  expect(out.code, out.stderr).toBe(0);
  return lastColumn(out.stdout);
};

describe("lagrange compress", () => {
  it("writes 16-bit weights that tag as the model does, and says how much it saved", async () => {
    const result = await run(["compress", "--model", path("m.lgm"), "--out", path("16.lgm")]);
    expect(result.code, result.stderr).toBe(0);
    // The default is 8 bits: 16 asked for below.
    expect(modelFileEncoding(await loadModel(path("16.lgm")))?.precision).toBe("int8");
    const sixteen = await run([
      ...["compress", "--model", path("m.lgm"), "--out", path("16.lgm"), "--bits", "16"],
    ]);
    expect(sixteen.code, sixteen.stderr).toBe(0);
    expect(sixteen.stdout).toMatch(
      /^compressed .*m\.lgm: int16 weights, one scale per 256, compact layout; ([\d,]+) → \1 state features/,
    );
    expect(sixteen.stdout).toMatch(/\n {2}size {6}[\d.]+ (kB|bytes) → [\d.]+ (kB|bytes)\n/);
    expect(sixteen.stdout).toMatch(/\n {2}gzipped {3}[\d.]+ (kB|bytes) → [\d.]+ (kB|bytes)\n/);
    expect(sixteen.stdout).toMatch(/\n {2}weights {3}max \|Δw\| \d/);
    expect((await readFile(path("16.lgm"))).length).toBeLessThan(
      (await readFile(path("m.lgm"))).length,
    );
    expect(await tags(path("16.lgm"))).toEqual(await tags(path("m.lgm")));
    const info = await run(["info", path("16.lgm")]);
    expect(info.stdout).toMatch(
      /^weights {5}\d+ \(\d+ non-zero\), int16 with one scale per 256, compact layout$/m,
    );
    const json = JSON.parse((await run(["info", "--json", path("m.lgm")])).stdout);
    expect(json.encoding).toEqual({ precision: "float32", compactLayout: false });
  });

  it("keeps recorded constraints and settings, and records the pruning", async () => {
    const result = await run([
      ...["compress", "--model", path("recorded.lgm"), "--out", path("p.lgm")],
      ...["--prune-below", "0.05"],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [before, after] = [await loadModel(path("recorded.lgm")), await loadModel(path("p.lgm"))];
    expect(after.learnedConstraints).toEqual(RECORDED);
    expect(after.settings).toEqual({ ...before.settings, pruned: { below: 0.05 } });
    expect(after.layout.featureLabels.length).toBeLessThan(before.layout.featureLabels.length);
    for (let f = 0; f < after.layout.transitionBase; f++) {
      // Each kept weight is one that was at least 0.05, moved by its quantisation at most.
      expect(Math.abs(after.weights[f]!)).toBeGreaterThan(0.049);
    }
    const kept = await run([
      ...["compress", "--model", path("m.lgm"), "--out", path("k.lgm"), "--keep", "25"],
      ...["--bits", "32"],
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(
      /float32 weights, compact layout; [\d,]+ → 25 state features \(each \|w\| ≥ /,
    );
    expect(modelFileEncoding(await loadModel(path("k.lgm")))).toEqual({
      precision: "float32",
      compactLayout: true,
    });
  });

  it("refuses a bad command line (2) and a malformed model (3), writing nothing", async () => {
    const out = path("never.lgm");
    const usage = [
      ["--prune-below", "0.1", "--keep", "3"],
      ["--bits", "4"],
      ["--prune-below", "-1"],
      ["--keep", "0.5"],
    ];
    for (const extra of usage) {
      const result = await run(["compress", "--model", path("m.lgm"), "--out", out, ...extra]);
      expect(result.code, extra.join(" ")).toBe(2);
    }
    const missing = await run(["compress", "--model", path("absent.lgm"), "--out", out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--model .*absent\.lgm: no such file/);
    const bytes = await readFile(path("16.lgm"));
    bytes[bytes.length - 10]! ^= 0xff;
    await writeFile(path("bad.lgm"), bytes);
    const bad = await run(["compress", "--model", path("bad.lgm"), "--out", out]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/bad\.lgm: checksum mismatch .*: the file is corrupted/);
    expect(existsSync(out)).toBe(false);
  });
});
