import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { modelFromTraining, prepareTrainingData } from "./crf-model.js";
import { loadModelFromBytes, ModelFileError, modelToBytes } from "./model-file.js";
import { loadModel, saveModel } from "./model-file-node.js";
import { randomCorpus } from "./testing/random-corpus.js";

function model(seed = 1) {
  const sequences = randomCorpus(seed, {
    sequences: 8,
    maxLength: 6,
    transitions: true,
    values: true,
  });
  const data = prepareTrainingData(sequences);
  const rnd = seededRandom(seed);
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 4 - 2);
  return {
    sequences,
    model: modelFromTraining(data, weights, {
      preset: "chunking",
      settings: { algorithm: "lbfgs", c2: 1 },
    }),
  };
}

function expectError(bytes: Uint8Array, pattern: RegExp): void {
  let caught: unknown;
  try {
    loadModelFromBytes(bytes, "m.crf");
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ModelFileError);
  expect((caught as ModelFileError).message).toMatch(/^m\.crf: /);
  expect((caught as ModelFileError).message).toMatch(pattern);
}

describe("model files", () => {
  it("round-trip float64 bit for bit, float32 to the nearest float", () => {
    const { model: m, sequences } = model();
    const exact = loadModelFromBytes(modelToBytes(m, { precision: "float64" }));
    expect(Array.from(exact.weights)).toEqual(Array.from(m.weights));
    expect(exact.labels.names()).toEqual(m.labels.names());
    expect(exact.attributes.names()).toEqual(m.attributes.names());
    expect(exact.transitionAttributes.names()).toEqual(m.transitionAttributes.names());
    expect(exact.preset).toBe("chunking");
    expect(exact.settings).toEqual({ algorithm: "lbfgs", c2: 1 });
    expect(Array.from(exact.layout.featureLabels)).toEqual(Array.from(m.layout.featureLabels));
    for (const s of sequences) expect(exact.tag(s.attributes)).toEqual(m.tag(s.attributes));
    const compact = modelToBytes(m);
    expect(compact.length).toBeLessThan(modelToBytes(m, { precision: "float64" }).length);
    const small = loadModelFromBytes(compact);
    expect(Array.from(small.weights)).toEqual(Array.from(m.weights, (w) => Math.fround(w)));
  });

  it("rejects truncated, corrupted, wrong-version and foreign files with clear errors", () => {
    const bytes = modelToBytes(model().model);
    for (const cut of [0, 10, 40, bytes.length - 1, bytes.length - 200]) {
      expectError(bytes.slice(0, cut), /truncated/);
    }
    const flipped = bytes.slice();
    flipped[bytes.length - 20]! ^= 0x10;
    expectError(flipped, /checksum mismatch/);
    const headerFlip = bytes.slice();
    headerFlip[30]! ^= 0x01;
    expectError(headerFlip, /checksum mismatch|corrupted header/);
    const version = bytes.slice();
    new DataView(version.buffer).setUint32(8, 2, true);
    expectError(version, /format version 2.*reads version 1/);
    const foreign = bytes.slice();
    foreign[0] = 0x7f;
    expectError(foreign, /wrong magic/);
    expectError(new TextEncoder().encode("B-NP\nI-NP\nO\n and some more text here"), /wrong magic/);
    const longer = new Uint8Array(bytes.length + 3);
    longer.set(bytes);
    expectError(longer, /trailing bytes/);
  });

  it("saves atomically and loads from disk", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-crf-"));
    try {
      const { model: m, sequences } = model(2);
      const path = join(dir, "model.crf");
      await writeFile(path, "old contents");
      await saveModel(m, path, { precision: "float64" });
      expect(await readdir(dir)).toEqual(["model.crf"]);
      const back = await loadModel(path);
      for (const s of sequences) expect(back.tag(s.attributes)).toEqual(m.tag(s.attributes));
      expect((await readFile(path)).length).toBe(modelToBytes(m, { precision: "float64" }).length);
      await expect(loadModel(join(dir, "missing.crf"))).rejects.toThrow(
        /missing\.crf: cannot read/,
      );
      await expect(saveModel(m, join(dir, "no-such-dir", "m.crf"))).rejects.toThrow(
        /cannot write .*m\.crf: no such file or directory$/,
      );
      expect(await readdir(dir)).toEqual(["model.crf"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
