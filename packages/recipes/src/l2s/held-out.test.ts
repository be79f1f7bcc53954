import type { Corpus } from "@lagrange/datasets";
import { parseConll, parseConllu } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import { dependencyScores, heldOutTrees, scoreL2sParser, scoreL2sTagger } from "./held-out.js";
import { l2sParserOf, trainL2sParser } from "./parser.js";
import { l2sTaggerOf, trainL2sTagger } from "./tagger.js";

/** "the dog sees a cat ." as CoNLL-U, with its tree; `heads: false` leaves every HEAD `_`. */
function sentence(id: number, heads = true): string {
  const rows = [
    ["the", "DET", 2, "det"],
    ["dog", "NOUN", 3, "nsubj"],
    ["sees", "VERB", 0, "root"],
    ["a", "DET", 5, "det"],
    ["cat", "NOUN", 3, "obj"],
    [".", "PUNCT", 3, "punct"],
  ] as const;
  const lines = rows.map(
    ([form, pos, head, rel], i) =>
      `${i + 1}\t${form}\t${form}\t${pos}\t_\t_\t${heads ? head : "_"}\t${heads ? rel : "_"}\t_\t_`,
  );
  return `# sent_id = s${id}\n${lines.join("\n")}\n\n`;
}

function conllu(text: string, label: string): Corpus {
  return { label, format: "conllu", sentences: parseConllu(text, { file: label }), scheme: "none" };
}

describe("an L2S parser's held-out scores", () => {
  it("leave out sentences without a gold tree, and score with and without punctuation", async () => {
    const train = conllu([1, 2, 3, 4].map((k) => sentence(k)).join(""), "train.conllu");
    const dev = conllu(sentence(5) + sentence(6, false), "dev.conllu");
    const { trees, total } = heldOutTrees(dev, "UPOS");
    expect([trees.length, total]).toEqual([1, 2]);
    const same = dependencyScores(trees, trees);
    expect([same.include.uas, same.include.tokens, same.exclude.tokens]).toEqual([1, 6, 5]);
    const trained = await trainL2sParser(train, {
      passes: 3,
      learner: { kind: "perceptron", bits: 12 },
    });
    const scores = scoreL2sParser(l2sParserOf(trained.model), trees);
    expect(scores.include.tokens).toBe(6);
    expect(scores.exclude.uas).toBeGreaterThanOrEqual(0);
  });
});

describe("an L2S tagger's held-out scores", () => {
  it("are token accuracy and chunk F1 under the tagger's scheme", async () => {
    const text = Array.from({ length: 6 }, () => "Anna\tB-PER\nBerg\tI-PER\nsleeps\tO\n").join(
      "\n",
    );
    const train: Corpus = {
      label: "ner.conll",
      format: "conll",
      sentences: parseConll(text, { file: "ner.conll" }),
      scheme: "IOB2",
    };
    const trained = await trainL2sTagger(train, {
      preset: "ner-words",
      passes: 3,
      learner: { kind: "csoaa", bits: 12 },
    });
    const scores = scoreL2sTagger(l2sTaggerOf(trained.model), train);
    expect(scores.tokenAccuracy).toBe(1);
    expect(scores.f1).toBe(1);
  });
});
