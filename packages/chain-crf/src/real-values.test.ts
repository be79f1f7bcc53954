import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelFromTraining } from "./crf-model.js";
import { fromAttributeLists } from "./features/builder.js";
import type { Attribute } from "./features/types.js";
import type { LabelledSequence } from "./model/dataset.js";
import { TRAINING_ALGORITHMS, trainCrf } from "./train-crf.js";
import { prepareTrainingData } from "./training-data.js";

/** A model with random weights over labels A, B, C and attributes a, b, c, d. */
function randomModel(seed: number) {
  const rnd = seededRandom(seed);
  const names = ["a", "b", "c", "d"];
  const sequences = Array.from({ length: 8 }, () => {
    const n = 1 + Math.floor(rnd() * 4);
    const tokens = Array.from({ length: n }, () => names.filter(() => rnd() < 0.6));
    tokens[0]!.push(...names); // every attribute seen
    return {
      attributes: fromAttributeLists(tokens),
      labels: Array.from({ length: n }, () => ["A", "B", "C"][Math.floor(rnd() * 3)]!),
    };
  });
  const data = prepareTrainingData(sequences, { shared: false });
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 4 - 2);
  return modelFromTraining(data, weights);
}

describe("real-valued attributes", () => {
  it("an attribute of value v adds v times its weight to the token's label scores", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.integer({ min: 0, max: 2 }),
        (seed, v, at) => {
          const model = randomModel(seed);
          const n = 3;
          const others: Attribute[][] = [
            [{ name: "b", value: 1 }],
            [{ name: "c", value: 0.5 }],
            [],
          ];
          const scores = (extra: Attribute | null) =>
            model.chainScores(
              fromAttributeLists(
                others.map((list, t) => (t === at && extra ? [...list, extra] : list)),
              ),
            ).unary;
          const without = scores(null);
          const unit = scores({ name: "a", value: 1 });
          const scaled = scores({ name: "a", value: v });
          for (let t = 0; t < n; t++) {
            for (let y = 0; y < model.numLabels; y++) {
              const k = t * model.numLabels + y;
              const weight = unit[k]! - without[k]!;
              if (t !== at) expect(weight).toBe(0);
              expect(scaled[k]!).toBeCloseTo(without[k]! + v * weight, 9);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("every trainer learns a label that only an attribute's value tells (its name is on every token)", async () => {
    // Label P where x > 0, N where x < 0: binary attributes see the same name everywhere.
    const rnd = seededRandom(7);
    const corpus = (count: number): LabelledSequence[] =>
      Array.from({ length: count }, () => {
        const n = 2 + Math.floor(rnd() * 5);
        const xs = Array.from({ length: n }, () => (rnd() < 0.5 ? -1 : 1) * (0.2 + rnd()));
        return {
          attributes: fromAttributeLists(xs.map((x) => [{ name: "x", value: x }, "bias"])),
          labels: xs.map((x) => (x > 0 ? "P" : "N")),
        };
      });
    const train = corpus(150);
    const test = corpus(100);
    const accuracy = (tag: (s: LabelledSequence) => string[]) => {
      let right = 0;
      let all = 0;
      for (const s of test) {
        const predicted = tag(s);
        for (const [t, label] of predicted.entries()) {
          all++;
          if (label === s.labels![t]) right++;
        }
      }
      return right / all;
    };
    for (const algorithm of TRAINING_ALGORITHMS) {
      const { model } = await trainCrf(train, { algorithm, maxIterations: 30, c1: 0.01, seed: 3 });
      expect(
        accuracy((s) => model.tag(s.attributes)),
        algorithm,
      ).toBeGreaterThan(0.97);
    }
  });
});
