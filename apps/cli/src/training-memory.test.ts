import {
  AttributeFrequencyError,
  TrainingMemoryError,
  type TrainingMemoryEstimate,
  type TrainingPreparation,
} from "@lagrange/chain-crf";
import { lagrangeErrorCode } from "@lagrange/core";
import type { Sentence } from "@lagrange/datasets";
import { checkExtractionMemory, estimateExtraction } from "@lagrange/recipes";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseByteSize } from "./define/train-values.js";
import { memoryOptions, trainingMemoryLimit, trainingRefusal } from "./training-memory.js";

const memory: TrainingMemoryEstimate = {
  labels: 10,
  attributes: 5000,
  tokens: 1000,
  stateFeatures: 2000,
  weights: 2120,
  weightVectors: 19,
  weightBytes: 322_240,
  inferenceBytes: 10_000,
  corpusBytes: 20_000,
  totalBytes: 352_240,
};

function preparation(changes: Partial<TrainingPreparation> = {}): TrainingPreparation {
  return {
    memory,
    attributes: 5000,
    attributesSeen: 5000,
    highestAttributeCount: 900,
    minAttributeFrequency: 1,
    ...changes,
  };
}

/** What `run` wrote to stderr. */
function stderrOf(run: () => void): string {
  let text = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return text;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("--max-memory", () => {
  it("reads sizes in decimal and binary units, or none", () => {
    expect(parseByteSize("8G")).toBe(8e9);
    expect(parseByteSize("512MB")).toBe(512e6);
    expect(parseByteSize("1.5GiB")).toBe(1.5 * 2 ** 30);
    expect(parseByteSize("2e9")).toBe(2e9);
    expect(parseByteSize("none")).toBeNull();
    for (const bad of ["", "-1G", "8 parsecs", "NaN", "0", "G"]) {
      expect(() => parseByteSize(bad), bad).toThrow(/expected a size such as 8G/);
    }
  });

  it("refuses a CRF above the bound counting what the process holds, and general CRFs' groups", () => {
    const roomy = process.memoryUsage().rss + 1e9;
    expect(() => memoryOptions(roomy).onPrepared(preparation())).not.toThrow();
    const huge = preparation({ memory: { ...memory, totalBytes: 1e12 } });
    expect(() => memoryOptions(roomy).onPrepared(huge)).toThrow(TrainingMemoryError);
    expect(() => memoryOptions(null).onPrepared(huge)).not.toThrow();
    // 10⁷ tokens × 100² labels × 8 bytes of group chains on top of a small CRF.
    const groups = preparation({ memory: { ...memory, tokens: 1e7, labels: 100 } });
    expect(() => memoryOptions(roomy).onPrepared(groups)).not.toThrow();
    let refusal: unknown;
    try {
      memoryOptions(roomy, true).onPrepared(groups);
    } catch (error) {
      refusal = error;
    }
    expect((refusal as TrainingMemoryError).extra?.bytes).toBe(8e11);
    const cli = trainingRefusal(refusal) as Error;
    expect(lagrangeErrorCode(cli)).toBe("usage");
    expect(cli.message).toMatch(
      /and 800 GB for the general CRF's group chains \(tokens × labels²\)\); pass --max-memory \d+G to proceed/,
    );
  });

  it("warns, once, when --min-freq keeps under 1 % of the attributes", () => {
    const options = memoryOptions(null);
    const thin = preparation({ minAttributeFrequency: 50, attributes: 12, attributesSeen: 5000 });
    const first = stderrOf(() => options.onPrepared(thin));
    expect(first).toMatch(
      /^lagrange: warning: --min-freq 50 keeps 12 of 5000 attributes \(0\.24%; the most frequent occurs 900 times\): the model will tag mostly by label transitions\n$/,
    );
    expect(stderrOf(() => options.onPrepared(thin))).toBe("");
    expect(stderrOf(() => memoryOptions(null).onPrepared(preparation()))).toBe("");
  });

  it("says which flag to change for the library's refusals", () => {
    const frequency = trainingRefusal(new AttributeFrequencyError(1000, 412, 3000)) as Error;
    expect(lagrangeErrorCode(frequency)).toBe("usage");
    expect(frequency.message).toBe(
      "--min-freq 1000 removes every attribute (the most frequent occurs 412 times): the model would tag by label transitions alone; lower it to 412 or less",
    );
    const other = new Error("x");
    expect(trainingRefusal(other)).toBe(other);
  });
});

/** Sentences of the given lengths, a word and a gold column each. */
function sentencesOf(lengths: readonly number[]): Sentence[] {
  return lengths.map((n, i) => {
    const words = Array.from({ length: n }, (_, t) => `w${i}_${t}`);
    const labels = words.map(() => "O");
    return { tokens: words, columns: [words, labels], labels };
  });
}

/** `k` attributes per token, as a CRF++ template of k U lines generates. */
const perToken = (k: number) => (sentence: Sentence) => ({
  names: sentence.tokens.flatMap((w) => Array.from({ length: k }, (_, j) => `U${j}:${w}`)),
  transition: null,
});

describe("the attributes' estimate, before they are generated", () => {
  it("scales a sample to every token of the corpus", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        (lengths, k) => {
          const sentences = sentencesOf(lengths);
          const tokens = lengths.reduce((a, b) => a + b, 0);
          const e = estimateExtraction(sentences, perToken(k));
          expect(e.tokens).toBe(tokens);
          expect(e.attributes).toBe(k * tokens);
          expect(e.distinct).toBeLessThanOrEqual(e.attributes);
          // A sample, not the corpus: at most 4,000 tokens and one window past them.
          expect(e.sampledTokens).toBeLessThanOrEqual(Math.min(tokens, 4000 + 64));
          expect(e.bytes).toBeGreaterThan(100 * e.attributes);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("scales distinct names at the rate the sample still found new ones", () => {
    // 100,000 tokens over a vocabulary of 50 words: the sample has seen every name by its half.
    const sentences = sentencesOf(Array.from({ length: 5000 }, () => 20)).map((s) => {
      const words = s.tokens.map((_, t) => `v${(t * 7 + s.tokens.length) % 50}`);
      return { ...s, tokens: words, columns: [words, s.labels!], labels: s.labels! };
    });
    const e = estimateExtraction(sentences, perToken(1));
    expect(e.attributes).toBe(100_000);
    expect(e.distinct).toBeLessThan(100 * 50);
    // Every name new (a word per token): linear.
    expect(estimateExtraction(sentencesOf([5000, 5000]), perToken(1)).distinct).toBe(10_000);
  });

  it("stops sampling at one token when its expansion already passes the budget", () => {
    const seen: number[] = [];
    const e = estimateExtraction(
      sentencesOf([50, 50, 50, 50]),
      (sentence) => {
        seen.push(sentence.tokens.length);
        return perToken(10_000)(sentence);
      },
      1e6,
    );
    expect(seen).toEqual([1]);
    expect(e.attributes).toBe(2_000_000);
  });

  it("refuses past --max-memory naming what generates the attributes and the figures", () => {
    const e = estimateExtraction(sentencesOf([20, 20]), perToken(500));
    let refusal: unknown;
    try {
      checkExtractionMemory(e, "--template big.tpl", 10e6, 8e6);
    } catch (error) {
      refusal = error;
    }
    expect(lagrangeErrorCode(refusal)).toBe("usage");
    expect((refusal as Error).message).toMatch(
      /^training would need about [\d.]+ MB, more than the 10\.0 MB allowed \(8\.00 MB in use and [\d.]+ MB for the attributes --template big\.tpl generates: about 20,000, 500\.0 per token over 40 tokens, 20,000 distinct, from 21 tokens extracted first\); pass --max-memory 1G to proceed/,
    );
    expect(() => checkExtractionMemory(e, "--preset ner", 1e9, 8e6)).not.toThrow();
  });

  it('reads --max-memory none as no bound (commander keeps the parser\'s null as "")', () => {
    expect(trainingMemoryLimit(null)).toBeUndefined();
    expect(trainingMemoryLimit("" as unknown as null)).toBeUndefined();
    expect(trainingMemoryLimit(5e8)).toBe(5e8);
    const e = estimateExtraction(sentencesOf([20]), perToken(500));
    expect(() =>
      checkExtractionMemory(e, "x", trainingMemoryLimit("" as unknown as null), 8e9),
    ).not.toThrow();
  });
});
