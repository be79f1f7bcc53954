import {
  type CrfModel,
  fromAttributeLists,
  type JsonValue,
  loadModelFromBytes,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { type ChainScores, lagrangeErrorCode } from "@lagrange/core";
import { scoreLabelling } from "@lagrange/datasets";
import {
  type GroupInstance,
  groupInstance,
  groupProblem,
  labelSubsequences,
  sentenceLabels,
  twoSlaveDecoder,
} from "@lagrange/mincut";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { learnConsistency, type PreparedGeneralCrf } from "./general-crf.js";
import { generalCrfOf } from "./general-crf-settings.js";

/** A three-label chain model (O, B-X, I-X). */
function chainModel(): CrfModel {
  const data = prepareTrainingData(
    [
      {
        attributes: fromAttributeLists([["w=a"], ["w=b"], ["w=c"]]),
        labels: ["O", "B-X", "I-X"],
      },
    ],
    { shared: false },
  );
  return modelFromTraining(data, new Float64Array(data.layout.numWeights));
}

const valid = {
  groups: "documents",
  outsideLabel: 0,
  weights: [0.5, 0.1, 0.2, 0.1, 0.3, 0.1],
  subsequences: [[], [0, 1, 2], [0, 1, 1, 2]],
  factors: { maxLength: 2, maxOccurrences: 10 },
};

/** The general CRF of a model file whose settings are `settings` (written and read back). */
function read(settings: { [key: string]: JsonValue }) {
  const bytes = modelToBytes(chainModel().withSettings({ generalCrf: settings }));
  return generalCrfOf(loadModelFromBytes(bytes, "m.model"), "m.model");
}

describe("a general CRF's part of a model file", () => {
  it("reads back what training writes", () => {
    const crf = read(valid);
    expect(crf?.consistency.outsideLabel).toBe(0);
    expect(Array.from(crf?.consistency.subsequences[2] ?? [])).toEqual([0, 1, 1, 2]);
  });

  it("refuses ids out of range, non-finite weights and unbounded options, naming the file", () => {
    const cases: Array<[{ [key: string]: JsonValue }, RegExp]> = [
      [{ ...valid, outsideLabel: 2 ** 31 - 1 }, /outsideLabel 2147483647 \(3 labels\)/],
      [{ ...valid, outsideLabel: -1 }, /outsideLabel -1/],
      [{ ...valid, outsideLabel: 0.5 }, /outsideLabel 0\.5/],
      [{ ...valid, weights: [1, 2] }, /weights: expected 6 finite numbers/],
      [{ ...valid, weights: [1e308, 0, 0, 0, 0, 0] }, /weights: expected 6 finite numbers/],
      [{ ...valid, weights: [null, 0, 0, 0, 0, 0] }, /weights/],
      [{ ...valid, subsequences: [[], [0, 1, 2], [0, 2 ** 32 - 1]] }, /subsequences\[2\]\[1\]/],
      [{ ...valid, subsequences: [[], [0, 1, 2], [0, 1, 2]] }, /subsequences\[2\]: expected/],
      [{ ...valid, subsequences: [[]] }, /subsequences: expected a list of 2…17 lists/],
      [{ ...valid, factors: { maxOccurrences: 2 ** 31 - 1 } }, /maxOccurrences 2147483647/],
      [{ ...valid, factors: { maxLength: 2 ** 53 } }, /factors\.maxLength 9007199254740992/],
      [{ ...valid, factors: { maxLength: 0 } }, /factors\.maxLength 0/],
      [{ ...valid, grouping: { maxGroupSize: -1 } }, /grouping\.maxGroupSize -1/],
      [{ ...valid, grouping: { minOverlap: 1.5 } }, /grouping\.minOverlap 1\.5/],
      [{ ...valid, grouping: { words: "some" } }, /grouping\.words "some"/],
      [{ ...valid, groups: "sentences" }, /groups "sentences"/],
    ];
    for (const [settings, pattern] of cases) {
      let caught: unknown;
      try {
        read(settings);
      } catch (error) {
        caught = error;
      }
      expect(lagrangeErrorCode(caught), JSON.stringify(settings)).toBe("bad-input");
      expect((caught as Error).message).toMatch(
        /^m\.model: the general-CRF settings are malformed: /,
      );
      expect((caught as Error).message).toMatch(pattern);
    }
  });
});

// Labels O = 0, B-PER = 1. A group of two tweets that say one name twice: the first occurrence
// is sure (the chain's unary `sure` for `first`), the second unsure (O leads by 0.5). `gold`
// says what the name really is at both.
function nameGroup(first: 0 | 1, gold: 0 | 1): GroupInstance {
  const tweet = (label: 0 | 1, sure: boolean): ChainScores => {
    const unary = Float64Array.of(1, 0, 0, 0, 1, 0);
    unary[2 + label] = sure ? 3 : 0;
    unary[2 + (1 - label)] = sure ? 0 : -0.5;
    return { n: 3, L: 2, unary, transition: new Float64Array(4) };
  };
  return groupInstance(
    [tweet(first, true), tweet(1 - first === 1 ? 1 : 0, false)],
    [
      ["met", "Zed", "today"],
      ["saw", "Zed", "again"],
    ],
    {},
    [Int32Array.of(0, gold, 0), Int32Array.of(0, gold, 0)],
  );
}

function prepared(instances: GroupInstance[]): PreparedGeneralCrf {
  const data = prepareTrainingData(
    [{ attributes: fromAttributeLists([["w=a"], ["w=b"]]), labels: ["O", "B-PER"] }],
    { shared: false },
  );
  const base = modelFromTraining(data, new Float64Array(data.layout.numWeights)).withSettings({
    scheme: "IOB2",
  });
  return {
    base,
    settings: { groups: "tweets" },
    instances,
    consistencyBase: {
      L: 2,
      outsideLabel: 0,
      subsequences: labelSubsequences([Int32Array.of(0, 1, 0)], 3, 2),
      factorOptions: {},
    },
    crfMs: 0,
    folds: 4,
    instanceFolds: Int32Array.from(instances, (_, g) => g % 4),
    groupStats: { groups: instances.length, linked: instances.length, withFactors: 0 },
  };
}

describe("the general CRF's held-out choice of epochs and scale", () => {
  it("keeps consistency weights that beat the chain on the cut, and records the choice", async () => {
    // Every group: a sure name and an unsure second occurrence that consistency fixes.
    const trained = await learnConsistency(
      prepared(Array.from({ length: 8 }, () => nameGroup(1, 1))),
      { decoder: twoSlaveDecoder(), epochs: 3, learningRate: 0.5 },
    );
    const s = trained.selection!;
    expect(s.heldOutGroups).toBe(2);
    expect(s.measure).toBe("f1");
    expect(s.perEpoch).toHaveLength(3);
    expect(s.scale).toBeGreaterThan(0);
    expect(s.generalScore).toBeGreaterThan(s.chainScore);
    expect(trained.training.epochs.reduce((sum, e) => sum + e.decodings, 0)).toBe(3 * 6);
    const read = generalCrfOf(loadModelFromBytes(modelToBytes(trained.model), "m.lgm"), "m.lgm");
    expect(read?.settings.selection).toEqual(s);
    expect(Array.from(read!.consistency.weights)).toEqual(Array.from(trained.consistency.weights));
  });

  it("falls back to the chain alone (weights 0) when consistency hurts on the cut", async () => {
    // Training groups reward agreement; on the cut (fold 1: groups 0 and 4) one group has a sure
    // *wrong* occurrence that agreement would spread, and one a lone name the chain gets right.
    const lone = groupInstance(
      [{ n: 2, L: 2, unary: Float64Array.of(1, 0, 0, 3), transition: new Float64Array(4) }],
      [["hi", "Ann"]],
      {},
      [Int32Array.of(0, 1)],
    );
    const instances = Array.from({ length: 8 }, (_, g) =>
      g === 0 ? nameGroup(1, 0) : g === 4 ? lone : nameGroup(1, 1),
    );
    const trained = await learnConsistency(prepared(instances), {
      decoder: twoSlaveDecoder(),
      epochs: 3,
      learningRate: 0.5,
    });
    const s = trained.selection!;
    expect(s.perEpoch.every((score) => score < s.chainScore)).toBe(true);
    expect(s.scale).toBe(0);
    expect(s.epochs).toBe(0);
    expect(s.generalScore).toBe(s.chainScore);
    expect(Array.from(trained.consistency.weights)).toEqual([0, 0, 0, 0, 0, 0]);
    // The perceptron did learn something on the other folds: the cut is what refused it.
    expect(Math.max(...trained.training.weights)).toBeGreaterThan(0);
  });

  it("is never worse than the chain on the cut, whatever the groups (random instances)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            first: fc.constantFrom(0 as const, 1 as const),
            gold: fc.constantFrom(0 as const, 1 as const),
          }),
          { minLength: 4, maxLength: 9 },
        ),
        async (specs) => {
          const p = prepared(specs.map(({ first, gold }) => nameGroup(first, gold)));
          const trained = await learnConsistency(p, {
            decoder: twoSlaveDecoder(),
            epochs: 2,
            learningRate: 0.5,
          });
          const s = trained.selection!;
          expect(s.generalScore).toBeGreaterThanOrEqual(s.chainScore);
          // Recompute the cut's score of the kept weights independently.
          const cut = p.instances.filter((_, g) => g % 4 === 0);
          const decoder = twoSlaveDecoder();
          const gold: string[][] = [];
          const predicted: string[][] = [];
          for (const x of cut) {
            const d = decoder.decode(groupProblem(x, trained.consistency));
            for (const y of sentenceLabels(x, x.gold!)) gold.push(p.base.labels.decode(y));
            for (const y of sentenceLabels(x, d.labels)) predicted.push(p.base.labels.decode(y));
          }
          const again = scoreLabelling(gold, predicted, "IOB2");
          expect(again.kind === "chunk-f1" ? again.evaluation.f1 : -1).toBeCloseTo(
            s.generalScore,
            12,
          );
        },
      ),
      { numRuns: 20 },
    );
  });
});
