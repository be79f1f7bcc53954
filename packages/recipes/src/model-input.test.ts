import { lagrangeErrorCode } from "@lagrange/core";
import type { Corpus, CorpusFormat } from "@lagrange/datasets";
import { inferScheme, inputRows, parseConll, wordColumnOnly } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import { inputForModel, modelInputColumns } from "./model-input.js";
import { TrainingFailedError, trainOnCorpus } from "./training.js";

const CHUNKS = "the DT B-NP\ncat NN I-NP\nsat VBD B-VP\n\na DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n";

function corpus(text: string, label: string, format: CorpusFormat = "conll"): Corpus {
  const sentences = parseConll(text, { file: label });
  return {
    label,
    format,
    sentences,
    scheme: inferScheme(sentences.flatMap((s) => (s.labels ? [s.labels] : []))),
  };
}

const trained = trainOnCorpus(corpus(CHUNKS, "train.conll"), {
  preset: "chunking",
  maxIterations: 20,
});

describe("inputForModel", () => {
  it("records the input width at training, and reads gold off a file's width", async () => {
    const { model } = await trained;
    expect(modelInputColumns(model)).toBe(2);
    const labelled = inputForModel(corpus(CHUNKS, "dev.conll"), model, "auto");
    expect(labelled.sentences[0]!.labels).toEqual(["B-NP", "I-NP", "B-VP"]);
    const raw = inputForModel(corpus("the DT\ncat NN\n\n", "raw.conll"), model, "auto");
    expect(raw.sentences[0]!.labels).toBeUndefined();
    expect(raw.sentences[0]!.columns).toHaveLength(2);
    const forced = inputForModel(corpus(CHUNKS, "dev.conll"), model, "none");
    expect(forced.sentences[0]!.labels).toBeUndefined();
  });

  it("a width that fits no reading, or gold required and absent, is bad input at file:line", async () => {
    const { model } = await trained;
    const wide = () => inputForModel(corpus("\na b c d\n\n", "wide.conll"), model, "auto");
    expect(wide).toThrow(/^wide\.conll:2: 4 column\(s\); the model \(preset chunking\) reads 2/);
    const noGold = () => inputForModel(corpus("the DT\n\n", "raw.conll"), model, "required");
    expect(noGold).toThrow(/^raw\.conll:1: 2 column\(s\); .*then the gold label: expected 3/);
    try {
      noGold();
    } catch (error) {
      expect(lagrangeErrorCode(error)).toBe("bad-input");
    }
  });

  it("a model of the word alone reads a wider file's word column where the gold is known", async () => {
    const wordsOnly = wordColumnOnly(corpus(CHUNKS, "train.conll"));
    const { model } = await trainOnCorpus(wordsOnly, { preset: "ner-words", maxIterations: 5 });
    expect(modelInputColumns(model)).toBe(1);
    const required = inputForModel(corpus(CHUNKS, "dev.conll"), model, "required");
    expect(inputRows(required.sentences[0]!)).toEqual([["the"], ["cat"], ["sat"]]);
    expect(required.sentences[0]!.labels).toEqual(["B-NP", "I-NP", "B-VP"]);
    const registry = { ...corpus(CHUNKS, "conll2000:dev"), dataset: "conll2000" };
    expect(inputRows(inputForModel(registry, model, "auto").sentences[1]!)).toEqual([
      ["a"],
      ["dog"],
      ["ran"],
    ]);
    // A file of unknown layout: is its last column gold, or a third input? Not guessed.
    expect(() => inputForModel(corpus(CHUNKS, "dev.conll"), model, "auto")).toThrow(
      /^dev\.conll:1: 3 column\(s\); the model \(preset ner-words\) reads 1/,
    );
  });

  it("UMass and inline data without a single tag are unlabeled", async () => {
    const { model } = await trained;
    const untagged = corpus("J. O\nSmith O\n\n", "cites.docs", "umass");
    expect(inputForModel(untagged, model, "auto").sentences[0]!.columns).toEqual([["J.", "Smith"]]);
  });
});

describe("trainOnCorpus refuses a model that would be wrong", () => {
  it("one label only (CoNLL read as UMass gives every token O): bad input at the first line", async () => {
    const allO = corpus("a O\nb O\n\n", "all-o.docs", "umass");
    await expect(trainOnCorpus(allO, { preset: "citation" })).rejects.toThrow(
      /^all-o\.docs:1\b.*only the label "O" \(read as umass\).*--format/,
    );
  });

  it("no progress is a TrainingFailedError unless allowed", async () => {
    const data = corpus(CHUNKS, "train.conll");
    const options = { preset: "chunking", c2: 1e300 } as const;
    await expect(trainOnCorpus(data, options)).rejects.toBeInstanceOf(TrainingFailedError);
    const allowed = await trainOnCorpus(data, { ...options, allowNoProgress: true });
    expect(allowed.iterations).toBe(0);
  });
});
