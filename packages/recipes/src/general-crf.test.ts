import {
  type CrfModel,
  fromAttributeLists,
  type JsonValue,
  loadModelFromBytes,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { lagrangeErrorCode } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { generalCrfOf } from "./general-crf.js";

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
