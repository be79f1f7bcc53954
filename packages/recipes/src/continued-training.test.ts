import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CrfModel, modelFromTraining, prepareTrainingData } from "@lagrange/chain-crf";
import type { Corpus } from "@lagrange/datasets";
import { findSplitFile, openCorpus } from "@lagrange/datasets/node";
import { describe, expect, it } from "vitest";
import { continuedTraining } from "./continued-training.js";
import { attributesOf } from "./model-input.js";
import { modelDecodingConstraints } from "./model-scheme.js";
import { schemeScorer, trainOnCorpus } from "./training.js";

const train = findSplitFile("conll2000", "train");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

const subset = (corpus: Corpus, from: number, to: number): Corpus => ({
  ...corpus,
  label: `${corpus.label}[${from}:${to}]`,
  sentences: corpus.sentences.slice(from, to),
});

function chunkF1(model: CrfModel, corpus: Corpus): number {
  const constraints = modelDecodingConstraints(model);
  const predicted = attributesOf(model, corpus.sentences).map((a) => model.tag(a, { constraints }));
  const gold = corpus.sentences.map((s) => s.labels ?? []);
  return schemeScorer(corpus.scheme)(gold, predicted).f1 ?? Number.NaN;
}

describe("continued training on CoNLL-2000 chunks", () => {
  it.skipIf(train === undefined)(
    `from a model of 100 sentences, 200 sentences reach the optimum of training on them from scratch, in fewer iterations — skipped if ${why}`,
    async () => {
      const corpus = await openCorpus("conll2000:train");
      const options = { preset: "chunking", c2: 1, maxIterations: 1000, delta: 1e-9 } as const;
      const first = await trainOnCorpus(subset(corpus, 0, 100), options);
      const union = subset(corpus, 0, 200);
      const features = continuedTraining(first.model, "part A", union);
      expect(features).toMatchObject({ preset: "chunking", scheme: "IOB2" });
      const continued = await trainOnCorpus(union, { ...options, init: first.model });
      const scratch = await trainOnCorpus(union, options);
      expect(continued.numFeatures).toBe(scratch.numFeatures);
      expect(Math.abs(continued.loss - scratch.loss) / scratch.loss).toBeLessThan(1e-6);
      expect(continued.iterations).toBeLessThan(scratch.iterations);
      // The first model's labels keep their ids; the union's are all there.
      const names = continued.model.labels.names();
      expect(names.slice(0, first.model.numLabels)).toEqual(first.model.labels.names());
      expect(new Set(names)).toEqual(new Set(scratch.model.labels.names()));
      const heldOut = subset(corpus, 200, 400);
      const f1 = chunkF1(continued.model, heldOut);
      expect(Math.abs(f1 - chunkF1(scratch.model, heldOut))).toBeLessThan(0.001);
      expect(f1).toBeGreaterThan(0.7);
    },
  );
});

describe("continuedTraining", () => {
  const file = join(mkdtempSync(join(tmpdir(), "lagrange-init-")), "tiny.conll");
  writeFileSync(file, "the DT B-NP\ncat NN I-NP\n\n");
  const sequences = [
    {
      attributes: {
        length: 1,
        offsets: Int32Array.of(0, 1),
        names: ["w=the"],
        values: null,
        transition: null,
      },
      labels: ["B-NP"],
    },
  ];
  const data = prepareTrainingData(sequences, { shared: false });
  const model = (extra: Parameters<typeof modelFromTraining>[2]) =>
    modelFromTraining(data, new Float64Array(data.layout.numWeights), extra);

  it("takes the model's preset and scheme, and accepts the same preset given again", async () => {
    const corpus = await openCorpus(file);
    const trained = model({ preset: "chunking", settings: { scheme: "IOB2", inputColumns: 2 } });
    expect(continuedTraining(trained, "m.lgm", corpus, { preset: "chunking" })).toMatchObject({
      preset: "chunking",
      scheme: "IOB2",
    });
    expect(() => continuedTraining(trained, "m.lgm", corpus, { preset: "ner" })).toThrow(
      /--preset ner conflicts with m\.lgm, trained with chunking/,
    );
    expect(() => continuedTraining(trained, "m.lgm", corpus, { scheme: "BIOES" })).toThrow(
      /--scheme BIOES conflicts with m\.lgm's scheme IOB2/,
    );
  });

  it("needs a preset for a model that records none (a CRFsuite import), and refuses other columns", async () => {
    const corpus = await openCorpus(file);
    const imported = model({});
    expect(() => continuedTraining(imported, "imported.lgm", corpus)).toThrow(
      /imported\.lgm records no feature preset .*--preset/,
    );
    expect(continuedTraining(imported, "imported.lgm", corpus, { preset: "chunking" }).preset).toBe(
      "chunking",
    );
    const three = model({ preset: "chunking", settings: { inputColumns: 3 } });
    expect(() => continuedTraining(three, "m.lgm", corpus)).toThrow(
      /has 2 input column\(s\); m\.lgm was trained on 3/,
    );
  });
});
