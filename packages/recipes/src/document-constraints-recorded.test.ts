import { loadModelFromBytes, modelToBytes } from "@lagrange/chain-crf";
import { lagrangeErrorCode } from "@lagrange/core";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScoredSentence } from "./constraint-learning.js";
import {
  documentUnits,
  type SelectedDocumentConstraints,
  selectDocumentConstraints,
  withDocumentConstraints,
} from "./document-constraints.js";
import { recordedTraining } from "./document-constraints-retraining.js";
import { openTagger } from "./tagging/open-tagger.js";
import { type TrainedOnCorpus, trainOnCorpus } from "./training.js";

const sentence = (tokens: string[], labels: string[], document: number): Sentence => ({
  tokens,
  labels,
  columns: [tokens, labels],
  document: { index: document },
});

const corpus: Corpus = {
  label: "docs",
  format: "conll",
  scheme: "IOB2",
  sentences: Array.from({ length: 16 }, (_, k) =>
    sentence(["w", "Smith", "w", "Acme"], ["O", "B-PER", "O", "B-ORG"], Math.floor(k / 2)),
  ),
};

let trained: TrainedOnCorpus;
let selected: SelectedDocumentConstraints;
beforeAll(async () => {
  trained = await trainOnCorpus(corpus, {
    preset: "ner-words",
    algorithm: "lbfgs",
    maxIterations: 5,
  });
  const model = trained.model;
  const L = model.numLabels;
  const [o, b] = model.labels.encode(["O", "B-PER"]);
  // Later mentions of Smith lean to O; gold says PER: the same-string rule for PER pays.
  const units = (count: number) =>
    Array.from({ length: count }, (_, d) => {
      const sentences: ScoredSentence[] = [0, 1].map((k) => {
        const unary = new Float64Array(3 * L);
        for (let t = 0; t < 3; t++) unary[t * L + o!] = 1;
        unary[L + b!] = k === 0 ? 5 : 0.7 + 0.01 * (d % 7);
        return {
          n: 3,
          L,
          tokens: ["w", "Smith", "w"],
          scores: { n: 3, L, unary, transition: new Float64Array(L * L) },
          gold: Int32Array.of(o!, b!, o!),
        };
      });
      return documentUnits(sentences, [[0, 1]]).units[0]!;
    });
  selected = await selectDocumentConstraints(model, units(30), units(30), {
    bootstrapSamples: 200,
  });
}, 30_000);

describe("a model's recorded document constraints", () => {
  it("are written as feature constraints with decoder soft-dd, and read back", () => {
    expect(selected.entries.length).toBeGreaterThan(0);
    const recorded = withDocumentConstraints(trained.model, selected, { data: "docs" });
    const back = loadModelFromBytes(modelToBytes(recorded), "m.lgm");
    expect(back.features).toContain("constraints");
    expect(back.decoder).toBe("soft-dd");
    expect(JSON.stringify(back.learnedConstraints)).toContain("same-string:PER");
    // Nothing kept: the model is returned as it was.
    const none = { ...selected, entries: [], gain: undefined };
    expect(withDocumentConstraints(trained.model, none)).toBe(trained.model);
  });

  it("decode by document with soft-dd when the user names nothing; viterbi gives the chain", async () => {
    const bytes = modelToBytes(withDocumentConstraints(trained.model, selected));
    const tagger = await openTagger({ model: bytes, modelName: "m.lgm" });
    expect(tagger.decoder).toBe("soft-dd");
    expect(tagger.unit).toBe("corpus");
    expect(tagger.description).toContain("a document at a time");
    const tagged = await tagger.tag(corpus.sentences);
    expect(tagged.items).toHaveLength(corpus.sentences.length);
    const chain = await openTagger({ model: bytes, modelName: "m.lgm", decoder: "viterbi" });
    expect(chain.decoder).toBe("viterbi");
    expect(chain.constrained).toBe(false);
    expect(chain.unit).not.toBe("corpus");
  });

  it("retrain from the model file's record, refusing what it cannot redo", () => {
    const redo = recordedTraining(trained.model, "m.lgm");
    expect(redo.spec).toMatchObject({ algorithm: "lbfgs", maxIterations: 5, scheme: "IOB2" });
    expect(redo.featuresOf(corpus).preset).toBe("ner-words");
    const weighted = trained.model.withSettings({ classWeights: { O: 1 } });
    let caught: unknown;
    try {
      recordedTraining(weighted, "m.lgm");
    } catch (error) {
      caught = error;
    }
    expect(lagrangeErrorCode(caught)).toBe("usage");
    expect(String(caught)).toMatch(/m\.lgm was trained with class weights/);
  });
});
