import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CrfModel, modelFromTraining } from "../../crf-model.js";
import { fromAttributeLists } from "../../features/builder.js";
import type { AttributeSequence } from "../../features/types.js";
import { ModelFileError } from "../../model-file.js";
import { randomCorpus } from "../../testing/random-corpus.js";
import { prepareTrainingData } from "../../training-data.js";
import { ByteReader } from "./bytes.js";
import { readCqdb, writeCqdb } from "./cqdb.js";
import { hashlittle } from "./lookup3.js";
import {
  CrfsuiteExportError,
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
  MAX_IMPORTED_LABELS,
} from "./model.js";

const utf8 = (s: string) => new TextEncoder().encode(s);
const cString = (s: string) => utf8(`${s}\0`);

/** A model with random (mostly non-zero) weights over a random corpus's features. */
function randomModel(seed: number, startEnd: boolean, transitions = false): CrfModel {
  const corpus = randomCorpus(seed, {
    sequences: 12,
    maxLength: 6,
    labels: 4,
    vocabulary: 9,
    transitions,
  });
  const data = prepareTrainingData(corpus, { startEnd, shared: false });
  const rnd = seededRandom(seed + 1);
  const weights = new Float64Array(data.layout.numWeights);
  for (let k = 0; k < weights.length; k++) weights[k] = rnd() < 0.1 ? 0 : rnd() * 4 - 2;
  return modelFromTraining(data, weights);
}

function randomSequences(seed: number, count: number): string[][][] {
  const rnd = seededRandom(seed);
  const out: string[][][] = [];
  for (let s = 0; s < count; s++) {
    const n = 1 + Math.floor(rnd() * 7);
    const tokens: string[][] = [];
    for (let t = 0; t < n; t++) {
      const k = Math.floor(rnd() * 4);
      const names = new Set<string>();
      for (let c = 0; c < k; c++) names.add(`w=${Math.floor(rnd() * 11)}`); // some unknown
      tokens.push([...names]);
    }
    out.push(tokens);
  }
  return out;
}

const withBoundaries = (tokens: string[][]): string[][] =>
  tokens.map((names, t) => [
    ...names,
    ...(t === 0 ? ["__BOS__"] : []),
    ...(t === tokens.length - 1 ? ["__EOS__"] : []),
  ]);

function expectSameScores(
  a: CrfModel,
  b: CrfModel,
  x: AttributeSequence,
  y: AttributeSequence = x,
): void {
  expect(b.tag(y)).toEqual(a.tag(x));
  const ma = a.marginals(x);
  const mb = b.marginals(y);
  expect(Math.abs(ma.logPartition - mb.logPartition)).toBeLessThan(1e-9);
  for (let k = 0; k < ma.marginals.length; k++) {
    expect(Math.abs(ma.marginals[k]! - mb.marginals[k]!)).toBeLessThan(1e-9);
  }
}

describe("lookup3 hashlittle", () => {
  it("matches the C implementation CRFsuite vendors", () => {
    // From lookup3.c compiled with gcc, hashing the strings with their NUL as CQDB does.
    expect(hashlittle(cString(""))).toBe(2343125323);
    expect(hashlittle(cString("a"))).toBe(1118926449);
    expect(hashlittle(cString("B-NP"))).toBe(3775637333);
    expect(hashlittle(cString("w[0]=Confidence"))).toBe(1686011895);
    expect(hashlittle(cString("pos[-1]|pos[0]=NN|IN"))).toBe(345665603);
    expect(hashlittle(cString("abcdefghijklmnopqrstuvwxyz0123456789"))).toBe(278453721);
    expect(hashlittle(cString("__BOS__"))).toBe(4040166516);
    expect(hashlittle(new Uint8Array(0))).toBe(0xdeadbeef);
  });
});

describe("CQDB", () => {
  it("reads back what it writes, empty or not", () => {
    for (const keys of [[], ["a"], ["B-NP", "I-NP", "O", "ünïcode", "x".repeat(300)]]) {
      const bytes = writeCqdb(keys.map(utf8));
      const padded = new Uint8Array(bytes.length + 8);
      padded.set(bytes, 8);
      expect(readCqdb(new ByteReader(padded, "t"), 8, keys.length, "label")).toEqual(keys);
    }
  });
});

