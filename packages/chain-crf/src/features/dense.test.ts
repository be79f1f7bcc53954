import { LagrangeError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toAttributeLists } from "./builder.js";
import { withDenseColumns } from "./dense.js";
import { FeatureInputError } from "./errors.js";
import { getPreset } from "./presets.js";
import { featureExtractor, parseFeatureSpec } from "./spec.js";
import { parseTemplate } from "./template.js";

const number = fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => String(x));

describe("dense columns", () => {
  it("add dense[c] = the cell's number; the base reads the other columns as if alone", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("The", "cat", "sat", "on", "mats"), number, number), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.constantFrom("NN", "DT", "VBD"),
        (tokens, pos) => {
          // word, d, pos, d: dense columns 2 and 4 (0-based 1 and 3) around the POS column.
          const rows = tokens.map(([word, a, b]) => [word, a, pos, b]);
          const base = getPreset("chunking");
          const dense = withDenseColumns(base, [1, 3]).extract(rows);
          const alone = toAttributeLists(base.extract(rows.map(([w, , p]) => [w!, p!])));
          const lists = toAttributeLists(dense);
          for (const [t, [, a, b]] of tokens.entries()) {
            const expected = [
              ...alone[t]!.filter((x) => x.name !== "__BOS__" && x.name !== "__EOS__"),
              { name: "dense[2]", value: Number(a) },
              { name: "dense[4]", value: Number(b) },
              ...alone[t]!.filter((x) => x.name === "__BOS__" || x.name === "__EOS__"),
            ];
            expect(lists[t]).toEqual(expected);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it("a CRF++ template numbers the columns without the dense ones", () => {
    const template = parseTemplate("U00:%x[0,0]/%x[0,1]\n", { source: "t" });
    const rows = [["dog", "0.5", "NN"]];
    const names = toAttributeLists(withDenseColumns(template, [1]).extract(rows))[0]!;
    expect(names.map((a) => a.name)).toEqual(["U00:dog/NN", "dense[2]"]);
    expect(names[1]!.value).toBe(0.5);
  });

  it("refuses a cell that is no number, and a row without every dense column, at the token", () => {
    const preset = withDenseColumns(getPreset("pos"), [1, 2]);
    for (const cell of ["abc", "", "NaN", "Infinity", "0x10", "1e10", "1,5"]) {
      const bad = () =>
        preset.extract([
          ["a", "1", "2"],
          ["b", cell, "3"],
        ]);
      expect(bad).toThrow(FeatureInputError);
      expect(bad).toThrow(/column 2 is "[^"]*"; expected a number/);
      try {
        bad();
      } catch (error) {
        expect((error as FeatureInputError).token).toBe(1);
      }
    }
    expect(() =>
      preset.extract([
        ["a", "1", "2"],
        ["b", "1"],
      ]),
    ).toThrow(/has 2 column\(s\); expected at least 3 \(dense columns 2–3\)/);
  });

  it("a two-stage spec's vote columns come after the data's, numbered without the dense ones", () => {
    // word, pos, chunk, d, d, then the votes appended (dtok, dent, ctok).
    const spec = parseFeatureSpec(
      {
        base: "ner",
        columns: ["word", "pos", "chunk"],
        dense: { columns: [3, 4] },
        votes: { first: 3 },
      },
      "m.lgm",
    );
    const names = toAttributeLists(
      featureExtractor(spec).extract([["Paris", "NNP", "I-NP", "0.5", "-1", "LOC", "LOC", "-"]]),
    )[0]!.map((a) => a.name);
    expect(names).toContain("vote:dtok=LOC");
    expect(names).toContain("vote:dent=LOC");
    expect(names).toContain("dense[4]");
    expect(names.some((n) => n.includes("0.5"))).toBe(false);
  });

  it("a feature spec records them; a model file's spec is checked", () => {
    const spec = parseFeatureSpec({ base: "pos", dense: { columns: [1, 2] } }, "m.lgm");
    const lists = toAttributeLists(featureExtractor(spec).extract([["a", "0.25", "-3"]]));
    expect(lists[0]!.filter((a) => a.name.startsWith("dense["))).toEqual([
      { name: "dense[2]", value: 0.25 },
      { name: "dense[3]", value: -3 },
    ]);
    expect(featureExtractor(spec).description).toMatch(/dense columns 2–3/);
    for (const dense of [{ columns: [0] }, { columns: [] }, { columns: [2, 2] }, { cols: [1] }]) {
      expect(() => parseFeatureSpec({ base: "pos", dense }, "m.lgm")).toThrow(LagrangeError);
    }
  });
});
