import { LabelSet, seededRandom } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { CrfEncoder } from "../crf-encoder.js";
import { compileDataset } from "../model/dataset.js";
import { buildAttributeDictionary } from "../model/dictionary.js";
import { buildFeatureLayout } from "../model/layout.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { trainCrf } from "../train-crf.js";
import { trainAveragedPerceptron, trainLbfgs } from "./index.js";

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

describe("trainCrf with L1", () => {
  it("keeps only the non-zero weights in the model, tagging as the unpruned optimum does", async () => {
    const sequences = randomCorpus(3, {
      sequences: 60,
      maxLength: 6,
      labels: 3,
      vocabulary: 12,
    });
    const labels = ["L0", "L1", "L2"];
    const options = { c1: 2, c2: 0.1, delta: 0, maxIterations: 300 };
    const trained = await trainCrf(sequences, { ...options, labels });
    const summary = trained.model.summary();
    expect(summary.stateFeatures).toBeLessThan(trained.numFeatures);
    // What is left is what L1 kept: the state features, and the dense transitions and edges.
    const S = trained.model.layout.transitionBase;
    for (let k = 0; k < S; k++) expect(trained.model.weights[k]).not.toBe(0);
    const encoder = crfEncoder(3);
    const unpruned = await trainLbfgs(encoder, { ...options, epsilon: 1e-10 });
    let zero = 0;
    for (const w of unpruned.weights) if (w === 0) zero++;
    expect(zero).toBeGreaterThan(0);
    const out = new Int32Array(6);
    for (const [i, s] of sequences.entries()) {
      encoder.decode(i, unpruned.weights, out);
      const tagged = trained.model.tag(s.attributes);
      expect(tagged).toEqual(Array.from(out.subarray(0, tagged.length), (y) => labels[y]));
    }
  });
});

describe("trainCrf with constrainedTraining", () => {
  const labelNames = ["L0", "L1", "L2", "L3"];
  // Labels that only stay or step up by one (mod 4) and start at L0 or L1: half the pairs unused.
  const rnd = seededRandom(11);
  const sequences = randomCorpus(7, { sequences: 50, maxLength: 6, labels: 4, vocabulary: 12 }).map(
    (s) => {
      let y = Math.floor(rnd() * 2);
      const labels = s.labels!.map((_, j) => {
        if (j > 0) y = (y + (rnd() < 0.5 ? 0 : 1)) % 4;
        return labelNames[y]!;
      });
      return { ...s, labels };
    },
  );
  /** Allows exactly the transitions, first and last labels the gold data uses. */
  const constraintsFor = (names: readonly string[]) => {
    const L = names.length;
    const index = new Map(names.map((n, t) => [n, t]));
    const allowed = new Uint8Array(L * L);
    const allowedStart = new Uint8Array(L);
    const allowedEnd = new Uint8Array(L);
    for (const s of sequences) {
      const y = s.labels!.map((l) => index.get(l!)!);
      allowedStart[y[0]!] = 1;
      allowedEnd[y[y.length - 1]!] = 1;
      for (let j = 1; j < y.length; j++) allowed[y[j - 1]! * L + y[j]!] = 1;
    }
    return { allowed, allowedStart, allowedEnd };
  };

  it("trains under the mask: same model on 1 and 2 threads, forbidden transitions stay at 0, valid tags", async () => {
    const options = { labels: labelNames, constraintsFor, constrainedTraining: true, c2: 0.5 };
    const one = await trainCrf(sequences, { ...options, threads: 1 });
    const two = await trainCrf(sequences, { ...options, threads: 2 });
    expect(two.iterations).toBe(one.iterations);
    let diff = 0;
    for (let j = 0; j < one.model.weights.length; j++) {
      diff = Math.max(diff, Math.abs(one.model.weights[j]! - two.model.weights[j]!));
    }
    expect(diff).toBeLessThan(1e-6);
    const c = constraintsFor(labelNames);
    const L = labelNames.length;
    const T = one.model.layout.transitionBase;
    let forbidden = 0;
    for (let ab = 0; ab < L * L; ab++) {
      if (c.allowed[ab] === 0) {
        forbidden++;
        expect(one.model.weights[T + ab]).toBe(0);
      }
    }
    expect(forbidden).toBeGreaterThan(0);
    const unconstrained = await trainCrf(sequences, {
      labels: labelNames,
      constraintsFor,
      c2: 0.5,
    });
    // Normalising over fewer labellings can only lower each sequence's loss at the same weights.
    expect(one.loss).toBeLessThan(unconstrained.loss);
    for (const s of sequences) {
      const y = one.model.tag(s.attributes).map((l) => labelNames.indexOf(l));
      expect(c.allowedStart[y[0]!]).toBe(1);
      expect(c.allowedEnd[y[y.length - 1]!]).toBe(1);
      for (let j = 1; j < y.length; j++) expect(c.allowed[y[j - 1]! * L + y[j]!]).toBe(1);
    }
  });

  it("needs constraintsFor, and gold labellings that satisfy it", async () => {
    await expect(trainCrf(sequences, { constrainedTraining: true })).rejects.toThrow(
      /constrainedTraining needs constraintsFor/,
    );
    const strict = (names: readonly string[]) => {
      const c = constraintsFor(names);
      const first = sequences.findIndex((s) => s.labels!.length > 1);
      const y = sequences[first]!.labels!.map((l) => names.indexOf(l!));
      c.allowed[y[0]! * names.length + y[1]!] = 0;
      return c;
    };
    await expect(
      trainCrf(sequences, {
        labels: labelNames,
        constraintsFor: strict,
        constrainedTraining: true,
      }),
    ).rejects.toThrow(
      /training constraints: sequence \d+, tokens \d+ and \d+: the transition "L\d" → "L\d" is forbidden/,
    );
  });
});
