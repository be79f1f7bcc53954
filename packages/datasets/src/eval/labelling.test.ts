import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateChunks, evaluateSegments } from "./chunks.js";
import { evaluateConllText } from "./conlleval.js";
import {
  LabellingScorer,
  posFieldOf,
  renderLabellingScore,
  scoreConlluTagging,
  scoreLabelling,
  scoreTagging,
} from "./labelling.js";

const labelling = (labels: readonly string[]) =>
  fc.array(fc.array(fc.constantFrom(...labels), { minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 6,
  });
const pairs = (labels: readonly string[]) =>
  labelling(labels).chain((gold) =>
    fc.tuple(
      fc.constant(gold),
      fc.tuple(
        ...gold.map((g) =>
          fc.array(fc.constantFrom(...labels), { minLength: g.length, maxLength: g.length }),
        ),
      ),
    ),
  );

const asConll = (gold: string[][], predicted: string[][]) =>
  gold
    .map((g, s) => `${g.map((label, i) => `w ${label} ${predicted[s]![i]}`).join("\n")}\n\n`)
    .join("");

describe("scoreLabelling", () => {
  it("IOB2 chunks: exactly conlleval's figures on the same labels written as a file", () => {
    fc.assert(
      fc.property(pairs(["O", "B-A", "I-A", "B-B", "I-B"]), ([gold, predicted]) => {
        const score = scoreLabelling(gold, predicted, "IOB2");
        expect(score.kind).toBe("chunk-f1");
        if (score.kind !== "chunk-f1") return;
        expect(score.counting).toBe("conlleval");
        expect(score.evaluation).toEqual(evaluateConllText(asConll(gold, predicted)));
      }),
    );
  });

  it("BIOES chunks by their spans; hierarchical BIO per field; tags by token accuracy", () => {
    fc.assert(
      fc.property(pairs(["O", "B-A", "I-A", "E-A", "S-A", "S-B"]), ([gold, predicted]) => {
        const score = scoreLabelling(gold, predicted, "BIOES");
        if (score.kind !== "chunk-f1") throw new Error("expected chunk F1");
        expect(score.counting).toBe("spans");
        expect(score.evaluation).toEqual(evaluateChunks(gold, predicted, { scheme: "BIOES" }));
      }),
    );
    const gold = [["B-a/B-x", "I-a/B-y", "O"]];
    const predicted = [["B-a/B-x", "I-a/I-x", "O"]];
    const tree = scoreLabelling(gold, predicted);
    if (tree.kind !== "chunk-f1") throw new Error("expected chunk F1");
    expect(tree.scheme).toBe("hierarchical-BIO");
    expect(tree.evaluation).toEqual(evaluateSegments(gold, predicted));
    expect(scoreLabelling([["NN", "VB"]], [["NN", "NN"]])).toEqual({
      kind: "accuracy",
      tokens: 2,
      correct: 1,
      accuracy: 0.5,
    });
  });

  it("one sentence at a time gives the whole corpus's score", () => {
    fc.assert(
      fc.property(pairs(["O", "B-A", "I-A", "S-A"]), ([gold, predicted]) => {
        for (const scheme of ["IOB1", "BIOES", "none"] as const) {
          const scorer = new LabellingScorer(scheme);
          for (let s = 0; s < gold.length; s++) scorer.add(gold[s]!, predicted[s]!);
          expect(scorer.score()).toEqual(scoreLabelling(gold, predicted, scheme));
        }
      }),
    );
    expect(() => new LabellingScorer("none").add(["A"], [])).toThrow(
      /sentence 1: 1 gold labels but 0 predicted/,
    );
  });

  it("renders what it scored", () => {
    expect(
      renderLabellingScore(
        scoreLabelling([["NN", "VB"]], [["NN", "NN"]], "none", { column: "XPOS" }),
      ),
    ).toBe("XPOS token accuracy 50.00% (1/2 tokens)");
    expect(renderLabellingScore(scoreLabelling([["B-A", "I-A", "O"]], [["B-A", "I-A", "O"]]))).toBe(
      "chunk F1 100.00 (IOB2, conlleval; precision 100.00%, recall 100.00%, 1 gold chunks; token accuracy 100.00%)",
    );
  });
});

describe("CoNLL-U taggings", () => {
  const upos = [["NOUN", "VERB", "PUNCT"]];
  const xpos = [["NN", "VBZ", "."]];

  it("are scored against the POS field whose tags they are", () => {
    expect(posFieldOf(upos, xpos, [["NN", "VBD", "."]])).toBe("XPOS");
    expect(posFieldOf(upos, xpos, [["NOUN", "NOUN", "PUNCT"]])).toBe("UPOS");
    expect(posFieldOf(upos, xpos, [["?", "?", "?"]])).toBe("UPOS");
    expect(scoreConlluTagging(upos, xpos, [["NN", "VBD", "."]])).toMatchObject({
      column: "XPOS",
      correct: 2,
    });
    expect(scoreConlluTagging(upos, xpos, [["NN", "VBD", "."]], "UPOS")).toMatchObject({
      column: "UPOS",
      correct: 0,
    });
  });

  it("scoreTagging reads the corpus's columns by its format; no gold, no score", () => {
    const columns = [
      ["1", "2", "3"],
      ["Dogs", "bark", "."],
      ["dog", "bark", "."],
      upos[0]!,
      xpos[0]!,
      ["_", "_", "_"],
      ["2", "0", "2"],
      ["nsubj", "root", "punct"],
      ["_", "_", "_"],
      ["SpaceAfter=No", "_", "_"],
    ];
    const sentence = { tokens: columns[1]!, columns, labels: columns[3]! };
    expect(scoreTagging("conllu", [sentence], [["NOUN", "VERB", "X"]])).toMatchObject({
      column: "UPOS",
      correct: 2,
      tokens: 3,
    });
    const { labels: _, ...unlabeled } = sentence;
    expect(scoreTagging("conllu", [unlabeled], [["NOUN", "VERB", "X"]])).toBeUndefined();
    const tokens = ["a", "b"];
    const gold = ["B-A", "I-A"];
    expect(
      scoreTagging("conll", [{ tokens, labels: gold, columns: [tokens, gold] }], [["B-A", "O"]]),
    ).toMatchObject({ kind: "chunk-f1", scheme: "IOB2" });
  });
});
