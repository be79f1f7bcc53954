import {
  AttributeFrequencyError,
  TrainingMemoryError,
  type TrainingMemoryEstimate,
  type TrainingPreparation,
} from "@lagrange/chain-crf";
import { lagrangeErrorCode } from "@lagrange/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseByteSize } from "./define/train-values.js";
import { checkL2sTrainingMemory, memoryOptions, trainingRefusal } from "./training-memory.js";

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

  it("bounds --learner l2s by its hashed tables before they exist", () => {
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 30 }, 1, 8e9)).toThrow(
      /--bits 30: the csoaa learner's hashed weight table of 2\^30 entries would need about 25\.8 GB/,
    );
    expect(() => checkL2sTrainingMemory({ kind: "perceptron", bits: 28 }, 2, 8e9)).toThrow(
      /tables \(2 action spaces\) of 2\^28 entries/,
    );
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 20 }, 1, undefined)).not.toThrow();
    expect(() => checkL2sTrainingMemory({ kind: "csoaa", bits: 30 }, 1, null)).not.toThrow();
  });
});
