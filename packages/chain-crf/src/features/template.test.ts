import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attributeNames } from "./builder.js";
import { CHUNKING_TEMPLATES, chunkingPreset } from "./chunking.js";
import { FeatureInputError, TemplateSyntaxError } from "./errors.js";
import { expandMacro, parseTemplate } from "./template.js";
import type { Rows } from "./types.js";

// The sentence of CRF++'s documentation (index.html, "Preparing feature templates").
const DOC_ROWS: Rows = [
  ["He", "PRP"],
  ["reckons", "VBZ"],
  ["the", "DT"],
  ["current", "JJ"],
  ["account", "NN"],
];

describe("expandMacro", () => {
  it("gives the cells of CRF++'s documented example around 'the'", () => {
    expect(expandMacro(DOC_ROWS, 2, 0, 0)).toBe("the");
    expect(expandMacro(DOC_ROWS, 2, 0, 1)).toBe("DT");
    expect(expandMacro(DOC_ROWS, 2, -1, 0)).toBe("reckons");
    expect(expandMacro(DOC_ROWS, 2, -2, 1)).toBe("PRP");
  });

  it("gives _B-k before the sentence and _B+k after it", () => {
    expect(expandMacro(DOC_ROWS, 0, -1, 0)).toBe("_B-1");
    expect(expandMacro(DOC_ROWS, 0, -2, 1)).toBe("_B-2");
    expect(expandMacro(DOC_ROWS, 1, -3, 0)).toBe("_B-2");
    expect(expandMacro(DOC_ROWS, 4, 1, 0)).toBe("_B+1");
    expect(expandMacro(DOC_ROWS, 4, 2, 1)).toBe("_B+2");
    expect(expandMacro(DOC_ROWS, 3, 8, 0)).toBe("_B+7");
  });
});

describe("parseTemplate", () => {
  it("expands CRF++'s documented templates, literal text included", () => {
    const template = parseTemplate(
      [
        "# Unigram",
        "U00:%x[0,0]",
        "U01:%x[0,1]",
        "U02:%x[-1,0]",
        "U03:%x[-2,1]",
        "U04:%x[0,0]/%x[0,1]",
        "U05:ABC%x[0,1]123",
        "",
        "# Bigram",
        "B",
      ].join("\n"),
    );
    const names = attributeNames(template.extract(DOC_ROWS));
    expect(names[2]).toEqual([
      "U00:the",
      "U01:DT",
      "U02:reckons",
      "U03:PRP",
      "U04:the/DT",
      "U05:ABCDT123",
    ]);
    expect(names[0]).toEqual([
      "U00:He",
      "U01:PRP",
      "U02:_B-1",
      "U03:_B-2",
      "U04:He/PRP",
      "U05:ABCPRP123",
    ]);
    expect(template.labelBigram).toBe(true);
    expect(template.bigram).toHaveLength(0);
    expect(template.extract(DOC_ROWS).transition).toBeNull();
    expect(template.minColumns).toBe(2);
  });

  it("puts observation-conditioned B lines on the transitions into tokens 1…n−1", () => {
    const template = parseTemplate("U00:%x[0,0]\nB00:%x[-1,1]/%x[0,1]\n");
    expect(template.labelBigram).toBe(false);
    const sequence = template.extract(DOC_ROWS);
    const transitions = attributeNames(sequence.transition!);
    expect(transitions).toEqual([
      [],
      ["B00:PRP/VBZ"],
      ["B00:VBZ/DT"],
      ["B00:DT/JJ"],
      ["B00:JJ/NN"],
    ]);
  });

  it("keeps a U line without macros as a constant attribute on every token", () => {
    const names = attributeNames(parseTemplate("U\n").extract(DOC_ROWS));
    expect(names).toEqual(DOC_ROWS.map(() => ["U"]));
  });

  it("skips comments, blank lines and trims CR and surrounding blanks", () => {
    const template = parseTemplate("# c\r\n\r\n  U1:%x[1,0]  \r\n\t\r\n#U2:%x[0,0]\r\n");
    expect(template.unigram.map((line) => [line.line, line.text])).toEqual([[3, "U1:%x[1,0]"]]);
    expect(attributeNames(template.extract(DOC_ROWS)).at(-1)).toEqual(["U1:_B+1"]);
  });

  it("handles empty sentences", () => {
    const sequence = parseTemplate("U:%x[0,0]\nB:%x[0,0]").extract([]);
    expect(sequence.length).toBe(0);
    expect(Array.from(sequence.offsets)).toEqual([0]);
  });

  const malformed: [string, number, number, RegExp][] = [
    ["U00:%x[0,0]\nU01:%x[-1]\n", 2, 10, /expected ','/],
    ["U00:%x[0,0]\n\nX02:%x[0,0]\n", 3, 1, /starting with 'U'.*'B'.*'#'.*got "X"/],
    ["U01:%y[0,0]", 1, 6, /expected 'x' after '%'/],
    ["U01:%x(0,0)", 1, 7, /expected '\[' after '%x'/],
    ["U01:%x[9,0]", 1, 5, /row offset 9 is outside CRF\+\+'s context window \[-8, 8\]/],
    ["U01:%x[0,a]", 1, 10, /column "a" is a name, but no column layout names the columns/],
    ["U01:%x[0,1", 1, 11, /expected '\]'.*got the end of the line/],
    ["U01:%x[,1]", 1, 8, /expected the row offset/],
    ["U01:%x[0,-1]", 1, 10, /expected the column index \(a non-negative integer\)/],
    ["B01:%", 1, 6, /expected 'x'/],
  ];
  for (const [text, line, column, message] of malformed) {
    it(`rejects ${JSON.stringify(text)} at line ${line}, column ${column}`, () => {
      let error: unknown;
      try {
        parseTemplate(text, { source: "t.tpl" });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TemplateSyntaxError);
      const syntax = error as TemplateSyntaxError;
      expect([syntax.line, syntax.column]).toEqual([line, column]);
      expect(syntax.message).toMatch(new RegExp(`^t\\.tpl:${line}:${column}: `));
      expect(syntax.message).toMatch(message);
    });
  }

  it("names the template line when a token has too few columns", () => {
    const template = parseTemplate("U00:%x[0,0]\nU01:%x[0,2]\n", { source: "chunk.tpl" });
    expect(() => template.extract([["a", "b"]])).toThrow(FeatureInputError);
    expect(() => template.extract([["a", "b"]])).toThrow(
      /chunk\.tpl: token 0: has 2 column\(s\) but template line 2 \(U01:%x\[0,2\]\) reads column 2/,
    );
  });

  it("agrees with a regular-expression expansion of CRF++'s rule (property)", () => {
    const reference = (line: string, rows: Rows, t: number): string =>
      line.replace(/%x\[(-?\d+),(\d+)\]/g, (_, r: string, c: string) => {
        const index = t + Number(r);
        if (index < 0) return `_B-${-index}`;
        if (index >= rows.length) return `_B+${index - rows.length + 1}`;
        return rows[index]![Number(c)]!;
      });
    const macro = fc
      .tuple(fc.integer({ min: -8, max: 8 }), fc.integer({ min: 0, max: 2 }))
      .map(([r, c]) => `%x[${r},${c}]`);
    const line = fc
      .tuple(
        fc.constantFrom("U", "B"),
        fc.array(fc.oneof(macro, fc.constantFrom("/", ":", "a", "|", "%x", "=")), {
          maxLength: 4,
        }),
      )
      .map(([kind, parts]) => {
        // "%x" alone is only kept when followed by nothing that would complete it: drop it.
        const body = parts.filter((p) => p !== "%x").join("");
        return `${kind}${body.length > 0 ? `${kind === "U" ? "0" : "1"}:${body}` : ""}`;
      });
    const word = fc.string({
      minLength: 1,
      maxLength: 4,
      unit: fc.constantFrom("a", "B", "1", "-"),
    });
    const rows = fc.array(fc.tuple(word, word, word), { maxLength: 12 });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), rows, (lines, sentence) => {
        const template = parseTemplate(lines.join("\n"));
        const sequence = template.extract(sentence);
        const state = attributeNames(sequence);
        const transition =
          sequence.transition === null ? null : attributeNames(sequence.transition);
        const uLines = lines.filter((l) => l.startsWith("U"));
        const bLines = lines.filter((l) => l.startsWith("B") && l.includes("%x["));
        for (let t = 0; t < sentence.length; t++) {
          expect(state[t]).toEqual(uLines.map((l) => reference(l, sentence, t)));
          const expected = t === 0 ? [] : bLines.map((l) => reference(l, sentence, t));
          expect(transition === null ? [] : transition[t]).toEqual(expected);
        }
        expect(template.labelBigram).toBe(
          lines.some((l) => l.startsWith("B") && !l.includes("%x[")),
        );
      }),
    );
  });
});

