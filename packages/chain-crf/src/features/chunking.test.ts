import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attributeNames } from "./builder.js";
import { CHUNKING_TEMPLATES, chunkingPreset } from "./chunking.js";
import { FeatureInputError } from "./errors.js";
import { FieldTemplateSet } from "./field-templates.js";
import type { Rows } from "./types.js";

const SENTENCE: Rows = [
  ["Confidence", "NN"],
  ["in", "IN"],
  ["the", "DT"],
  ["pound", "NN"],
  ["is", "VBZ"],
];

// Worked out by hand from chunking.py: template order, a template is dropped when one of its
// offsets leaves the sentence, names are '|'.join('%s[%d]'), values '|'.join, then __BOS__/__EOS__.
const EXPECTED: string[][] = [
  [
    "w[0]=Confidence",
    "w[1]=in",
    "w[2]=the",
    "w[0]|w[1]=Confidence|in",
    "pos[0]=NN",
    "pos[1]=IN",
    "pos[2]=DT",
    "pos[0]|pos[1]=NN|IN",
    "pos[1]|pos[2]=IN|DT",
    "pos[0]|pos[1]|pos[2]=NN|IN|DT",
    "__BOS__",
  ],
  [
    "w[-1]=Confidence",
    "w[0]=in",
    "w[1]=the",
    "w[2]=pound",
    "w[-1]|w[0]=Confidence|in",
    "w[0]|w[1]=in|the",
    "pos[-1]=NN",
    "pos[0]=IN",
    "pos[1]=DT",
    "pos[2]=NN",
    "pos[-1]|pos[0]=NN|IN",
    "pos[0]|pos[1]=IN|DT",
    "pos[1]|pos[2]=DT|NN",
    "pos[-1]|pos[0]|pos[1]=NN|IN|DT",
    "pos[0]|pos[1]|pos[2]=IN|DT|NN",
  ],
  [
    "w[-2]=Confidence",
    "w[-1]=in",
    "w[0]=the",
    "w[1]=pound",
    "w[2]=is",
    "w[-1]|w[0]=in|the",
    "w[0]|w[1]=the|pound",
    "pos[-2]=NN",
    "pos[-1]=IN",
    "pos[0]=DT",
    "pos[1]=NN",
    "pos[2]=VBZ",
    "pos[-2]|pos[-1]=NN|IN",
    "pos[-1]|pos[0]=IN|DT",
    "pos[0]|pos[1]=DT|NN",
    "pos[1]|pos[2]=NN|VBZ",
    "pos[-2]|pos[-1]|pos[0]=NN|IN|DT",
    "pos[-1]|pos[0]|pos[1]=IN|DT|NN",
    "pos[0]|pos[1]|pos[2]=DT|NN|VBZ",
  ],
  [
    "w[-2]=in",
    "w[-1]=the",
    "w[0]=pound",
    "w[1]=is",
    "w[-1]|w[0]=the|pound",
    "w[0]|w[1]=pound|is",
    "pos[-2]=IN",
    "pos[-1]=DT",
    "pos[0]=NN",
    "pos[1]=VBZ",
    "pos[-2]|pos[-1]=IN|DT",
    "pos[-1]|pos[0]=DT|NN",
    "pos[0]|pos[1]=NN|VBZ",
    "pos[-2]|pos[-1]|pos[0]=IN|DT|NN",
    "pos[-1]|pos[0]|pos[1]=DT|NN|VBZ",
  ],
  [
    "w[-2]=the",
    "w[-1]=pound",
    "w[0]=is",
    "w[-1]|w[0]=pound|is",
    "pos[-2]=DT",
    "pos[-1]=NN",
    "pos[0]=VBZ",
    "pos[-2]|pos[-1]=DT|NN",
    "pos[-1]|pos[0]=NN|VBZ",
    "pos[-2]|pos[-1]|pos[0]=DT|NN|VBZ",
    "__EOS__",
  ],
];

/** A literal port of CRFsuite's template.apply + chunking.py's feature_extractor (template-major). */
function chunkingPy(rows: Rows, escaping: boolean): string[][] {
  const X = rows.map((row) => ({ w: row[0]!, pos: row[1]!, F: [] as string[] }));
  for (const template of CHUNKING_TEMPLATES) {
    const name = template.map(([f, o]) => `${f}[${o}]`).join("|");
    for (let t = 0; t < X.length; t++) {
      let values: string[] = [];
      for (const [field, offset] of template) {
        const p = t + offset;
        if (p < 0 || p >= X.length) {
          values = [];
          break;
        }
        values.push(X[p]![field as "w" | "pos"]);
      }
      if (values.length > 0) X[t]!.F.push(`${name}=${values.join("|")}`);
    }
  }
  if (X.length > 0) {
    X[0]!.F.push("__BOS__");
    X.at(-1)!.F.push("__EOS__");
  }
  return X.map((x) => (escaping ? x.F.map((a) => a.split(":").join("__COLON__")) : x.F));
}

