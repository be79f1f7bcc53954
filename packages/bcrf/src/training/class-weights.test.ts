import { prepareTrainingData } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomCorpus } from "../testing/random-corpus.js";
import { bcrfObjective, meanFieldObjective } from "./objectives.js";

/*
 * Class weights under the plug-in objectives: the encoder hands them the cost-augmented scores
 * (log w of the gold label added to every other label), so the loss stays a function of the
 * weights with its own exact gradient, and weights all 1 change nothing.
 */

const objectives = {
  bcrf: () => bcrfObjective({ iterations: 4000, tolerance: 1e-13 }),
  "mean-field": () => meanFieldObjective(),
} as const;

describe.each(Object.keys(objectives) as (keyof typeof objectives)[])(
  "class weights under the %s objective",
  (name) => {
    it("the feature gradient matches central finite differences", () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1e9 }),
          fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), { minLength: 8, maxLength: 8 }),
          (seed, classWeights) => {
            const data = prepareTrainingData(randomCorpus(seed, { sequences: 3 }));
            const { encoder } = data;
            encoder.setObjective(objectives[name]());
            encoder.setClassWeights(Float64Array.from(classWeights.slice(0, encoder.numLabels)));
            const rnd = seededRandom(seed);
            const w = Float64Array.from({ length: encoder.numWeights }, () => rnd() * 2 - 1);
            const grad = new Float64Array(encoder.numWeights);
            for (let i = 0; i < encoder.numInstances; i++) encoder.instanceLoss(i, w, grad);
            const total = () => {
              let s = 0;
              for (let i = 0; i < encoder.numInstances; i++) s += encoder.instanceLoss(i, w, null);
              return s;
            };
            const h = 1e-6;
            for (let k = 0; k < encoder.numWeights; k++) {
              const keep = w[k]!;
              w[k] = keep + h;
              const up = total();
              w[k] = keep - h;
              const down = total();
              w[k] = keep;
              expect(Math.abs((up - down) / (2 * h) - grad[k]!)).toBeLessThan(1e-5);
            }
          },
        ),
        { numRuns: 15 },
      );
    });

    it("weights all 1 give the unweighted loss, bit for bit", () => {
      const data = prepareTrainingData(randomCorpus(11, { sequences: 4 }));
      const { encoder } = data;
      encoder.setObjective(objectives[name]());
      const w = Float64Array.from({ length: encoder.numWeights }, (_, k) => Math.sin(k));
      const plain = encoder.instanceLoss(0, w, null);
      encoder.setClassWeights(new Float64Array(encoder.numLabels).fill(1));
      expect(encoder.instanceLoss(0, w, null)).toBe(plain);
      encoder.setClassWeights(new Float64Array(encoder.numLabels).fill(3));
      expect(encoder.instanceLoss(0, w, null)).not.toBe(plain);
    });
  },
);
