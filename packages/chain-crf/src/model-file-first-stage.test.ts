import { readFileSync } from "node:fs";
import { seededRandom } from "@lagrange/core";
import { crc32 } from "@lagrange/core/bytes";
import { describe, expect, it } from "vitest";
import { CrfModel, modelFromTraining } from "./crf-model.js";
import {
  firstStageModel,
  loadModelFromBytes,
  MODEL_FORMAT_VERSION,
  ModelFileError,
  modelToBytes,
} from "./model-file.js";
import { headerOf } from "./testing/model-header.js";
import { randomCorpus } from "./testing/random-corpus.js";
import { prepareTrainingData } from "./training-data.js";

function model(seed: number) {
  const sequences = randomCorpus(seed, { sequences: 6, maxLength: 5, transitions: true });
  const data = prepareTrainingData(sequences);
  const rnd = seededRandom(seed);
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 4 - 2);
  return {
    sequences,
    model: modelFromTraining(data, weights, { preset: "ner", settings: { seed } }),
  };
}

/** The file with its checksum made right again after an edit (a corruption the CRC misses). */
function resealed(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(out.length - 4, crc32(out, 0, out.length - 4), true);
  return out;
}

function loadError(bytes: Uint8Array): ModelFileError {
  try {
    loadModelFromBytes(bytes, "two.lgm");
  } catch (error) {
    expect(error).toBeInstanceOf(ModelFileError);
    return error as ModelFileError;
  }
  throw new Error("the file was read");
}

describe("model files with a first stage", () => {
  const first = model(1).model;
  const firstBytes = modelToBytes(first, { precision: "float64" });
  const { model: second, sequences } = model(2);
  const two = second.withFirstStage(firstBytes);

  it("round-trip the first stage's bytes, in the summary and through the file", () => {
    expect(two.summary().firstStage).toBe(firstBytes.length);
    expect(second.summary().firstStage).toBeNull();
    const bytes = modelToBytes(two, { precision: "float64" });
    expect(new DataView(bytes.buffer).getUint32(8, true)).toBe(MODEL_FORMAT_VERSION);
    expect(headerOf(bytes).features).toEqual(["first-stage"]);
    const read = loadModelFromBytes(bytes, "two.lgm");
    expect(read.firstStage).toEqual(firstBytes);
    for (const s of sequences) expect(read.tag(s.attributes)).toEqual(second.tag(s.attributes));
    const inner = firstStageModel(read)!;
    expect(Array.from(inner.weights)).toEqual(Array.from(first.weights));
    expect(inner.settings).toEqual({ seed: 1 });
    // Carried by the models derived from it.
    expect(read.withSettings({ x: 1 }).firstStage).toBe(read.firstStage);
    expect(read.pruned().firstStage).toBe(read.firstStage);
  });

  it("leaves files without one as they were: no feature, no section, firstStage null", () => {
    const bytes = modelToBytes(second);
    expect(headerOf(bytes).features).toEqual([]);
    expect(new TextDecoder().decode(bytes)).not.toContain("firstStage");
    const read = loadModelFromBytes(bytes);
    expect(read.firstStage).toBeNull();
    expect(firstStageModel(read)).toBeNull();
  });

  it("refuses a corrupted first stage as a ModelFileError naming the file", () => {
    const bytes = modelToBytes(two);
    const headerLength = new DataView(bytes.buffer).getUint32(12, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength))) as {
      sections: { name: string; offset: number }[];
    };
    const at = 16 + headerLength + header.sections.find((s) => s.name === "firstStage")!.offset;
    // A flipped byte: the outer checksum catches it.
    const flipped = bytes.slice();
    flipped[at + 20]! ^= 0xff;
    expect(loadError(flipped).message).toMatch(/^two\.lgm: checksum mismatch/);
    // The inner file's magic broken under a valid outer checksum: the inner file is refused.
    const foreign = bytes.slice();
    foreign[at]! ^= 0xff;
    expect(loadError(resealed(foreign)).message).toMatch(
      /two\.lgm \(its first stage\): not a Lagrange chain-CRF model file/,
    );
    // A version-1 file with a first-stage section: not what any writer made.
    const v1 = new Uint8Array(
      readFileSync(new URL("./testing/fixtures/v2-first-stage.model", import.meta.url)),
    );
    new DataView(v1.buffer).setUint32(8, 1, true);
    expect(loadError(resealed(v1)).message).toBe(
      "two.lgm: a firstStage section, but a version 1 file has no feature first-stage",
    );
  });

  it("refuses nested first stages from the embedded header, before decoding any level", () => {
    // Fifty levels of a small model: decoding each level first would copy every one below it.
    let nested = modelToBytes(two);
    for (let depth = 0; depth < 50; depth++) nested = modelToBytes(second.withFirstStage(nested));
    expect(loadError(nested).message).toBe(
      "two.lgm: section firstStage: its first stage has a first stage of its own (one level at most)",
    );
    // Read from the embedded header, whatever else the inner model has (trigrams here).
    const secondOrder = modelToBytes(
      new CrfModel({
        labels: two.labels,
        attributes: two.attributes,
        transitionAttributes: two.transitionAttributes,
        layout: two.layout,
        weights: two.weights,
        firstStage: two.firstStage,
        trigrams: new Float64Array(two.labels.size ** 3),
      }),
    );
    expect(headerOf(secondOrder).features).toEqual(["first-stage", "second-order"]);
    expect(loadError(modelToBytes(second.withFirstStage(secondOrder))).message).toMatch(
      /its first stage has a first stage of its own/,
    );
  });
});
