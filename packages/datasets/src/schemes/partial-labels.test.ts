import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lagrangeErrorCode } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { openCorpus } from "../registry/corpus.js";
import { checkScheme, inferScheme, requireScheme } from "./label-scheme.js";
import { isFullyLabelled, isPartialLabelCell, parsePartialLabel } from "./partial-labels.js";
import { findViolations } from "./validity.js";

describe("parsePartialLabel", () => {
  it("reads ? as unknown, {…} as a label set, anything else as the label", () => {
    expect(parsePartialLabel("?")).toBeNull();
    expect(parsePartialLabel("{B-PER,I-PER}")).toEqual(["B-PER", "I-PER"]);
    expect(parsePartialLabel("{B-PER, I-PER,B-PER}")).toEqual(["B-PER", "I-PER"]);
    expect(parsePartialLabel("{O}")).toBe("O");
    expect(parsePartialLabel("B-PER")).toBe("B-PER");
    expect(parsePartialLabel("O")).toBe("O");
    // Only a whole cell is syntax: a label that merely contains ? or } is a label.
    expect(parsePartialLabel("B-Q?")).toBe("B-Q?");
    expect(parsePartialLabel("I-X}")).toBe("I-X}");
  });

  it("refuses malformed sets, naming the place and the expected form", () => {
    const cases: [string, RegExp][] = [
      ["{}", /an empty set allows no label/],
      ["{ }", /an empty set allows no label/],
      ["{", /expected a closing "}"/],
      ["{B-PER,I-PER", /expected a closing "}"/],
      ["{B-PER,,I-PER}", /expected a label between two commas/],
      ["{B-PER,}", /expected a label between two commas/],
      ["{B-PER,{I-PER}}", /sets do not nest/],
      ["{B-PER,?}", /\? stands alone/],
    ];
    for (const [cell, detail] of cases) {
      let caught: unknown;
      try {
        parsePartialLabel(cell, "train.conll:7");
      } catch (error) {
        caught = error;
      }
      expect(lagrangeErrorCode(caught), cell).toBe("bad-input");
      const message = (caught as Error).message;
      expect(message, cell).toMatch(/^train\.conll:7: label set /);
      expect(message, cell).toMatch(detail);
      expect(message, cell).toContain("{A,B,…}");
    }
  });

  it("isPartialLabelCell marks the cells that need partial reading", () => {
    expect(["?", "{B-PER}", "{}", "{oops"].every(isPartialLabelCell)).toBe(true);
    expect(["O", "B-PER", "??", "B-?", "x{y}"].some(isPartialLabelCell)).toBe(false);
    expect(isFullyLabelled(["O", "B-PER"])).toBe(true);
    expect(isFullyLabelled(["O", null])).toBe(false);
    expect(isFullyLabelled([["B-PER", "I-PER"]])).toBe(false);
  });
});

describe("schemes skip unknown labels and label sets", () => {
  it("checks only what the known labels fix", () => {
    // I-PER after an unknown label may continue a chunk the unknown one began.
    expect(findViolations(["O", null, "I-PER"], "IOB2")).toEqual([]);
    expect(findViolations([null, "I-PER"], "IOB2")).toEqual([]);
    expect(findViolations([["B-PER", "I-LOC"], "I-PER", "O"], "IOB2")).toEqual([]);
    // Between two known labels the scheme still holds, at the sequence's positions.
    const [violation] = findViolations([null, "O", "I-PER"], "IOB2");
    expect(violation).toMatchObject({ position: 2, kind: "transition", previous: "O" });
    expect(findViolations(["I-PER", null], "IOB2")[0]).toMatchObject({ kind: "start" });
    expect(findViolations([null, "I-PER"], "IOE2")[0]).toMatchObject({ kind: "end" });
  });

  it("reads the labels a set names (an unreadable one is unreadable)", () => {
    const check = checkScheme([["O", ["B-NP", "X-NP"]]], "IOB2");
    expect(check.unreadable).toMatchObject({ index: 0, position: 1 });
    expect(() => requireScheme([["O", ["B-NP", "X-NP"]]], "IOB2", "t")).toThrow(/X-NP/);
  });

  it("neither counts partial sequences invalid nor lets them sway inference", () => {
    const sequences = [
      ["B-PER", "I-PER", "O"],
      [null, "I-PER", "O"],
      [["B-LOC", "I-LOC"], "I-LOC", null],
      ["O", "B-LOC"],
    ];
    expect(checkScheme(sequences, "IOB2").invalid).toBe(0);
    expect(inferScheme(sequences)).toBe("IOB2");
    // Set members are evidence of prefixes: a corpus whose chunks are all sets is still chunked.
    expect(inferScheme([["O", ["B-PER", "I-PER"]]])).toBe("IOB2");
    expect(inferScheme([["NN", null, "VB"]])).toBe("none");
  });

  it("openCorpus infers a CoNLL file's scheme over its partial annotations", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-partial-"));
    try {
      const path = join(dir, "partial.conll");
      // Read as labels, `?` and `{…}` would be unreadable under every scheme.
      await writeFile(
        path,
        "John\tB-PER\nSmith\tI-PER\nran\tO\n\nMary\t?\nJones\tI-PER\nsang\t{O,B-LOC}\n\nin\tO\nRome\t{bad\n",
      );
      const corpus = await openCorpus(path);
      expect(corpus.scheme).toBe("IOB2");
      expect(corpus.sentences[1]!.labels).toEqual(["?", "I-PER", "{O,B-LOC}"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
