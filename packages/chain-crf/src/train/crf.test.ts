import { LabelSet } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { CrfEncoder } from "../crf-encoder.ts";
import { compileDataset } from "../model/dataset.ts";
import { buildAttributeDictionary } from "../model/dictionary.ts";
import { buildFeatureLayout } from "../model/layout.ts";
import { randomCorpus } from "../testing/random-corpus.ts";
import { trainAveragedPerceptron, trainLbfgs } from "./index.ts";

function crfEncoder(seed: number) {
  const sequences = randomCorpus(seed, { sequences: 60, maxLength: 6, labels: 3, vocabulary: 12 });
  const attributes = buildAttributeDictionary(sequences.map((s) => s.attributes));
  const labels = new LabelSet();
  for (let t = 0; t < 3; t++) labels.intern(`L${t}`);
  const dataset = compileDataset(sequences, { attributes, labels, internLabels: true });
  return new CrfEncoder(dataset, buildFeatureLayout(dataset, attributes.size, labels.size));
}

function objective(encoder: CrfEncoder, w: Float64Array, c2: number) {
  const g = new Float64Array(encoder.numWeights);
  let f = 0;
  for (let i = 0; i < encoder.numInstances; i++) f += encoder.instanceLoss(i, w, g, 1);
  for (let j = 0; j < w.length; j++) {
    f += c2 * w[j]! ** 2;
    g[j] = g[j]! + 2 * c2 * w[j]!;
  }
  return { f, g };
}

describe("trainers on the chain CRF", () => {
  it("L-BFGS reaches a stationary point; 2 threads (CrfEncoder restored in a worker) agree", async () => {
    const encoder = crfEncoder(1);
    const single = await trainLbfgs(encoder, { c2: 0.5, epsilon: 1e-8, delta: 0 });
    const { f, g } = objective(encoder, single.weights, 0.5);
    expect(Math.hypot(...g)).toBeLessThan(1e-5 * Math.max(1, Math.hypot(...single.weights)));
    expect(single.loss).toBeCloseTo(f, 8);
    const threaded = await trainLbfgs(encoder, { c2: 0.5, epsilon: 1e-8, delta: 0, threads: 2 });
    let diff = 0;
    for (let j = 0; j < g.length; j++) {
      diff = Math.max(diff, Math.abs(threaded.weights[j]! - single.weights[j]!));
    }
    expect(diff).toBeLessThan(1e-5);
  });

  it("the averaged perceptron lowers the training error of the CRF", async () => {
    const encoder = crfEncoder(2);
    const errors = (w: Float64Array) => {
      const out = new Int32Array(6);
      let wrong = 0;
      for (let i = 0; i < encoder.numInstances; i++) {
        encoder.decode(i, w, out);
        const gold = encoder.goldLabels(i);
        for (let t = 0; t < gold.length; t++) if (gold[t]! >= 0 && out[t] !== gold[t]) wrong++;
      }
      return wrong;
    };
    const r = await trainAveragedPerceptron(encoder, { epochs: 10 });
    expect(errors(r.weights)).toBeLessThan(errors(new Float64Array(encoder.numWeights)));
  });
});
