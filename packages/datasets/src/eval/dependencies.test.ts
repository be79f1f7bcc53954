import { describe, expect, it } from "vitest";
import { parseConllu } from "../formats/conllu.js";
import { AlignmentError } from "./chunks.js";
import { evaluateDependencies } from "./dependencies.js";

type Word = [form: string, upos: string, head: number | string, deprel: string];

/** CoNLL-U text of sentences given as [FORM, UPOS, HEAD, DEPREL] rows. */
function conllu(sentences: Word[][], ids?: string[]): string {
  return sentences
    .map((words, s) => {
      const comment = ids === undefined ? "" : `# sent_id = ${ids[s]}\n`;
      const rows = words.map(
        ([form, upos, head, deprel], i) =>
          `${i + 1}\t${form}\t_\t${upos}\t_\t_\t${head}\t${deprel}\t_\t_\n`,
      );
      return `${comment}${rows.join("")}\n`;
    })
    .join("");
}

const GOLD: Word[][] = [
  [
    ["Flying", "VERB", 3, "csubj"],
    ["planes", "NOUN", 1, "obj"],
    ["can", "AUX", 0, "root"],
    ["be", "AUX", 5, "cop"],
    ["dangerous", "ADJ", 3, "xcomp"],
    [".", "PUNCT", 3, "punct"],
  ],
  [
    ["Costs", "NOUN", 0, "root"],
    ["$", "SYM", 1, "obj"],
    ["5", "NUM", 2, "nummod"],
    ["--", "PUNCT", 1, "punct"],
    ["%", "SYM", 1, "nsubj:pass"],
  ],
];

// Sentence 1: planes → can (wrong head, right relation), be labelled aux (right head), "." → 5.
// Sentence 2: "$" labelled nmod, "--" → 3, "%" relation nsubj (subtype dropped).
const PREDICTED: Word[][] = [
  [
    ["Flying", "VERB", 3, "csubj"],
    ["planes", "NOUN", 3, "obj"],
    ["can", "AUX", 0, "root"],
    ["be", "AUX", 5, "aux"],
    ["dangerous", "ADJ", 3, "xcomp"],
    [".", "PUNCT", 5, "punct"],
  ],
  [
    ["Costs", "NOUN", 0, "root"],
    ["$", "SYM", 1, "nmod"],
    ["5", "NUM", 2, "nummod"],
    ["--", "PUNCT", 3, "punct"],
    ["%", "SYM", 1, "nsubj"],
  ],
];

const gold = parseConllu(conllu(GOLD, ["a", "b"]), { file: "gold.conllu" });
const predicted = parseConllu(conllu(PREDICTED), { file: "pred.conllu" });

describe("evaluateDependencies", () => {
  it("scores every word with punctuation included", () => {
    const e = evaluateDependencies(gold, predicted, { punctuation: "include" });
    // 11 words. Heads wrong: planes, ".", "--" → 8 right. Relations wrong: be, $, % → 8 right.
    // Both right: Flying, can, dangerous, Costs, 5 → 5.
    expect(e).toEqual({
      sentences: 2,
      tokens: 11,
      excludedPunctuation: 0,
      correctHeads: 8,
      correctRelations: 8,
      correctLabelled: 5,
      uas: 8 / 11,
      las: 5 / 11,
      labelAccuracy: 8 / 11,
      completeUnlabelled: 0,
      completeLabelled: 0,
    });
  });

  it("leaves out gold-UPOS PUNCT words (not SYM) when excluding punctuation", () => {
    const e = evaluateDependencies(gold, predicted, { punctuation: "exclude" });
    // "." and "--" go: 9 words, heads wrong only for planes.
    expect(e.tokens).toBe(9);
    expect(e.excludedPunctuation).toBe(2);
    expect(e.correctHeads).toBe(8);
    expect(e.correctLabelled).toBe(5);
    expect(e.uas).toBe(8 / 9);
    expect(e.completeUnlabelled).toBe(1 / 2);
    expect(e.completeLabelled).toBe(0);
  });

  it("with eval.pl's form rule, leaves out words made only of punctuation characters", () => {
    const e = evaluateDependencies(gold, predicted, {
      punctuation: "exclude",
      punctuationRule: "form",
    });
    // ".", "--" and "%" (Unicode Po) go; "$" (Sc) stays.
    expect(e.excludedPunctuation).toBe(3);
    expect(e.tokens).toBe(8);
    expect(e.correctLabelled).toBe(5);
    expect(e.correctRelations).toBe(6);
  });

  it("can compare relations without subtypes", () => {
    const e = evaluateDependencies(gold, predicted, {
      punctuation: "include",
      ignoreSubtypes: true,
    });
    expect(e.correctRelations).toBe(9);
    expect(e.correctLabelled).toBe(6);
  });

  it("gives 1 everywhere for a perfect parse and 0 for an empty corpus", () => {
    const perfect = evaluateDependencies(gold, gold, { punctuation: "include" });
    expect([perfect.uas, perfect.las, perfect.labelAccuracy, perfect.completeLabelled]).toEqual([
      1, 1, 1, 1,
    ]);
    expect(evaluateDependencies([], [], { punctuation: "exclude" }).uas).toBe(0);
  });

  it("names the sentence when gold and prediction do not line up", () => {
    expect(() =>
      evaluateDependencies(gold, predicted.slice(1), { punctuation: "include" }),
    ).toThrow(/2 gold, 1 predicted/);
    const shorter = parseConllu(conllu([PREDICTED[0]!, PREDICTED[1]!.slice(0, 4)]), {
      file: "pred.conllu",
    });
    expect(() => evaluateDependencies(gold, shorter, { punctuation: "include" })).toThrow(
      AlignmentError,
    );
    expect(() => evaluateDependencies(gold, shorter, { punctuation: "include" })).toThrow(
      "sentence 2 (sent_id b; gold gold.conllu:9, predicted pred.conllu:8): 5 gold words but 4 predicted",
    );
    const renamed = structuredClone(PREDICTED);
    renamed[0]![1]![0] = "plane";
    expect(() =>
      evaluateDependencies(gold, parseConllu(conllu(renamed)), { punctuation: "include" }),
    ).toThrow(/sentence 1 \(sent_id a; .*\): word 2 is "planes" in gold but "plane" predicted/);
    const badHead = structuredClone(PREDICTED);
    badHead[1]![0]![2] = "_";
    expect(() =>
      evaluateDependencies(gold, parseConllu(conllu(badHead)), { punctuation: "include" }),
    ).toThrow(/sentence 2 .*: word 1 has predicted HEAD "_"; expected an integer 0…5/);
    expect(() =>
      evaluateDependencies(gold, predicted, { punctuation: "none" as "include" }),
    ).toThrow(/expected "include" or "exclude"/);
    expect(() =>
      evaluateDependencies(
        [{ tokens: ["a"], columns: [["a"], ["X"]] }],
        [{ tokens: ["a"], columns: [["a"], ["X"]] }],
        { punctuation: "include" },
      ),
    ).toThrow(/gold sentence has 2 columns; expected the 10 CoNLL-U fields/);
  });
});
