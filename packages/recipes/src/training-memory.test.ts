import { TrainingMemoryError, type TrainingPreparation } from "@lagrange/chain-crf";
import type { Sentence } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import {
  checkL2sTrainingMemory,
  estimateExtraction,
  l2sActionSpaces,
  trainingMemoryBound,
} from "./training-memory.js";

const preparation = (tokens: number, labels: number, totalBytes: number): TrainingPreparation => ({
  memory: {
    labels,
    attributes: 100,
    tokens,
    stateFeatures: 100,
    weights: 100,
    weightVectors: 10,
    weightBytes: 8000,
    inferenceBytes: 0,
    corpusBytes: 0,
    totalBytes,
  },
  attributes: 100,
  attributesSeen: 100,
  highestAttributeCount: 10,
  minAttributeFrequency: 1,
});

describe("trainingMemoryBound", () => {
  it("refuses past the bound, counting what is in use and a general CRF's group chains", () => {
    const heard: number[] = [];
    const bound = (limitBytes: number | undefined, general = false) =>
      trainingMemoryBound({
        limitBytes,
        general,
        inUseBytes: () => 1000,
        onEstimate: (_, needed) => heard.push(needed),
      });
    bound(3000).onPrepared(preparation(10, 5, 2000));
    expect(heard).toEqual([3000]);
    expect(() => bound(2999).onPrepared(preparation(10, 5, 2000))).toThrow(TrainingMemoryError);
    // 10 tokens × 5² labels × 8 bytes of chains on top.
    let refusal: unknown;
    try {
      bound(3000, true).onPrepared(preparation(10, 5, 2000));
    } catch (error) {
      refusal = error;
    }
    expect((refusal as TrainingMemoryError).neededBytes).toBe(5000);
    expect((refusal as TrainingMemoryError).extra?.bytes).toBe(2000);
    bound(undefined, true).onPrepared(preparation(10, 5, 1e15));
    expect(heard).toEqual([3000, 1000 + 1e15 + 2000]);
  });

  it("bounds L2S training by its hashed tables before they exist", () => {
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 30 }, 1, 8e9)).toThrow(
      /--bits 30: the csoaa learner's hashed weight table of 2\^30 entries would need about 25\.8 GB/,
    );
    expect(() => checkL2sTrainingMemory({ kind: "perceptron", bits: 28 }, 2, 8e9)).toThrow(
      /tables \(2 action spaces\) of 2\^28 entries/,
    );
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 20 }, 1, 8e9)).not.toThrow();
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 30 }, 1, undefined)).not.toThrow();
  });

  it("counts an L2S model's hashed tables: a labelled parser has two", () => {
    expect(l2sActionSpaces("tagger")).toBe(1);
    expect(l2sActionSpaces("parser")).toBe(2);
    expect(l2sActionSpaces("parser", false)).toBe(1);
  });
});

describe("estimateExtraction", () => {
  // 2,000 sentences of 10 tokens over 50 words: a word's names repeat wherever it does.
  const words = Array.from({ length: 50 }, (_, k) => `w${k}`);
  const sentences: Sentence[] = Array.from({ length: 2000 }, (_, i) => {
    const tokens = Array.from({ length: 10 }, (_, j) => words[(i * 7 + j * 3) % 50]!);
    return { tokens, columns: [tokens] };
  });
  const perToken = (sentence: Sentence) => ({
    names: sentence.tokens.flatMap((t) => Array.from({ length: 150 }, (_, f) => `${f}=${t}`)),
    transition: null,
  });

  it("does not stop at the first tokens, whose names are all new, when the whole fits", () => {
    const whole = estimateExtraction(sentences, perToken);
    const budget = 1.5 * whole.bytes;
    // The first sentence (one token) scaled linearly, as if every name stayed new: past it.
    const first = estimateExtraction([sentences[0]!], perToken);
    const linear = (whole.attributes / first.attributes) * first.bytes;
    expect(linear).toBeGreaterThan(budget);
    const bounded = estimateExtraction(sentences, perToken, budget);
    expect(bounded.sampledTokens).toBe(whole.sampledTokens);
    expect(bounded.bytes).toBeLessThan(budget);
    expect(whole.distinct).toBeLessThanOrEqual(50 * 150 * 4);
  });

  it("stops at once where one token's expansion alone is past the budget", () => {
    const huge = (sentence: Sentence) => ({
      names: sentence.tokens.flatMap((t) => Array.from({ length: 20_000 }, (_, f) => `${f}=${t}`)),
      transition: null,
    });
    const bounded = estimateExtraction(sentences, huge, 1e9);
    expect(bounded.sampledTokens).toBeLessThan(50);
    expect(bounded.bytes).toBeGreaterThan(1e9);
  });
});