describe("templates over named columns against hand-written features", () => {
  // The chunking preset (CRFsuite's chunking.py, hand-written field templates) spelled as a CRF++
  // template over the layout `word, pos`: the same attribute names, except that CRF++ expands a
  // macro beyond the sentence to _B-k / _B+k where the preset gives nothing.
  const line = (fields: readonly (readonly [string, number])[]): string => {
    const name = fields.map(([f, o]) => `${f}[${o}]`).join("|");
    const value = fields.map(([f, o]) => `%x[${o},${f === "w" ? "word" : "pos"}]`).join("|");
    return `U:${name}=${value}`;
  };
  const text = CHUNKING_TEMPLATES.map(line).join("\n");
  const template = parseTemplate(text, { source: "chunking.tpl", columnNames: ["word", "pos"] });
  const chunking = chunkingPreset({ escapeColons: false });
  const word = fc.stringMatching(/^[A-Za-z.,]{1,4}$/);
  const tag = fc.constantFrom("NN", "VB", "DT", "IN");
  const rows = fc.array(fc.tuple(word, tag), { minLength: 1, maxLength: 8 });

  it("gives the hand-written preset's attributes wherever the window is inside the sentence", () => {
    fc.assert(
      fc.property(rows, (sentence) => {
        const fromTemplate = attributeNames(template.extract(sentence));
        const byHand = attributeNames(chunking.extract(sentence));
        for (let t = 0; t < sentence.length; t++) {
          const expected = byHand[t]!.filter((n) => n !== "__BOS__" && n !== "__EOS__");
          const got = fromTemplate[t]!.filter((n) => !/_B[-+]\d/.test(n)).map((n) => n.slice(2));
          expect(got).toEqual(expected);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("reads a named column where the layout puts it, and names unknown ones", () => {
    const byName = parseTemplate("U:%x[0,pos]/%x[-1,word]", { columnNames: ["word", "pos"] });
    expect(attributeNames(byName.extract(DOC_ROWS))[1]).toEqual(["U:VBZ/He"]);
    expect(byName.columns).toEqual(["word", "pos"]);
    expect(() =>
      parseTemplate("U:%x[0,chunk]", { source: "t.tpl", columnNames: ["word", "pos"] }),
    ).toThrow(/t\.tpl:1:8: unknown column "chunk"; the layout's columns are word, pos/);
  });
});
