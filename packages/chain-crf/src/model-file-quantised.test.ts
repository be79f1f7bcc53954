import { readFileSync } from "node:fs";
import { scoreLabelling, seededRandom } from "@lagrange/core";
import { crc32 } from "@lagrange/core/bytes";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CrfModel, modelFromTraining } from "./crf-model.js";
import type { AttributeList } from "./features/types.js";
import {
  firstStageModel,
  loadModelFromBytes,
  ModelFileError,
  modelFileEncoding,
  modelToBytes,
  QUANTISATION_BLOCK_SIZE,
} from "./model-file.js";
import { headerOf, withHeader } from "./testing/model-header.js";
import { randomCorpus } from "./testing/random-corpus.js";
import { prepareTrainingData } from "./training-data.js";

const TOP = { int8: 127, int16: 32767 } as const;

/** A model of random weights spread over a few orders of magnitude, as trained ones are. */
function randomModel(seed: number) {
  const sequences = randomCorpus(seed, {
    sequences: 6,
    maxLength: 6,
    values: (seed & 1) === 0,
    transitions: (seed & 2) === 0,
  });
  const data = prepareTrainingData(sequences, { startEnd: (seed & 4) === 0 });
  const rnd = seededRandom(seed + 11);
  const weights = Float64Array.from(
    { length: data.layout.numWeights },
    () => (rnd() * 2 - 1) * 10 ** (rnd() * 3 - 2),
  );
  return { sequences, model: modelFromTraining(data, weights, { preset: "chunking" }) };
}

function loadError(bytes: Uint8Array): string {
  try {
    loadModelFromBytes(bytes, "q.lgm");
  } catch (error) {
    expect(error).toBeInstanceOf(ModelFileError);
    return (error as ModelFileError).message;
  }
  throw new Error("the model loaded");
}

/** The file with `edit` applied to its binary part and the checksum recomputed. */
function withBinary(
  bytes: Uint8Array,
  edit: (view: DataView, sectionAt: (name: string) => number) => void,
) {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const binaryStart = 16 + view.getUint32(12, true);
  const sections = headerOf(out).sections as Array<{ name: string; offset: number }>;
  edit(view, (name) => binaryStart + sections.find((s) => s.name === name)!.offset);
  view.setUint32(out.length - 4, crc32(out, 0, out.length - 4), true);
  return out;
}

/** How far any labelling's score can move: every active feature's weight moves by ≤ `moved`. */
function scoreBound(
  attributes: { length: number; transition: AttributeList | null } & AttributeList,
  moved: number,
) {
  let active = attributes.length + 1; // a transition per token, the start and end weights
  for (const list of [attributes, attributes.transition]) {
    if (list === null) continue;
    for (let k = 0; k < list.names.length; k++) active += Math.abs(list.values?.[k] ?? 1);
  }
  return active * moved;
}

