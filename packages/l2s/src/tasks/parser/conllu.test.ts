import { DataFormatError, formatConllu, parseConllu } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import type { PredictRequest, Search } from "../../search/types.js";
import { parseExamplesFromConllu, withParse } from "./conllu.js";
import { arcHybridParser, relationsOf } from "./parser-task.js";

/** A training-mode Search that always takes the (first) reference action. */
class FollowReference implements Search {
  readonly training = true;
  readonly outputWanted = true;
  lossTotal = 0;
  predict(request: PredictRequest): number {
    const ref = request.reference;
    if (ref === undefined) throw new Error("expected a reference");
    return typeof ref === "number" ? ref : ref[0]!;
  }
  loss(value: number): void {
    this.lossTotal += value;
  }
}

const row = (fields: string[]): string => `${fields.join("\t")}\n`;
// Line numbers: 4 I, 5 don't (range), 6 do, 7 n't, 8 know, 9 empty node, 10 "." ; 14–18 sentence 2.
const TEXT = [
  "# newdoc id = d1\n",
  "# sent_id = s1\n",
  "# text = I don't know.\n",
  row(["1", "I", "I", "PRON", "PRP", "Case=Nom|Person=1", "4", "nsubj", "4:nsubj", "_"]),
  row(["2-3", "don't", "_", "_", "_", "_", "_", "_", "_", "_"]),
  row(["2", "do", "do", "AUX", "VBP", "_", "4", "aux", "4:aux", "_"]),
  row(["3", "n't", "not", "PART", "RB", "_", "4", "advmod", "4:advmod", "_"]),
  row(["4", "know", "know", "VERB", "VB", "_", "0", "root", "0:root", "SpaceAfter=No"]),
  row(["4.1", "know", "know", "VERB", "VB", "_", "_", "_", "4:conj", "CopyOf=4"]),
  row(["5", ".", ".", "PUNCT", ".", "_", "4", "punct", "4:punct", "_"]),
  "\n",
  "# sent_id = s2\n",
  "# text = Flying planes can be dangerous\n",
  row(["1", "Flying", "fly", "VERB", "VBG", "_", "3", "csubj", "3:csubj", "_"]),
  row(["2", "planes", "plane", "NOUN", "NNS", "_", "1", "obj", "1:obj", "_"]),
  row(["3", "can", "can", "AUX", "MD", "_", "0", "root", "0:root", "_"]),
  row(["4", "be", "be", "AUX", "VB", "_", "5", "cop", "5:cop", "_"]),
  row(["5", "dangerous", "dangerous", "ADJ", "JJ", "_", "3", "xcomp", "3:xcomp", "_"]),
  "\n",
].join("");

/** TEXT with field `field` (0-based) of line `line` (1-based) replaced. */
function edit(line: number, field: number, value: string): string {
  const lines = TEXT.split("\n");
  const fields = lines[line - 1]!.split("\t");
  fields[field] = value;
  lines[line - 1] = fields.join("\t");
  return lines.join("\n");
}

