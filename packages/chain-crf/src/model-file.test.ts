import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core/chain";
import { describe, expect, it } from "vitest";
import { CrfModel, modelFromTraining } from "./crf-model.js";
import { loadModelFromBytes, ModelFileError, modelToBytes } from "./model-file.js";
import { loadModel, saveModel } from "./model-file-node.js";
import { type Header, withHeader } from "./testing/model-header.js";
import { randomCorpus } from "./testing/random-corpus.js";
import { prepareTrainingData } from "./training-data.js";

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
    // Versions 1 to 3 are read still (model-file-format.test.ts); 5 is from the future.
    new DataView(version.buffer).setUint32(8, 5, true);
    expectError(version, /format version 5.*reads versions 1 to 4 \(written by a newer release/);
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
      // A file that cannot be opened is a usage error naming it (core's InputFileError), not "malformed".
      await expect(loadModel(join(dir, "missing.crf"))).rejects.toMatchObject({
        code: "usage",
        message: `${join(dir, "missing.crf")}: no such file`,
      });
      await expect(saveModel(m, join(dir, "no-such-dir", "m.crf"))).rejects.toThrow(
        /cannot write .*m\.crf: no such file or directory$/,
      );
      expect(await readdir(dir)).toEqual(["model.crf"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("checks every declared size against the bytes present before allocating (valid CRC)", () => {
    const bytes = modelToBytes(model(3).model);
    const section = (name: string) => (h: Header) =>
      h.sections.find((x: { name: string }) => x.name === name);
    const cases: Array<[(h: Header) => void, RegExp]> = [
      [
        (h) => {
          section("weights")(h).length = -1;
        },
        /section "weights" declares a length of -1/,
      ],
      [
        (h) => {
          section("weights")(h).length = null;
        },
        /"weights" declares a length of null/,
      ],
      [
        (h) => {
          section("weights")(h).length = 1.5;
        },
        /"weights" declares a length of 1\.5/,
      ],
      [
        (h) => {
          section("weights")(h).length = "7";
        },
        /"weights" declares a length of "7"/,
      ],
      [
        (h) => {
          section("weights")(h).length = 2 ** 31 - 1;
        },
        /section "weights" declares 2147483647 float32 values \(8\.59 GB\) at byte \d+ of the binary part, but the file has \d+ bytes left/,
      ],
      [
        (h) => {
          section("weights")(h).length = 2 ** 32 - 1;
        },
        /4294967295 float32 values/,
      ],
      [
        (h) => {
          section("featureLabels")(h).length = 2 ** 53;
        },
        /declares a length of 9007/,
      ],
      [
        (h) => {
          section("featureLabels")(h).offset = -8;
        },
        /an offset of -8/,
      ],
      [
        (h) => {
          section("featureLabels")(h).type = "float64";
        },
        /stored as "float64"/,
      ],
      [
        (h) => {
          section("weights")(h).type = "toString";
        },
        /stored as "toString"/,
      ],
      [
        (h) => {
          h.binaryLength = -1;
        },
        /binaryLength is -1/,
      ],
      [
        (h) => {
          h.sections = null;
        },
        /missing section/,
      ],
      [
        (h) => {
          h.sections = [null, 1];
        },
        /missing section/,
      ],
      [
        (h) => {
          h.layout = null;
        },
        /missing layout/,
      ],
      [
        (h) => {
          h.layout.numLabels = 2 ** 32 - 1;
        },
        /layout/,
      ],
      [
        (h) => {
          h.layout.numAttributes = null;
        },
        /layout\.numAttributes is null/,
      ],
      [
        (h) => {
          h.labels = "B-NP";
        },
        /labels is not a list of names/,
      ],
      [
        (h) => {
          h.settings = 3;
        },
        /settings is 3/,
      ],
    ];
    for (const [edit, pattern] of cases) expectError(withHeader(bytes, edit), pattern);
  });

  it("refuses NaN, infinite and absurdly large weights, naming the first one", () => {
    const m = model(4).model;
    for (const [bad, shown] of [
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      [Number.NEGATIVE_INFINITY, "-Infinity"],
      [1e308, "1e\\+308"],
      [-2e9, "-2000000000"],
    ] as const) {
      const weights = m.weights.slice();
      weights[5] = bad;
      weights[9] = bad;
      const crafted = new CrfModel({ ...parts(m), weights });
      for (const precision of ["float32", "float64"] as const) {
        if (precision === "float32" && typeof bad === "number" && Math.abs(bad) > 3.4e38) continue;
        expectError(
          modelToBytes(crafted, { precision }),
          new RegExp(`weight 5 \\(byte \\d+\\) is ${shown}: every weight must be a finite number`),
        );
      }
    }
    const fine = m.weights.slice();
    fine[5] = MAX_WEIGHT_MAGNITUDE;
    const back = loadModelFromBytes(
      modelToBytes(new CrfModel({ ...parts(m), weights: fine }), { precision: "float64" }),
    );
    expect(back.weights[5]).toBe(MAX_WEIGHT_MAGNITUDE);
  });

  it("refuses a preset (or a feature spec's base) this build does not know, naming the file", () => {
    const bytes = modelToBytes(model(5).model);
    const unknown =
      /the model names preset "nosuch", which this version does not know \(feature presets: chunking, ner, .*pos;/;
    expectError(
      withHeader(bytes, (h) => {
        h.preset = "nosuch";
      }),
      unknown,
    );
    expectError(
      withHeader(bytes, (h) => {
        h.settings = { features: { base: "nosuch" } };
      }),
      unknown,
    );
    // A recorded spec decides: its base is what tagging rebuilds, the header's preset a label.
    const template = withHeader(bytes, (h) => {
      h.preset = "template";
      h.settings = {
        features: { base: "template", template: { text: "U00:%x[0,0]", source: "t" } },
      };
    });
    expect(loadModelFromBytes(template).preset).toBe("template");
    for (const preset of [null, "ner-words"]) {
      const fine = withHeader(bytes, (h) => {
        h.preset = preset;
      });
      expect(loadModelFromBytes(fine).preset).toBe(preset);
    }
  });

  it("says what a CRFsuite or learning-to-search model is and how to use it", () => {
    const crfsuite = new Uint8Array(64);
    crfsuite.set(new TextEncoder().encode("lCRF"));
    expectError(
      crfsuite,
      /^m\.crf: a CRFsuite model, not a Lagrange one: convert it with lagrange import --from crfsuite m\.crf --out m\.model/,
    );
    expect(() => loadModelFromBytes(crfsuite, "my model.crfsuite")).toThrow(
      /--from crfsuite 'my model\.crfsuite' --out 'my model\.model'/,
    );
    const l2s = new Uint8Array(64);
    l2s.set(new TextEncoder().encode("LGRL2S\r\n"));
    expectError(
      l2s,
      /a learning-to-search model \(lagrange train --learner l2s\), not a CRF model/,
    );
  });
});

function parts(m: CrfModel) {
  return {
    labels: m.labels,
    attributes: m.attributes,
    transitionAttributes: m.transitionAttributes,
    layout: m.layout,
    preset: m.preset,
    settings: m.settings,
  };
}
