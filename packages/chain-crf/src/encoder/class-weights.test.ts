import { LabelSet, LagrangeError, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CrfEncoder, restoreEncoder } from "../crf-encoder.js";
import type { LabelledSequence } from "../model/dataset.js";
import { compileDataset } from "../model/dataset.js";
import { buildAttributeDictionary } from "../model/dictionary.js";
import { buildFeatureLayout } from "../model/layout.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { trainAveragedPerceptron } from "../train/perceptron.js";
import { type TrainingAlgorithm, trainCrf } from "../train-crf.js";
import { BALANCED_CAP, resolveClassWeights } from "./class-weights.js";

function setup(seed: number, c: { values: boolean; transitions: boolean; partial: boolean }) {
  const sequences = randomCorpus(seed, {
    sequences: 3,
    values: c.values,
    transitions: c.transitions,
    unlabelled: c.partial ? 0.3 : 0,
  });
  const attributes = buildAttributeDictionary(sequences.map((s) => s.attributes));
  const transitionAttributes = buildAttributeDictionary(
    sequences.map((s) => s.attributes.transition),
  );
  const labels = new LabelSet();
  for (let t = 0; t < 3; t++) labels.intern(`L${t}`);
  const dataset = compileDataset(sequences, {
    attributes,
    transitionAttributes,
    labels,
    internLabels: true,
  });
  const layout = buildFeatureLayout(dataset, attributes.size, 3, transitionAttributes.size, {
    dense: (seed & 2) === 0,
    startEnd: (seed & 4) === 0,
  });
  const encoder = new CrfEncoder(dataset, layout);
  const rnd = seededRandom(seed + 17);
  const weights = Float64Array.from({ length: layout.numWeights }, () => rnd() * 2 - 1);
  return { encoder, weights };
}

function pathScore(encoder: CrfEncoder, i: number, y: Int32Array, w: Float64Array): number {
  const counts = new Float64Array(encoder.numWeights);
  encoder.addFeatureCounts(i, y, 1, counts);
  let s = 0;
  for (let k = 0; k < counts.length; k++) s += counts[k]! * w[k]!;
  return s;
}

function allLabellings(n: number, L: number): Int32Array[] {
  const out: Int32Array[] = [];
  for (let code = 0; code < L ** n; code++) {
    const y = new Int32Array(n);
    let c = code;
    for (let i = n - 1; i >= 0; i--) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    out.push(y);
  }
  return out;
}

function lse(xs: number[]): number {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

const configs = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  values: fc.boolean(),
  transitions: fc.boolean(),
  partial: fc.boolean(),
  classWeights: fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), {
    minLength: 3,
    maxLength: 3,
  }),
});

describe("class-weighted CRF loss", () => {
  it("is the cost-augmented log-partition minus the gold score, by brute force", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights } = setup(c.seed, c);
        const w = Float64Array.from(c.classWeights);
        encoder.setClassWeights(w);
        for (let i = 0; i < encoder.numInstances; i++) {
          const n = encoder.instanceLength(i);
          const gold = encoder.goldLabels(i);
          const ys = allLabellings(n, 3);
          const augmented = ys.map((y) => {
            let s = pathScore(encoder, i, y, weights);
            for (let j = 0; j < n; j++)
              if (gold[j]! >= 0 && y[j] !== gold[j]) s += Math.log(w[gold[j]!]!);
            return s;
          });
          const consistent = augmented.filter((_, k) =>
            ys[k]!.every((t, j) => gold[j]! < 0 || gold[j] === t),
          );
          expect(encoder.instanceLoss(i, weights, null)).toBeCloseTo(
            lse(augmented) - lse(consistent),
            9,
          );
        }
      }),
      { numRuns: 120 },
    );
  });

  it("has the exact gradient: central finite differences, per instance and in the batch", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights } = setup(c.seed, c);
        encoder.setClassWeights(Float64Array.from(c.classWeights));
        const total = (w: Float64Array, grad: Float64Array | null) => {
          let s = 0;
          for (let i = 0; i < encoder.numInstances; i++) s += encoder.instanceLoss(i, w, grad, 1);
          return s;
        };
        const grad = new Float64Array(encoder.numWeights);
        const loss = total(weights, grad);
        const h = 1e-5;
        const w = weights.slice();
        for (let k = 0; k < w.length; k++) {
          w[k] = weights[k]! + h;
          const up = total(w, null);
          w[k] = weights[k]! - h;
          const down = total(w, null);
          w[k] = weights[k]!;
          expect(grad[k]).toBeCloseTo((up - down) / (2 * h), 5);
        }
        const batch = new Float64Array(encoder.numWeights);
        expect(encoder.rangeLoss(0, encoder.numInstances, weights, batch)).toBeCloseTo(loss, 9);
        for (let k = 0; k < batch.length; k++) expect(batch[k]).toBeCloseTo(grad[k]!, 9);
        // A worker's restored encoder trains the same loss.
        const restored = restoreEncoder(encoder.descriptor());
        expect(restored.instanceLoss(0, weights, null)).toBe(
          encoder.instanceLoss(0, weights, null),
        );
      }),
      { numRuns: 60 },
    );
  });

  it("weights all 1 leave the loss as it was, bit for bit", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights } = setup(c.seed, c);
        const plain = encoder.instanceLoss(0, weights, null);
        encoder.setClassWeights(new Float64Array(3).fill(1));
        expect(encoder.instanceLoss(0, weights, null)).toBe(plain);
      }),
      { numRuns: 30 },
    );
  });

  it("refuses a weight that is not finite and > 0 (its log would make the loss NaN or −∞)", async () => {
    const { encoder } = setup(1, { values: false, transitions: false, partial: false });
    for (const bad of [0, -2, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => encoder.setClassWeights(Float64Array.of(1, bad, 1))).toThrow(
        /label 1 has .*expected > 0/,
      );
      await expect(
        trainAveragedPerceptron(encoder, { epochs: 1, classWeights: Float64Array.of(1, 1, bad) }),
      ).rejects.toThrow(/classWeights\[2\] is .*expected a finite number > 0/);
    }
    expect(encoder.classWeights).toBeNull();
  });
});

