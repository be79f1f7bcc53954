import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AttributeSequenceBuilder,
  attributeNames,
  fromAttributeLists,
  toAttributeLists,
} from "./builder.js";
import { citationPreset } from "./citation.js";
import { FeatureInputError } from "./errors.js";
import { nerPreset } from "./ner.js";
import { getPreset, presets } from "./presets.js";
import type { AttributeSequence, Rows } from "./types.js";

function collect(
  preset: { emit: (rows: Rows, sink: AttributeSequenceBuilder) => void },
  rows: Rows,
) {
  const builder = new AttributeSequenceBuilder();
  builder.begin(rows.length);
  preset.emit(rows, builder);
  return builder.finish();
}

function plain(sequence: AttributeSequence) {
  return {
    length: sequence.length,
    state: toAttributeLists(sequence),
    transition: sequence.transition === null ? null : toAttributeLists(sequence.transition),
  };
}

describe("ner preset (CRFsuite example/ner.py)", () => {
  const ner = nerPreset();

  it("gives ner.py's observations of 'U.S.' (worked out by hand from the script)", () => {
    const names = attributeNames(ner.extract([["U.S.", "NNP", "I-NP"]]))[0];
    expect(names).toEqual([
      "w[0]=U.S.",
      "wl[0]=u.s.",
      "pos[0]=NNP",
      "chk[0]=I-NP",
      "shape[0]=U.U.",
      "shaped[0]=U.U.",
      "type[0]=AllUpperDigit",
      "p1[0]=U",
      "p2[0]=U.",
      "p3[0]=U.S",
      "p4[0]=U.S.",
      "s1[0]=.",
      "s2[0]=S.",
      "s3[0]=.S.",
      "s4[0]=U.S.",
      "2d[0]=no",
      "4d[0]=no",
      "d&a[0]=no",
      "d&-[0]=no",
      "d&/[0]=no",
      "d&,[0]=no",
      "d&.[0]=no",
      "up[0]=no",
      "iu[0]=yes",
      "au[0]=yes",
      "al[0]=no",
      "ad[0]=no",
      "ao[0]=no",
      "cu[0]=yes",
      "cl[0]=no",
      "ca[0]=yes",
      "cd[0]=no",
      "cs[0]=yes",
      "__BOS__",
      "__EOS__",
    ]);
  });

  it("gives ner.py's values for digits, initials and short words", () => {
    const rows: Rows = [
      ["1,000", "CD", "I-NP"],
      ["J.", "NNP", "I-NP"],
      ["of", "IN", "I-PP"],
      ["1996", "CD", "I-NP"],
      ["-", ":", "O"],
    ];
    const names = attributeNames(ner.extract(rows));
    expect(names[0]).toEqual(
      expect.arrayContaining([
        "shape[0]=D.DDD",
        "shaped[0]=D.D",
        "type[0]=AllDigit",
        "d&,[0]=yes",
        "ad[0]=no",
        "cd[0]=yes",
        "iu[0]=no",
      ]),
    );
    expect(names[1]).toEqual(
      expect.arrayContaining(["up[0]=yes", "type[0]=AllUpperDigit", "p3[0]=", "s4[0]="]),
    );
    expect(names[2]).toEqual(expect.arrayContaining(["al[0]=yes", "type[0]=AllLetter"]));
    expect(names[3]).toEqual(
      expect.arrayContaining(["4d[0]=yes", "ad[0]=yes", "type[0]=AllDigit", "2d[0]=no"]),
    );
    expect(names[4]).toEqual(
      expect.arrayContaining([
        "ao[0]=yes",
        "type[0]=AllSymbol",
        "shape[0]=-",
        "pos[0]=__COLON__",
        // ner.py's contains_symbol is always true for a non-empty token.
        "cs[0]=yes",
      ]),
    );
    expect(names[2]).toContain("w[-1]|w[0]=J.|of");
    expect(names[2]).toContain("type[0]|type[1]=AllLetter|AllDigit");
    // Disjunctive windows, nearest last on the left, nearest first on the right.
    expect(names[4]!.filter((a) => a.startsWith("w[-4..-1]="))).toEqual([
      "w[-4..-1]=1,000",
      "w[-4..-1]=J.",
      "w[-4..-1]=of",
      "w[-4..-1]=1996",
    ]);
    expect(names[0]!.filter((a) => a.startsWith("w[1..4]="))).toHaveLength(4);
  });

  it("has 33×5 unigram + 5×4 bigram + 8 disjunctive attributes on an interior token", () => {
    const rows: Rows = Array.from({ length: 9 }, (_, k) => [`w${k}`, "NN", "I-NP"]);
    const { offsets } = ner.extract(rows);
    expect(offsets[5]! - offsets[4]!).toBe(33 * 5 + 5 * 4 + 8);
  });
});