describe("quantised model files", () => {
  it("round-trip each weight within half its block's scale; decodings agree but near ties", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom("int8" as const, "int16" as const),
        fc.integer({ min: 1, max: 40 }),
        (seed, precision, blockSize) => {
          const { model, sequences } = randomModel(seed);
          const bytes = modelToBytes(model, { precision, blockSize });
          const back = loadModelFromBytes(bytes);
          expect(modelFileEncoding(back)).toEqual({ precision, blockSize, compactLayout: false });
          expect(headerOf(bytes).features).toContain("quantised-weights");
          const w = model.weights;
          let moved = 0;
          for (let from = 0; from < w.length; from += blockSize) {
            const block = w.subarray(from, from + blockSize);
            const scale = Math.max(...Array.from(block, Math.abs)) / TOP[precision];
            for (let k = from; k < from + block.length; k++) {
              const error = Math.abs(back.weights[k]! - w[k]!);
              expect(error).toBeLessThanOrEqual((scale / 2) * (1 + 1e-6));
              moved = Math.max(moved, error);
            }
          }
          for (const { attributes } of sequences) {
            const exact = model.chainScores(attributes);
            const bound = scoreBound(attributes, moved);
            const mine = model.tagIds(attributes);
            const theirs = back.tagIds(attributes);
            // A different best labelling only where the two were within twice the score bound.
            const gap = scoreLabelling(exact, mine) - scoreLabelling(exact, theirs);
            if (gap > 2 * bound + 1e-9) expect(Array.from(theirs)).toEqual(Array.from(mine));
            expect(
              Math.abs(
                scoreLabelling(back.chainScores(attributes), mine) - scoreLabelling(exact, mine),
              ),
            ).toBeLessThanOrEqual(bound + 1e-9);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("shrinks the file, keeps settings and trigrams' precision, and defaults to blocks of 256", () => {
    const { model } = randomModel(4);
    const float = modelToBytes(model);
    const int8 = modelToBytes(model, { precision: "int8" });
    const int16 = modelToBytes(model, { precision: "int16" });
    // (A model this small is mostly header: the weights' sections tell the sizes apart.)
    const weightsType = (bytes: Uint8Array) =>
      headerOf(bytes).sections.find((s: { name: string }) => s.name === "weights").type;
    expect([int8, int16, float].map(weightsType)).toEqual(["int8", "int16", "float32"]);
    const header = headerOf(int8);
    expect(header.quantisation).toEqual({ blockSize: QUANTISATION_BLOCK_SIZE });
    expect(header.sections.find((s: { name: string }) => s.name === "weightScales")).toMatchObject({
      type: "float32",
      length: Math.ceil(model.weights.length / QUANTISATION_BLOCK_SIZE),
    });
    // A float file says nothing of quantisation: what earlier releases wrote and read.
    expect(headerOf(float).quantisation).toBeUndefined();
    expect(headerOf(float).features).not.toContain("quantised-weights");
    expect(modelFileEncoding(loadModelFromBytes(float))).toEqual({
      precision: "float32",
      compactLayout: false,
    });
    expect(modelFileEncoding(model)).toBeNull();
    expect(() => modelToBytes(model, { precision: "int8", blockSize: 0 })).toThrow(RangeError);
  });

  it("quantises an embedded first stage as a model file of its own", () => {
    const fixture = new Uint8Array(
      readFileSync(new URL("./testing/fixtures/v2-first-stage.model", import.meta.url)),
    );
    const two = loadModelFromBytes(fixture);
    const first = firstStageModel(two)!;
    const small = two.withFirstStage(modelToBytes(first, { precision: "int8" }));
    const back = loadModelFromBytes(
      modelToBytes(small, { precision: "int16", compactLayout: true }),
    );
    expect(modelFileEncoding(back)).toEqual({
      precision: "int16",
      blockSize: 256,
      compactLayout: true,
    });
    const backFirst = firstStageModel(back)!;
    expect(modelFileEncoding(backFirst)).toEqual({
      precision: "int8",
      blockSize: 256,
      compactLayout: false,
    });
    expect(backFirst.summary()).toEqual(first.summary());
    expect(back.settings).toEqual(two.settings);
  });

  it("refuses corrupt quantised sections, naming the file and what was expected", () => {
    const { model } = randomModel(6);
    const bytes = modelToBytes(model, { precision: "int8", blockSize: 4 });
    const blocks = Math.ceil(model.weights.length / 4);
    const cases: Array<[Uint8Array, RegExp]> = [
      [
        withBinary(bytes, (view, at) => view.setFloat32(at("weightScales") + 4, Number.NaN, true)),
        /^q\.lgm: weight scale 1 \(byte \d+\) is NaN; expected a finite number ≥ 0 \(the scale of weights 4 to 7\)$/,
      ],
      [
        withBinary(bytes, (view, at) => view.setFloat32(at("weightScales"), -1, true)),
        /weight scale 0 \(byte \d+\) is -1; expected a finite number ≥ 0/,
      ],
      [
        withBinary(bytes, (view, at) => {
          view.setFloat32(at("weightScales"), 1e38, true);
          view.setInt8(at("weights"), 100);
        }),
        /^q\.lgm: weight 0 \(byte \d+\) is 9\.99\d*e\+39: every weight must be a finite number of magnitude at most/,
      ],
      [
        withHeader(bytes, (h) => {
          h.sections.find((s: { name: string }) => s.name === "weightScales").length = blocks - 1;
        }),
        new RegExp(
          `section "weightScales" holds ${blocks - 1} scales; expected ${blocks}, one per block of 4 of the ${model.weights.length} weights`,
        ),
      ],
      [
        withHeader(bytes, (h) => {
          h.sections.find((s: { name: string }) => s.name === "weightScales").length = 1e9;
        }),
        /section "weightScales" declares 1000000000 float32 values \(4\.00 GB\) at byte \d+ of the binary part, but the file has/,
      ],
      [
        withHeader(bytes, (h) => {
          h.sections = h.sections.filter((s: { name: string }) => s.name !== "weightScales");
        }),
        /^q\.lgm: missing section "weightScales"$/,
      ],
      [
        withHeader(bytes, (h) => {
          h.quantisation.blockSize = 0;
        }),
        /header: quantisation\.blockSize is 0; expected an integer ≥ 1 \(the weights per scale\)/,
      ],
      [
        withHeader(bytes, (h) => {
          h.quantisation = undefined;
        }),
        /no quantisation field, but the header's features list quantised-weights/,
      ],
      [
        withHeader(bytes, (h) => {
          h.features = [];
        }),
        /a quantisation field, but the header's features do not list quantised-weights/,
      ],
      [
        withHeader(modelToBytes(model), (h) => {
          h.features.push("quantised-weights");
          h.quantisation = { blockSize: 4 };
        }),
        /section "weights" stored as "float32"; expected int8 or int16/,
      ],
      [
        withHeader(bytes, (h) => {
          h.features = [];
          h.quantisation = undefined;
        }),
        /section "weights" stored as "int8"; expected float32 or float64/,
      ],
    ];
    for (const [corrupt, pattern] of cases) expect(loadError(corrupt)).toMatch(pattern);
  });
});

describe("compact layout", () => {
  it("stores counts and narrow labels, and reads back the same layout", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const { model } = randomModel(seed);
        const bytes = modelToBytes(model, { precision: "float64", compactLayout: true });
        const header = headerOf(bytes);
        expect(header.features).toContain("compact-layout");
        const types = Object.fromEntries(
          header.sections.map((s: { name: string; type: string }) => [s.name, s.type]),
        );
        expect(types).toMatchObject({ attributeCounts: "uint8", featureLabels: "uint8" });
        expect(types.attributeOffsets).toBeUndefined();
        const back = loadModelFromBytes(bytes);
        expect(back.layout).toEqual(model.layout);
        expect(Array.from(back.weights)).toEqual(Array.from(model.weights));
        expect(modelFileEncoding(back)).toEqual({ precision: "float64", compactLayout: true });
      }),
      { numRuns: 20 },
    );
  });

  it("refuses counts that do not add up to the features, naming the section", () => {
    const { model } = randomModel(3);
    const bytes = modelToBytes(model, { compactLayout: true });
    const S = model.layout.featureLabels.length;
    const first = model.layout.attributeOffsets[1]!;
    const cases: Array<[Uint8Array, RegExp]> = [
      [
        withBinary(bytes, (view, at) => view.setUint8(at("attributeCounts"), first + 1)),
        new RegExp(
          `^q\\.lgm: section "attributeCounts" adds up to more than ${S} state features; expected ${S} \\(the featureLabels section's length\\)$`,
        ),
      ],
      [
        withBinary(bytes, (view, at) => view.setUint8(at("attributeCounts"), first - 1)),
        new RegExp(`adds up to ${S - 1} state features; expected ${S}`),
      ],
      [
        withHeader(bytes, (h) => {
          h.features = h.features.filter((f: string) => f !== "compact-layout");
        }),
        /an attributeCounts section, but the header's features do not list compact-layout/,
      ],
      [
        withHeader(bytes, (h) => {
          h.sections.find((s: { name: string }) => s.name === "featureLabels").type = "int8";
        }),
        /section "featureLabels" stored as "int8"; expected uint8 or uint16 or int32/,
      ],
    ];
    for (const [corrupt, pattern] of cases) expect(loadError(corrupt)).toMatch(pattern);
    const wide = modelToBytes(model);
    const crafted = withHeader(wide, (h) => {
      h.features.push("compact-layout");
      h.sections.find((s: { name: string }) => s.name === "attributeOffsets").name =
        "attributeCounts";
    });
    // int32 offsets read as counts: they add up to far more than the features.
    expect(loadError(crafted)).toMatch(/section "attributeCounts" adds up to more than/);
  });
});

