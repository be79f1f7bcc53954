import { describe, expect, it } from "vitest";
import { evaluateSegments } from "./chunks.js";
import { evaluateConllText } from "./conlleval.js";
import { readTaggedConllu, scoreLabelColumns } from "./prediction-file.js";

const word = (id: number, upos: string, xpos: string, head: string, predicted: string) =>
  `${id}\tw${id}\tw\t${upos}\t${xpos}\t_\t${head}\tdep\t_\t_ ${predicted}`;

describe("scoreLabelColumns", () => {
  it("IOB2: conlleval's own figures", () => {
    const text = "a B-NP B-NP\nb I-NP O\nc O O\n\nd B-VP B-VP\n";
    expect(scoreLabelColumns(text, { file: "f" })).toEqual({
      kind: "chunks",
      evaluation: evaluateConllText(text, { file: "f" }),
    });
  });

  it("BIOES: chunks read by their spans, not as conlleval reads S-", () => {
    const text = "Ann S-PER S-PER\nBob S-PER S-PER\n\n";
    const score = scoreLabelColumns(text, { file: "f" });
    expect(score.kind).toBe("chunks");
    expect(score.evaluation.goldChunks).toBe(2);
    expect(evaluateConllText(text).goldChunks).toBe(1);
    // Forced flat: conlleval's reading.
    const flat = scoreLabelColumns(text, { file: "f", hierarchical: false });
    expect(flat.evaluation.goldChunks).toBe(1);
  });

  it("hierarchical labels: segments at every level, by default or forced", () => {
    const text = "A B-a/B-p B-a/B-p\nB I-a/I-p I-a/B-p\n\nC B-t O\n";
    const gold = [["B-a/B-p", "I-a/I-p"], ["B-t"]];
    const predicted = [["B-a/B-p", "I-a/B-p"], ["O"]];
    const expected = { kind: "segments", evaluation: evaluateSegments(gold, predicted) };
    expect(scoreLabelColumns(text, { file: "f" })).toEqual(expected);
    expect(scoreLabelColumns("x B-NP B-NP\n", { hierarchical: true }).kind).toBe("segments");
  });

  it("a line of one column: conlleval's error, or with --hierarchical the columns' own", () => {
    const text = "a B-NP B-NP\nb\n";
    expect(() => scoreLabelColumns(text, { file: "f" })).toThrow(/^f:2: unexpected number/);
    expect(() => scoreLabelColumns(text, { file: "f", hierarchical: true })).toThrow(
      "f:2: expected at least 2 columns (gold, prediction), got 1",
    );
  });
});

describe("readTaggedConllu", () => {
  it("reads UPOS, XPOS and the prediction from the end of each word line", () => {
    const text = `# c\n${word(1, "DET", "DT", "2", "DET")}\n${word(2, "NOUN", "NN", "0", "X")}\n\n${word(1, "VERB", "VB", "_", "VERB")}\n`;
    expect(readTaggedConllu(text, "f")).toEqual({
      upos: [["DET", "NOUN"], ["VERB"]],
      xpos: [["DT", "NN"], ["VB"]],
      predicted: [["DET", "X"], ["VERB"]],
    });
  });

  it("undefined for CoNLL columns unless forced; forced, bad input at file:line", () => {
    expect(readTaggedConllu("a B-NP B-NP\n", "f")).toBeUndefined();
    expect(() => readTaggedConllu("a B-NP B-NP\n", "f", true)).toThrow(
      'f:1: found 3 fields starting with "a": expected',
    );
    expect(() => readTaggedConllu("# only\n\n", "f", true)).toThrow(
      "f: no word line: expected lagrange tag's output of CoNLL-U",
    );
  });

  it("a later line that is no word line is bad input at its line", () => {
    const text = `${word(1, "DET", "DT", "0", "DET")}\n\n1-2\tdont\t_\t_\t_\t_\t_\t_\t_\t_\n`;
    expect(() => readTaggedConllu(text, "f")).toThrow('f:3: found 10 fields starting with "1-2"');
  });
});