describe("CRFsuite model files", () => {
  it("round-trips a model without first/last weights: same tags, scores and marginals", () => {
    for (const seed of [1, 2, 3]) {
      const model = randomModel(seed, false);
      const back = crfsuiteModelFromBytes(crfsuiteModelToBytes(model), "m.crfsuite");
      expect(back.preset).toBeNull();
      expect(back.settings.importedFrom).toBe("crfsuite");
      expect(back.labels.names()).toEqual(model.labels.names());
      for (const tokens of randomSequences(seed, 30)) {
        const x = fromAttributeLists(tokens);
        expectSameScores(model, back, x);
      }
      // Exporting the import gives the same bytes (a fixed point).
      expect(crfsuiteModelToBytes(back)).toEqual(crfsuiteModelToBytes(model));
    }
  });

  it("carries first/last weights on boundary attributes", () => {
    const model = randomModel(4, true);
    expect(() => crfsuiteModelToBytes(model)).toThrow(CrfsuiteExportError);
    const bytes = crfsuiteModelToBytes(model, {
      boundaryAttributes: { first: "__BOS__", last: "__EOS__" },
    });
    const back = crfsuiteModelFromBytes(bytes);
    for (const tokens of randomSequences(5, 30)) {
      expectSameScores(
        model,
        back,
        fromAttributeLists(tokens),
        fromAttributeLists(withBoundaries(tokens)),
      );
    }
  });

  it("refuses observation-conditioned transitions", () => {
    expect(() => crfsuiteModelToBytes(randomModel(6, false, true))).toThrow(/conditioned/);
  });

  it("refuses a second-order model's trigram weights; all-zero trigrams export as first order", () => {
    const first = randomModel(8, false);
    const L = first.numLabels;
    const { labels, attributes, transitionAttributes, layout, weights } = first;
    const withTrigrams = (trigrams: Float64Array) =>
      new CrfModel({ labels, attributes, transitionAttributes, layout, weights, trigrams });
    const trigrams = new Float64Array(L ** 3);
    trigrams[1] = 0.5;
    expect(() => crfsuiteModelToBytes(withTrigrams(trigrams))).toThrow(/second-order/);
    const zero = withTrigrams(new Float64Array(L ** 3));
    expect(crfsuiteModelToBytes(zero)).toEqual(crfsuiteModelToBytes(first));
  });

  it("names the file and the problem for bad input", () => {
    const bytes = crfsuiteModelToBytes(randomModel(7, false));
    expect(() => crfsuiteModelFromBytes(utf8("hello"), "x.crfsuite")).toThrow(
      /x\.crfsuite: 5 bytes: too short/,
    );
    const wrong = bytes.slice();
    wrong[0] = 0x4c;
    expect(() => crfsuiteModelFromBytes(wrong, "x.crfsuite")).toThrow(/x\.crfsuite: file magic/);
    expect(() => crfsuiteModelFromBytes(bytes.subarray(0, bytes.length - 3), "x")).toThrow(
      /header gives the file size/,
    );
    // A label CQDB slot whose hash was changed: the checksum catches it.
    const fixed = bytes.slice();
    const offLabels = new DataView(fixed.buffer).getUint32(32, true);
    const fixedView = new DataView(fixed.buffer);
    for (let t = 0; t < 256; t++) {
      const offset = fixedView.getUint32(offLabels + 24 + t * 8, true);
      if (offset === 0) continue;
      for (let s = 0; ; s++) {
        const slot = offLabels + offset + s * 8;
        if (fixedView.getUint32(slot + 4, true) === 0) continue;
        fixedView.setUint32(slot, fixedView.getUint32(slot, true) ^ 1, true);
        break;
      }
      break;
    }
    expect(() => crfsuiteModelFromBytes(fixed, "x")).toThrow(/hashes to/);
  });

  it("checks declared counts before allocating by them, and refuses non-finite or huge weights", () => {
    const bytes = crfsuiteModelToBytes(randomModel(9, false));
    const patched = (at: number, value: number) => {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(at, value, true);
      return copy;
    };
    // Labels (offset 20): a dense L² table is what Lagrange would allocate for them.
    for (const labels of [MAX_IMPORTED_LABELS + 1, 2 ** 31 - 1, 2 ** 32 - 1]) {
      expect(() => crfsuiteModelFromBytes(patched(20, labels), "x.crfsuite")).toThrow(
        new RegExp(
          `x\\.crfsuite: the header declares ${labels} labels: their dense transition table would take .*at most 4096 labels`,
        ),
      );
    }
    // Attributes (offset 24) and features (FEAT chunk's count) are checked against the file.
    for (const attributes of [0, 2 ** 31 - 1, 2 ** 32 - 1]) {
      expect(() => crfsuiteModelFromBytes(patched(24, attributes), "x")).toThrow(ModelFileError);
    }
    const offFeatures = new DataView(bytes.buffer).getUint32(28, true);
    for (const features of [2 ** 31 - 1, 2 ** 32 - 1]) {
      expect(() => crfsuiteModelFromBytes(patched(offFeatures + 8, features), "x")).toThrow(
        /feature table \(\d+ features\) at byte \d+ \(\d+ bytes\) runs past the end/,
      );
    }
    for (const weight of [Number.NaN, Number.POSITIVE_INFINITY, 1e308, -1e12]) {
      const copy = bytes.slice();
      new DataView(copy.buffer).setFloat64(offFeatures + 12 + 12, weight, true);
      expect(() => crfsuiteModelFromBytes(copy, "x")).toThrow(
        /x: feature 0 has the weight .*; expected a finite number of magnitude at most 1000000000/,
      );
    }
  });

  it("fails only with ModelFileError on truncated or flipped bytes (fuzz)", () => {
    const bytes = crfsuiteModelToBytes(randomModel(8, false));
    const onlyModelFileErrors = (input: Uint8Array) => {
      try {
        crfsuiteModelFromBytes(input, "fuzz.crfsuite");
      } catch (error) {
        if (!(error instanceof ModelFileError)) throw error;
        expect(error.message.startsWith("fuzz.crfsuite: ")).toBe(true);
      }
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (cut) => {
        onlyModelFileErrors(bytes.subarray(0, cut));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: bytes.length - 1 }),
            value: fc.integer({ min: 0, max: 255 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (flips) => {
          const copy = bytes.slice();
          for (const { at, value } of flips) copy[at] = value;
          onlyModelFileErrors(copy);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