function toySequences(seed: number): LabelledSequence[] {
  return randomCorpus(seed, { sequences: 30, labels: 3 });
}

describe("trainCrf with class weights", () => {
  const algorithms: TrainingAlgorithm[] = ["lbfgs", "owlqn", "sgd", "ap"];
  for (const algorithm of algorithms) {
    it(`${algorithm}: weight 1 for every label trains exactly the unweighted model`, async () => {
      const sequences = toySequences(3);
      const options = { algorithm, maxIterations: 5, seed: 1 };
      const plain = await trainCrf(sequences, options);
      const ones = await trainCrf(sequences, {
        ...options,
        classWeights: { labels: { L0: 1, L1: 1, L2: 1 } },
      });
      expect(Array.from(ones.model.weights)).toEqual(Array.from(plain.model.weights));
      expect(ones.model.settings.classWeights).toEqual({
        labels: { L0: 1, L1: 1, L2: 1 },
        explicit: { L0: 1, L1: 1, L2: 1 },
      });
    });
  }

  it("lbfgs on two worker threads trains the weighted loss too", async () => {
    const sequences = toySequences(9);
    const options = {
      maxIterations: 8,
      classWeights: { labels: { L0: 0.5, L2: 4 } },
    };
    const one = await trainCrf(sequences, options);
    const two = await trainCrf(sequences, { ...options, threads: 2 });
    const plain = await trainCrf(sequences, { maxIterations: 8 });
    expect(two.loss).toBeCloseTo(one.loss, 8);
    expect(Math.abs(one.loss - plain.loss)).toBeGreaterThan(1e-3);
  });

  it("ap: one weight c for every label scales the averaged weights by c (same mistakes)", async () => {
    const sequences = toySequences(5);
    const plain = await trainCrf(sequences, { algorithm: "ap", maxIterations: 4, seed: 2 });
    const scaled = await trainCrf(sequences, {
      algorithm: "ap",
      maxIterations: 4,
      seed: 2,
      classWeights: { labels: { L0: 2.5, L1: 2.5, L2: 2.5 } },
    });
    const a = plain.model.weights;
    const b = scaled.model.weights;
    for (let k = 0; k < a.length; k++) expect(b[k]).toBeCloseTo(2.5 * a[k]!, 9);
  });

  it("names an unknown label and the known ones; refuses weights outside [1e-6, 1e6]", async () => {
    const sequences = toySequences(7);
    const run = (labels: { [label: string]: number }) =>
      trainCrf(sequences, { maxIterations: 1, classWeights: { labels } });
    await expect(run({ "B-XYZ": 2 })).rejects.toThrow(
      /unknown label "B-XYZ"; the training labels are L\d, L\d, L\d/,
    );
    await expect(run({ "B-XYZ": 2 })).rejects.toBeInstanceOf(LagrangeError);
    for (const bad of [0, 1e-7, 1e7, 1e300]) {
      await expect(run({ L1: bad })).rejects.toThrow(
        /L1=.*: expected a number in \[0\.000001, 1000000\]/,
      );
    }
  });

  it("balanced: n_samples / (n_classes · count), an explicit weight overriding it", () => {
    const gold = Int32Array.from([0, 0, 0, 0, 0, 0, 1, 1, -1, 0]);
    const w = resolveClassWeights({ balanced: true }, ["O", "B", "C"], gold);
    expect(Array.from(w)).toEqual([9 / (2 * 7), 9 / (2 * 2), 1]);
    const half = resolveClassWeights({ balanced: 0.5, labels: { O: 1 } }, ["O", "B", "C"], gold);
    expect(Array.from(half)).toEqual([1, Math.sqrt(9 / 4), 1]);
    // A label seen once in 100 tokens: 100 / (2 · 1) = 50, capped at 10.
    const rare = Int32Array.from({ length: 100 }, (_, j) => (j === 0 ? 1 : 0));
    expect(resolveClassWeights({ balanced: true }, ["O", "B"], rare)[1]).toBe(BALANCED_CAP);
  });
});
