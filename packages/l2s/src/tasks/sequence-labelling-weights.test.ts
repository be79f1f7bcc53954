import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PredictRequest, Search } from "../search/types.js";
import { type LabelGuide, type LabellingExample, sequenceLabelling } from "./sequence-labelling.js";

/** Runs the task with a search that always takes `choice(i)`, recording requests and losses. */
function record(
  labelWeights: readonly number[] | undefined,
  example: LabellingExample,
  choice: (i: number) => number,
  guide?: (example: LabellingExample) => LabelGuide,
) {
  const requests: { costs: number[] | undefined; allowed: number[] | undefined }[] = [];
  let loss = 0;
  const search: Search = {
    predict(request: PredictRequest) {
      requests.push({
        costs:
          request.referenceCosts === undefined ? undefined : Array.from(request.referenceCosts),
        allowed: request.allowed === undefined ? undefined : Array.from(request.allowed),
      });
      return choice(request.tag);
    },
    loss(value) {
      loss += value;
    },
    outputWanted: true,
    training: true,
  };
  sequenceLabelling({
    labels: ["A", "B", "C"],
    ...(labelWeights === undefined ? {} : { labelWeights }),
    ...(guide === undefined ? {} : { guide }),
  }).run(example, search);
  return { requests, loss };
}

function example(gold: readonly number[]): LabellingExample {
  const n = gold.length;
  return {
    tokens: {
      length: n,
      offsets: new Int32Array(n + 1),
      hashes: new Uint32Array(0),
      values: null,
    },
    gold: Int32Array.from(gold),
  };
}

describe("sequence labelling with class weights", () => {
  it("a mistake costs its gold label's weight, in the loss and the one-step costs", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 8, maxLength: 8 }),
        fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 3, maxLength: 3 }),
        (gold, predicted, w) => {
          const { requests, loss } = record(w, example(gold), (i) => predicted[i]!);
          let expected = 0;
          gold.forEach((g, i) => {
            if (predicted[i] !== g) expected += w[g]!;
            const costs = requests[i]!.costs;
            if (w[g] === 1) expect(costs).toBeUndefined();
            else expect(costs).toEqual([0, 1, 2].map((a) => (a === g ? 0 : w[g]!)));
          });
          expect(loss).toBeCloseTo(expected, 12);
        },
      ),
    );
  });

  it("weights all 1: the plain Hamming loss, no reference costs", () => {
    const { requests, loss } = record([1, 1, 1], example([0, 1, 2, 1]), () => 1);
    expect(loss).toBe(2);
    expect(requests.every((r) => r.costs === undefined)).toBe(true);
  });

  it("with a guide: costs parallel to the allowed labels, none when gold is not allowed", () => {
    const guide = (): LabelGuide => ({
      allowedAt(position, allowed) {
        allowed[0] = 2;
        allowed[1] = position === 0 ? 0 : 1;
        return 2;
      },
      commit() {},
    });
    const { requests } = record([3, 1, 0.5], example([0, 0]), () => 2, guide);
    expect(requests[0]).toEqual({ costs: [3, 0], allowed: [2, 0] });
    expect(requests[1]).toEqual({ costs: undefined, allowed: [2, 1] });
  });

  it("refuses a weight that is not positive", () => {
    expect(() => sequenceLabelling({ labels: ["A", "B"], labelWeights: [1, 0] })).toThrow(
      /labelWeights\[1\] = 0/,
    );
  });
});
