import { type ChainScores, chainDecoder } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { naiveDDDecoder, twoSlaveDecoder } from "../decoders/decoders.js";
import {
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  trainConsistencyWeights,
} from "./general-crf.js";
import { consistencyFeature, labelSubsequences } from "./patterns.js";

// Labels: 0 = O, 1 = B-PER. The name "Zed" is sure in one tweet (unary 3) and unsure in the other
// (unary −0.5): only the consistency between the two occurrences can fix the second.
const L = 2;
function tweet(unsure: boolean): ChainScores {
  return {
    n: 3,
    L,
    unary: Float64Array.of(0, -1, 0, unsure ? -0.5 : 3, 0, -1),
    transition: Float64Array.of(0, 0, 0, -2),
  };
}

function group(): GroupInstance {
  return groupInstance(
    [tweet(false), tweet(true)],
    [
      ["met", "Zed", "today"],
      ["saw", "Zed", "again"],
    ],
    {},
    [Int32Array.of(0, 1, 0), Int32Array.of(0, 1, 0)],
  );
}

describe("general CRF: consistency weights by averaged perceptron through any decoder", () => {
  const subsequences = labelSubsequences([Int32Array.of(0, 1, 0)], 3, L);
  const base = { L, outsideLabel: 0, subsequences, factorOptions: {} };

  it.each([
    ["two-slave", () => twoSlaveDecoder()],
    ["naive-dd", () => naiveDDDecoder()],
  ])(
    "learns a positive word/entity weight that fixes the unsure occurrence (%s)",
    async (_, make) => {
      const instances = Array.from({ length: 4 }, group);
      const decoder = make();
      const before = decoder.decode(
        groupProblem(instances[0]!, { ...base, weights: new Float64Array(6) }),
      );
      expect(Array.from(before.labels)).toEqual([0, 1, 0, 0, 0, 0]);
      const result = await trainConsistencyWeights(instances, base, decoder, {
        epochs: 5,
        learningRate: 0.5,
      });
      const wordEntity = result.weights[consistencyFeature(0, false)]!;
      expect(wordEntity).toBeGreaterThan(0);
      for (const w of result.weights) expect(w).toBeGreaterThanOrEqual(0);
      const after = decoder.decode(
        groupProblem(instances[0]!, { ...base, weights: result.weights }),
      );
      expect(after.certified).toBe(true);
      expect(sentenceLabels(instances[0]!, after.labels).map((y) => Array.from(y))).toEqual([
        [0, 1, 0],
        [0, 1, 0],
      ]);
      expect(result.mistakes[0]).toBeGreaterThan(0);
      expect(result.mistakes.at(-1)).toBe(0);
    },
  );

  it("needs gold labels, and a decoder without patterns (Viterbi) learns nothing", async () => {
    const unlabelled = groupInstance(
      [tweet(false), tweet(true)],
      [
        ["met", "Zed", "today"],
        ["saw", "Zed", "again"],
      ],
    );
    await expect(
      trainConsistencyWeights([unlabelled], base, twoSlaveDecoder(), { epochs: 1 }),
    ).rejects.toThrow(/gold/);
    const viterbi = chainDecoder();
    const wrapped = {
      name: "viterbi",
      decode: (p: Parameters<typeof viterbi.decode>[0]) => viterbi.decode({ scores: p.scores }),
    };
    const r = await trainConsistencyWeights([group()], base, wrapped, { epochs: 3 });
    // Viterbi ignores the patterns, so every epoch makes the same mistake and the weight grows.
    expect(r.mistakes).toEqual([1, 1, 1]);
  });
});