describe("citation preset", () => {
  const rows: Rows = [
    "E.",
    "Montroll",
    ",",
    "Proc.",
    "Phys.",
    "Soc.",
    "(1991)",
    "61--205",
    ".",
  ].map((w) => [w]);

  it("flags years, page ranges, punctuation, lexicon words and segment starts", () => {
    const names = attributeNames(citationPreset().extract(rows));
    expect(names[0]).toEqual(
      expect.arrayContaining(["w=e.", "cap=all", "initials", "segstart", "__BOS__", "bin=0"]),
    );
    expect(names[2]).toEqual(expect.arrayContaining(["punct", "w=,", "lex[1]:venue"]));
    expect(names[3]).toEqual(
      expect.arrayContaining(["lex:venue", "segstart", "cap=init", "ends=.", "p4=proc", "s1=."]),
    );
    expect(names[6]).toEqual(
      expect.arrayContaining(["year", "digits=some", "digits=4", "open-bracket", "close-bracket"]),
    );
    expect(names[7]).toEqual(expect.arrayContaining(["range", "bin=7"]));
    expect(names[8]).toEqual(expect.arrayContaining(["punct", "__EOS__", "bin=8"]));
    // Initials and capitalised abbreviations sit inside a field: no boundary after them.
    expect(names[1]).not.toContain("segstart");
    expect(names[4]).not.toContain("segstart");
    expect(names[3]).toContain("segstart");
  });

  it("bins the relative position into the requested number of bins", () => {
    const bins = (n: number, k: number) =>
      attributeNames(citationPreset({ positionBins: k }).extract(rows.slice(0, n))).map(
        (token) => token.find((a) => a.startsWith("bin="))!,
      );
    expect(bins(9, 3)).toEqual([
      "bin=0",
      "bin=0",
      "bin=0",
      "bin=1",
      "bin=1",
      "bin=1",
      "bin=2",
      "bin=2",
      "bin=2",
    ]);
    expect(() => citationPreset({ positionBins: 0 })).toThrow(/positionBins/);
  });

  it("adds lex:<name> attributes for user lexicons and can drop the built-in ones", () => {
    const preset = citationPreset({
      lexicons: { city: new Set(["Amsterdam", "new"]) },
      builtinLexicons: false,
    });
    const names = attributeNames(preset.extract([["Amsterdam"], [","], ["Proc."]]));
    expect(names[0]).toContain("lex:city");
    expect(names[1]).toContain("lex[-1]:city");
    expect(names.flat().some((a) => a.includes("venue"))).toBe(false);
    expect(() => citationPreset({ lexicons: { "": new Set(["a"]) } })).toThrow(/non-empty name/);
  });
});

describe("every preset", () => {
  const word = fc.string({ maxLength: 6, unit: "binary" });
  const rows = fc.array(fc.tuple(word, word, word), { maxLength: 8 });
  const names = Object.keys(presets) as (keyof typeof presets)[];

  it("is deterministic, pushes what it lists, and never produces an empty name (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...names), rows, (name, sentence) => {
        const preset = presets[name];
        const first = preset.extract(sentence);
        const second = preset.extract(sentence.map((row) => [...row]));
        expect(plain(second)).toEqual(plain(first));
        expect(plain(collect(preset, sentence))).toEqual(plain(first));
        expect(first.length).toBe(sentence.length);
        expect(first.offsets.length).toBe(sentence.length + 1);
        expect(first.offsets[sentence.length]).toBe(first.names.length);
        const emptyTokens = [];
        for (let t = 0; t < sentence.length; t++) {
          if (first.offsets[t + 1]! <= first.offsets[t]!) emptyTokens.push(t);
        }
        expect(emptyTokens).toEqual([]);
        expect(first.names.filter((a) => typeof a !== "string" || a.length === 0)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it("declares its columns and rejects rows with fewer", () => {
    for (const name of names) {
      const preset = getPreset(name);
      expect(preset.name).toBe(name);
      expect(preset.description.length).toBeGreaterThan(0);
      const short = [preset.columns.slice(1).map(() => "x")];
      expect(() => preset.extract(short)).toThrow(FeatureInputError);
    }
    expect(() => getPreset("chunker")).toThrow(/unknown feature preset "chunker".*chunking, ner/);
  });
});

describe("attribute lists", () => {
  it("takes CRFsuite-style attributes, weighted or not, and gives them back", () => {
    const sequence = fromAttributeLists([
      ["w[0]=a", { name: "len", value: 0.5 }],
      [],
      [{ name: "w[0]=c", value: 1 }],
    ]);
    expect(sequence.length).toBe(3);
    expect(Array.from(sequence.offsets)).toEqual([0, 2, 2, 3]);
    expect(Array.from(sequence.values!)).toEqual([1, 0.5, 1]);
    expect(toAttributeLists(sequence)).toEqual([
      [
        { name: "w[0]=a", value: 1 },
        { name: "len", value: 0.5 },
      ],
      [],
      [{ name: "w[0]=c", value: 1 }],
    ]);
    expect(fromAttributeLists([["a"], ["b"]]).values).toBeNull();
    expect(() => fromAttributeLists([[""]])).toThrow(/token 0: empty attribute name/);
    expect(() => fromAttributeLists([[{ name: "x", value: Number.NaN }]])).toThrow(/finite/);
  });

  it("refuses attributes pushed out of token order", () => {
    const builder = new AttributeSequenceBuilder();
    builder.begin(3);
    builder.state(1, "a", 1);
    expect(() => builder.state(0, "b", 1)).toThrow(/non-decreasing/);
    expect(() => builder.state(3, "b", 1)).toThrow(RangeError);
    expect(() => builder.transition(0, "b", 1)).toThrow(/into token 1/);
  });
});