describe("CoNLL-U ↔ parser examples", () => {
  it("reads FORM, UPOS/XPOS, HEAD and DEPREL", () => {
    const sentences = parseConllu(TEXT, { file: "t.conllu" });
    const [first, second] = parseExamplesFromConllu(sentences);
    expect(first!.words).toEqual(["I", "do", "n't", "know", "."]);
    expect(first!.tags).toEqual(["PRON", "AUX", "PART", "VERB", "PUNCT"]);
    expect(Array.from(first!.heads!)).toEqual([4, 4, 4, 0, 4]);
    expect(first!.relations).toEqual(["nsubj", "aux", "advmod", "root", "punct"]);
    expect(first!.source).toBe("t.conllu:1");
    expect(second!.source).toBe("t.conllu:12");
    const [, xpos] = parseExamplesFromConllu(sentences, { tagField: "XPOS" });
    expect(xpos!.tags).toEqual(["VBG", "NNS", "MD", "VB", "JJ"]);
    const stripped = parseExamplesFromConllu(
      parseConllu(edit(16, 7, "aux:pass"), { file: "t.conllu" }),
      { stripRelationSubtypes: true },
    );
    expect(stripped[1]!.relations).toEqual(["csubj", "obj", "aux", "cop", "xcomp"]);
    expect(relationsOf(parseExamplesFromConllu(sentences))).toEqual([
      "advmod",
      "aux",
      "cop",
      "csubj",
      "nsubj",
      "obj",
      "punct",
      "root",
      "xcomp",
    ]);
  });

  it("read → parse (the dynamic oracle's tree) → write gives the file back byte for byte", () => {
    const sentences = parseConllu(TEXT, { file: "t.conllu" });
    const examples = parseExamplesFromConllu(sentences);
    const task = arcHybridParser({ relations: relationsOf(examples) });
    const parsed = sentences.map((sentence, i) => {
      const search = new FollowReference();
      const out = task.run(examples[i]!, search);
      expect(search.lossTotal).toBe(0);
      return withParse(sentence, out.heads, out.relations);
    });
    expect(formatConllu(parsed)).toBe(TEXT);
  });

  it("writes another parse with only HEAD and DEPREL changed", () => {
    const sentences = parseConllu(TEXT, { file: "t.conllu" });
    const flat = withParse(sentences[0]!, [0, 1, 1, 1, 1], ["root", "dep", "dep", "dep", "dep"]);
    const unlabelled = withParse(sentences[1]!, [0, 1, 2, 3, 4]);
    const text = formatConllu([flat, unlabelled]);
    const back = parseConllu(text, { file: "u.conllu" });
    expect(back[0]!.columns[6]).toEqual(["0", "1", "1", "1", "1"]);
    expect(back[0]!.columns[7]).toEqual(["root", "dep", "dep", "dep", "dep"]);
    expect(back[1]!.columns[7]).toEqual(["_", "_", "_", "_", "_"]);
    for (const [k, sentence] of back.entries()) {
      expect(sentence.extraLines).toEqual(sentences[k]!.extraLines);
      expect(sentence.comments).toEqual(sentences[k]!.comments);
      for (const c of [0, 1, 2, 3, 4, 5, 8, 9]) {
        expect(sentence.columns[c]).toEqual(sentences[k]!.columns[c]);
      }
    }
    // The input sentence is not modified.
    expect(sentences[0]!.columns[6]).toEqual(["4", "4", "4", "0", "4"]);
    expect(() => withParse(sentences[0]!, [0, 1])).toThrow(
      /t\.conllu:1 \(sentence s1\): 5 words but 2 heads/,
    );
    expect(() => withParse(sentences[0]!, [0, 1, 1, 1, 9])).toThrow(/word 5: head 9 is not 0…5/);
  });

  it("names file:line:column of a bad HEAD, past comments and multiword/empty-node lines", () => {
    const read = (text: string) => () =>
      parseExamplesFromConllu(parseConllu(text, { file: "bad.conllu" }));
    const fails = (text: string, message: RegExp) => {
      expect(read(text)).toThrow(DataFormatError);
      expect(read(text)).toThrow(message);
    };
    fails(
      edit(10, 6, "x"),
      /^bad\.conllu:10:7: HEAD "x": expected an integer 0…5 other than the word's own ID 5/,
    );
    fails(edit(10, 6, "6"), /^bad\.conllu:10:7: HEAD "6"/);
    fails(edit(17, 6, "4"), /^bad\.conllu:17:7: HEAD "4": .* own ID 4/);
    fails(edit(17, 6, "1.5"), /^bad\.conllu:17:7/);
    fails(edit(6, 6, "_"), /^bad\.conllu:6:7: HEAD _ in a sentence whose other words have heads/);
    fails(edit(14, 6, "2"), /^bad\.conllu:14:7: the HEAD values form a cycle 1 → 2 → 1/);
    fails(edit(8, 7, "_"), /^bad\.conllu:8:8: DEPREL _ in a sentence/);
  });

  it("reads sentences without a tree as input only, and accepts several root words", () => {
    let text = TEXT;
    for (const line of [14, 15, 16, 17, 18]) {
      const lines = text.split("\n");
      const fields = lines[line - 1]!.split("\t");
      fields[6] = "_";
      fields[7] = "_";
      lines[line - 1] = fields.join("\t");
      text = lines.join("\n");
    }
    text = text.replace("\t4\tnsubj\t", "\t0\tnsubj\t");
    const [multiRoot, input] = parseExamplesFromConllu(parseConllu(text, { file: "t.conllu" }));
    expect(Array.from(multiRoot!.heads!)).toEqual([0, 4, 4, 0, 4]);
    expect(input!.heads).toBeUndefined();
    expect(input!.relations).toBeUndefined();
  });
});
