import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CrfModel } from "./crf-model.js";
import {
  firstStageModel,
  loadModelFromBytes,
  MODEL_FORMAT_VERSION,
  ModelFileError,
  modelToBytes,
} from "./model-file.js";
import { headerOf, withHeader } from "./testing/model-header.js";
import { randomCorpus } from "./testing/random-corpus.js";

// Model files written by the release before format 4, one of each earlier version, with the
// summary and tags that release read from them (testing/fixtures/expected.json).
const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./testing/fixtures/${name}.model`, import.meta.url)));
const expected = JSON.parse(
  readFileSync(new URL("./testing/fixtures/expected.json", import.meta.url), "utf8"),
) as Record<string, { summary: unknown; tags: string[][] }>;
const sequences = randomCorpus(7, { sequences: 4, maxLength: 4, transitions: true, values: true });
const FIXTURES = [
  ["v1-plain", 1, []],
  ["v2-first-stage", 2, ["first-stage"]],
  ["v3-second-order", 3, ["second-order"]],
] as const;

function loadError(bytes: Uint8Array): ModelFileError {
  try {
    loadModelFromBytes(bytes, "m.model");
  } catch (error) {
    expect(error).toBeInstanceOf(ModelFileError);
    return error as ModelFileError;
  }
  throw new Error("the model loaded");
}

const tagsOf = (model: CrfModel) => sequences.map((s) => model.tag(s.attributes));

describe("model file formats", () => {
  it.each(FIXTURES)("reads a version %s file of the earlier release as it did", (name, version) => {
    const bytes = fixture(name);
    expect(new DataView(bytes.buffer).getUint32(8, true)).toBe(version);
    const model = loadModelFromBytes(bytes);
    expect(model.summary()).toEqual(expected[name]!.summary);
    expect(tagsOf(model)).toEqual(expected[name]!.tags);
  });

  it("reads the record of an earlier file's settings into typed fields", () => {
    const plain = loadModelFromBytes(fixture("v1-plain"));
    expect([plain.scheme, plain.taskPreset, plain.decoder]).toEqual([
      "IOB2",
      "chunking",
      "viterbi",
    ]);
    expect(plain.generalCrf).toMatchObject({ groups: "documents", outsideLabel: 2 });
    const second = loadModelFromBytes(fixture("v3-second-order"));
    expect([second.scheme, second.taskPreset, second.decoder, second.generalCrf]).toEqual([
      "IOB2",
      null,
      null,
      null,
    ]);
    const bad = withHeader(fixture("v3-second-order"), (h) => {
      h.settings.decoder = 7;
    });
    expect(loadError(bad).message).toBe("m.model: header: settings.decoder is 7; expected a name");
  });

  it.each(FIXTURES)("rewrites %s as format 4: kind, features, the record as fields", (name) => {
    const old = loadModelFromBytes(fixture(name));
    const bytes = modelToBytes(old, { precision: "float64" });
    expect(new DataView(bytes.buffer).getUint32(8, true)).toBe(MODEL_FORMAT_VERSION);
    const header = headerOf(bytes);
    const features = [
      ...(old.firstStage === null ? [] : ["first-stage"]),
      ...(old.order === 2 ? ["second-order"] : []),
      ...(old.generalCrf === null ? [] : ["general-crf"]),
    ];
    expect(header).toMatchObject({ kind: "chain-crf", features, scheme: old.scheme });
    expect(header.format).toBeUndefined();
    for (const key of ["scheme", "taskPreset", "decoder", "generalCrf"]) {
      expect(header.settings[key]).toBeUndefined();
    }
    const back = loadModelFromBytes(bytes);
    expect(back.settings).toEqual(old.settings);
    expect(back.summary()).toEqual(old.summary());
    expect(tagsOf(back)).toEqual(expected[name]!.tags);
    expect([back.scheme, back.taskPreset, back.decoder, back.generalCrf]).toEqual([
      old.scheme,
      old.taskPreset,
      old.decoder,
      old.generalCrf,
    ]);
    if (old.firstStage !== null) {
      // The embedded first stage stays the earlier release's file, read as such.
      expect(firstStageModel(back)!.summary()).toEqual(firstStageModel(old)!.summary());
    }
  });

  it("refuses a feature or kind this build does not know, saying a newer release may", () => {
    const bytes = modelToBytes(loadModelFromBytes(fixture("v1-plain")));
    expect(headerOf(bytes).features).toEqual(["general-crf"]);
    const future = withHeader(bytes, (h) => {
      h.features.push("fourth-order");
    });
    expect(loadError(future).message).toBe(
      'm.model: the model uses feature "fourth-order", which this build of @lagrange/chain-crf does not know (it reads first-stage, second-order, general-crf, constraints, quantised-weights, compact-layout): a newer release may read it',
    );
    const kind = withHeader(bytes, (h) => {
      h.kind = "semi-crf";
    });
    expect(loadError(kind).message).toMatch(
      /a model of kind "semi-crf": this build of @lagrange\/chain-crf reads chain-crf models \(a newer release may read it\)/,
    );
    const notList = withHeader(bytes, (h) => {
      h.features = "general-crf";
    });
    expect(loadError(notList).message).toMatch(/features is "general-crf"; expected a list/);
  });

  it("keeps learned constraints as a header field under feature constraints", () => {
    const old = loadModelFromBytes(fixture("v1-plain"));
    expect(old.learnedConstraints).toBeNull();
    const recorded = { format: "lagrange-constraints", constraints: [{ id: "same-string:PER" }] };
    const bytes = modelToBytes(old.withSettings({ learnedConstraints: recorded }));
    const header = headerOf(bytes);
    expect(header.features).toEqual(["general-crf", "constraints"]);
    expect(header.learnedConstraints).toEqual(recorded);
    expect(header.settings.learnedConstraints).toBeUndefined();
    const back = loadModelFromBytes(bytes);
    expect(back.learnedConstraints).toEqual(recorded);
    expect(back.features).toContain("constraints");
    expect(tagsOf(back)).toEqual(tagsOf(old));
  });

  it("refuses features that disagree with the file's sections and fields", () => {
    const two = modelToBytes(loadModelFromBytes(fixture("v2-first-stage")));
    const second = modelToBytes(loadModelFromBytes(fixture("v3-second-order")));
    const plain = modelToBytes(loadModelFromBytes(fixture("v1-plain")));
    const cases: Array<[Uint8Array, RegExp]> = [
      [
        withHeader(two, (h) => {
          h.features = [];
        }),
        /^m\.model: a firstStage section, but the header's features do not list first-stage$/,
      ],
      [
        withHeader(second, (h) => {
          h.features = [];
        }),
        /a trigrams section, but the header's features do not list second-order/,
      ],
      [
        withHeader(second, (h) => {
          h.features.push("first-stage");
        }),
        /no firstStage section, but the header's features list first-stage/,
      ],
      [
        withHeader(plain, (h) => {
          h.generalCrf = undefined;
        }),
        /no generalCrf field, but the header's features list general-crf/,
      ],
      [
        withHeader(plain, (h) => {
          h.features.push("constraints");
        }),
        /no learnedConstraints field, but the header's features list constraints/,
      ],
      [
        withHeader(plain, (h) => {
          h.learnedConstraints = { constraints: [] };
        }),
        /a learnedConstraints field, but the header's features do not list constraints/,
      ],
      [
        withHeader(plain, (h) => {
          h.settings.scheme = "IOB1";
        }),
        /header: settings\.scheme, where format 4 has a field scheme/,
      ],
      [
        withHeader(plain, (h) => {
          h.taskPreset = ["ner"];
        }),
        /header: taskPreset is \["ner"\]; expected a name/,
      ],
    ];
    for (const [bytes, pattern] of cases) expect(loadError(bytes).message).toMatch(pattern);
  });
});
