import { describe, expect, it } from "vitest";
import type { AttributeSequence } from "../features/types.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { trainCrf } from "../train-crf.js";
import { prepareTrainingData } from "../training-data.js";
import type { LabelledSequence } from "./dataset.js";
import { AttributeFrequencyError } from "./dictionary.js";
import { observedStateFeatures } from "./layout.js";
import { estimateTrainingMemory, TrainingMemoryError } from "./memory.js";

/** One token per sequence, each with its own label: as many labels as sequences. */
function manyLabels(labels: number): LabelledSequence[] {
  return Array.from({ length: labels }, (_, i) => {
    const attributes: AttributeSequence = {
      length: 1,
      offsets: Int32Array.of(0, 2),
      names: [`w=${i % 97}`, "bias"],
      values: null,
      transition: null,
    };
    return { attributes, labels: [`L${i}`] };
  });
}

describe("the state features of a layout", () => {
  it("are the same whether counted densely or by sorted keys", () => {
    for (const [seed, unlabelled, minFreq] of [
      [1, 0, 1],
      [2, 0, 2],
      [3, 0.3, 1],
      [4, 0, 3],
    ] as const) {
      const corpus = randomCorpus(seed, {
        sequences: 40,
        maxLength: 8,
        labels: 7,
        vocabulary: 30,
        unlabelled,
      });
      const { dataset, attributes, labels } = prepareTrainingData(corpus, { shared: false });
      const count = (method: "dense" | "sorted") =>
        observedStateFeatures(dataset, attributes.size, labels.size, minFreq, method);
      const dense = count("dense");
      const sorted = count("sorted");
      expect(Array.from(sorted.attributeOffsets)).toEqual(Array.from(dense.attributeOffsets));
      expect(Array.from(sorted.featureLabels)).toEqual(Array.from(dense.featureLabels));
      expect(dense.featureLabels.length).toBeGreaterThan(0);
    }
  });
});

describe("the training memory estimate", () => {
  it("grows with the square of the labels and with the trainer's copies", () => {
    const estimate = (labels: number, algorithm: "lbfgs" | "ap" = "lbfgs") => {
      const data = prepareTrainingData(manyLabels(labels), { shared: false });
      return estimateTrainingMemory(data.layout, data.dataset, { algorithm });
    };
    const small = estimate(100);
    const large = estimate(1000);
    expect(large.labels).toBe(1000);
    expect(large.weights).toBeGreaterThan(1000 * 1000);
    // L-BFGS: iterate, gradient, previous pair, direction, 6 history pairs, the batch copies.
    expect(large.weightVectors).toBe(19);
    expect(large.totalBytes / small.totalBytes).toBeGreaterThan(50);
    expect(estimate(1000, "ap").weightBytes).toBeLessThan(large.weightBytes / 5);
  });

  it("refuses training above the bound before the label-sized buffers exist", async () => {
    const corpus = manyLabels(10_000);
    let reported: number | undefined;
    const run = trainCrf(corpus, {
      maxMemoryBytes: 1e9,
      onPrepared: (p) => {
        reported = p.memory.totalBytes;
      },
    });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrainingMemoryError);
    const refusal = error as TrainingMemoryError;
    expect(refusal.code).toBe("usage");
    expect(refusal.estimate.totalBytes).toBe(reported);
    // 10⁸ label pairs: 800 MB a weight vector, 19 of them.
    expect(refusal.estimate.totalBytes).toBeGreaterThan(15e9);
    expect(refusal.message).toMatch(
      /^training would need about \d+\.\d GB, more than the 1\.00 GB allowed \(\d+\.\d GB more: 10,000 labels \(100,000,000 label pairs\) and 98 attributes → /,
    );
  });

  it("counts order 2's L³ trigram weights in every copy and its L³ context, before allocating", async () => {
    const data = prepareTrainingData(manyLabels(600), { shared: false });
    const first = estimateTrainingMemory(data.layout, data.dataset);
    const second = estimateTrainingMemory(data.layout, data.dataset, { order: 2 });
    expect(second.trigrams).toBe(600 ** 3);
    expect(second.weights).toBe(first.weights + 600 ** 3);
    // 19 vectors of 2.16·10⁸ trigram weights, and the context's four L³ tables.
    expect(second.totalBytes - first.totalBytes).toBeGreaterThan(8 * 600 ** 3 * (19 + 4));
    // Sequences of at least 3 tokens: order 2 refuses shorter corpora before its estimate.
    const long = manyLabels(600).map((s, i) => ({
      attributes: {
        ...s.attributes,
        length: 3,
        offsets: Int32Array.of(0, 2, 4, 6),
        names: [...s.attributes.names, "a", "b", "c", "d"],
      },
      labels: [`L${i}`, `L${(i + 1) % 600}`, `L${(i + 2) % 600}`],
    }));
    const error = await trainCrf(long, { order: 2, maxMemoryBytes: 2e9 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrainingMemoryError);
    expect((error as Error).message).toMatch(
      /600 labels \(360,000 label pairs, 216,000,000 label triples\)/,
    );
  });

  it("refuses a frequency cut-off that removes every attribute, naming the highest count", () => {
    const corpus = randomCorpus(5, { sequences: 20, vocabulary: 5 });
    const error = (() => {
      try {
        prepareTrainingData(corpus, { minAttributeFrequency: 1000, shared: false });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(AttributeFrequencyError);
    const refusal = error as AttributeFrequencyError;
    expect(refusal.code).toBe("usage");
    expect(refusal.highestCount).toBeGreaterThan(1);
    expect(refusal.highestCount).toBeLessThan(1000);
    expect(refusal.message).toMatch(
      new RegExp(`the most frequent occurs ${refusal.highestCount} times`),
    );
    // At the highest count itself one attribute is left: training goes on.
    const kept = prepareTrainingData(corpus, {
      minAttributeFrequency: refusal.highestCount,
      shared: false,
    });
    expect(kept.attributes.size).toBeGreaterThanOrEqual(1);
  });
});