describe("pruning weak state features", () => {
  const stateWeights = (m: CrfModel) => Array.from(m.weights.subarray(0, m.layout.transitionBase));

  it("drops those below a threshold, or all but the strongest n, and nothing else", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        (seed, below) => {
          const { model } = randomModel(seed);
          const state = stateWeights(model);
          const cut = model.pruned({ below });
          expect(stateWeights(cut)).toEqual(state.filter((w) => w !== 0 && Math.abs(w) >= below));
          const L = model.numLabels;
          const tail = (m: CrfModel) =>
            Array.from(
              m.weights.subarray(m.layout.transitionBase, m.layout.transitionBase + L * L),
            );
          expect(tail(cut)).toEqual(tail(model));
          const keep = Math.floor(state.length / 3);
          const strongest = model.pruned({ keep });
          // Random weights have no ties: exactly the n largest magnitudes, in their order.
          const floor =
            [...state].map(Math.abs).sort((a, b) => b - a)[keep - 1] ?? Number.POSITIVE_INFINITY;
          expect(stateWeights(strongest)).toEqual(state.filter((w) => Math.abs(w) >= floor));
          expect(strongest.layout.featureLabels.length).toBe(keep);
        },
      ),
      { numRuns: 40 },
    );
    const { model } = randomModel(1);
    expect(model.pruned({ keep: 0 }).layout.featureLabels.length).toBe(0);
    expect(model.pruned({ keep: 1e9 }).layout.featureLabels.length).toBe(
      model.layout.featureLabels.length,
    );
    expect(() => model.pruned({ below: -1 })).toThrow(/below must be a finite number ≥ 0/);
    expect(() => model.pruned({ keep: 1.5 })).toThrow(/keep must be an integer ≥ 0/);
    expect(() => model.pruned({ below: 1, keep: 1 })).toThrow(/below or keep, not both/);
  });
});