describe("chunking preset", () => {
  const preset = chunkingPreset();

  it("gives chunking.py's attributes on a hand-worked sentence", () => {
    const sequence = preset.extract(SENTENCE);
    expect(attributeNames(sequence)).toEqual(EXPECTED);
    expect(sequence.values).toBeNull();
    expect(sequence.transition).toBeNull();
  });

  it("marks a one-token sentence with both __BOS__ and __EOS__", () => {
    expect(attributeNames(preset.extract([["Hello", "UH"]]))).toEqual([
      ["w[0]=Hello", "pos[0]=UH", "__BOS__", "__EOS__"],
    ]);
  });

  it("escapes ':' as chunking.py's output does, unless asked not to", () => {
    const rows: Rows = [
      ["rates", "NNS"],
      [":", ":"],
    ];
    expect(attributeNames(preset.extract(rows))[1]).toEqual([
      "w[-1]=rates",
      "w[0]=__COLON__",
      "w[-1]|w[0]=rates|__COLON__",
      "pos[-1]=NNS",
      "pos[0]=__COLON__",
      "pos[-1]|pos[0]=NNS|__COLON__",
      "__EOS__",
    ]);
    const raw = chunkingPreset({ escapeColons: false }).extract(rows);
    expect(attributeNames(raw)[1]).toContain("pos[-1]|pos[0]=NNS|:");
  });

  it("rejects a token without a POS column", () => {
    expect(() => preset.extract([["a", "DT"], ["b"]])).toThrow(FeatureInputError);
    expect(() => preset.extract([["a", "DT"], ["b"]])).toThrow(
      /chunking: token 1: has 1 column\(s\); expected 2: word, pos/,
    );
  });

  const token = fc.string({
    minLength: 1,
    maxLength: 3,
    unit: fc.constantFrom("a", "B", ":", "|"),
  });
  const sentence = fc.array(fc.tuple(token, token), { maxLength: 10 });

  it("agrees with a literal port of chunking.py (property)", () => {
    fc.assert(
      fc.property(sentence, fc.boolean(), (rows, escaping) => {
        const sequence = chunkingPreset({ escapeColons: escaping }).extract(rows);
        expect(attributeNames(sequence)).toEqual(chunkingPy(rows, escaping));
      }),
    );
  });

  it("gives every token 19 attributes, fewer only within two tokens of an end (property)", () => {
    fc.assert(
      fc.property(sentence, (rows) => {
        const { offsets } = preset.extract(rows);
        const n = rows.length;
        for (let t = 0; t < n; t++) {
          const count = offsets[t + 1]! - offsets[t]!;
          const interior = t >= 2 && t <= n - 3;
          if (interior) expect(count).toBe(19);
          else expect(count).toBeLessThan(19 + (t === 0 ? 1 : 0) + (t === n - 1 ? 1 : 0));
          // The distance to each end (capped at 2) decides which templates fit.
          const left = Math.min(t, 2);
          const right = Math.min(n - 1 - t, 2);
          let fitting = 0;
          for (const template of CHUNKING_TEMPLATES) {
            const offs = template.map(([, o]) => o);
            if (-Math.min(...offs) <= left && Math.max(...offs) <= right) fitting++;
          }
          expect(count).toBe(fitting + (t === 0 ? 1 : 0) + (t === n - 1 ? 1 : 0));
        }
      }),
    );
  });

  it("hands out one string object per distinct attribute, and stays right when its cache starts over", () => {
    const first = preset.extract(SENTENCE).names;
    const second = preset.extract(SENTENCE.map((row) => [...row])).names;
    expect(second.every((name, k) => Object.is(name, first[k]))).toBe(true);

    const tiny = new FieldTemplateSet(CHUNKING_TEMPLATES, ["w", "pos"], 7);
    fc.assert(
      fc.property(sentence, (rows) => {
        const names: string[][] = rows.map(() => []);
        const sink = {
          state: (t: number, name: string) => names[t]!.push(name),
          transition: () => {},
        };
        const values = [rows.map((row) => row[0]), rows.map((row) => row[1])];
        for (let t = 0; t < rows.length; t++) tiny.apply(values, rows.length, t, sink);
        const expected = chunkingPy(rows, false).map((token) =>
          token.filter((a) => a !== "__BOS__" && a !== "__EOS__"),
        );
        expect(names).toEqual(expected);
      }),
    );
  });
});
