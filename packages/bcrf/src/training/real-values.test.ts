import {
  fromAttributeLists,
  type LabelledSequence,
  prepareTrainingData,
  type SequenceObjective,
  trainCrf,
} from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bcrfObjective, meanFieldObjective } from "./objectives.js";

/** Small random sequences whose attributes carry real values (CRFsuite's `name:value`). */
function valuedCorpus(seed: number, count = 5): LabelledSequence[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, (_, s) => {
    const n = 1 + Math.floor(rnd() * 4);
    const tokens = Array.from({ length: n }, () =>
      Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ({
        name: `w=${Math.floor(rnd() * 5)}`,
        value: Math.round((rnd() * 4 - 2) * 100) / 100,
      })),
    );
    const labels = Array.from({ length: n }, (_, t) =>
      s === 0 && t < 3 ? `L${t}` : `L${Math.floor(rnd() * 3)}`,
    );
    return { attributes: fromAttributeLists(tokens), labels };
  });
}

function gradientError(corpus: LabelledSequence[], objective: SequenceObjective, seed: number) {
  const { encoder } = prepareTrainingData(corpus, { shared: false });
  encoder.setObjective(objective);
  const rnd = seededRandom(seed);
  const w = Float64Array.from({ length: encoder.numWeights }, () => rnd() - 0.5);
  const grad = new Float64Array(encoder.numWeights);
  for (let i = 0; i < encoder.numInstances; i++) encoder.instanceLoss(i, w, grad);
  const total = () => {
    let s = 0;
    for (let i = 0; i < encoder.numInstances; i++) s += encoder.instanceLoss(i, w, null);
    return s;
  };
  let worst = 0;
  const h = 1e-6;
  for (let k = 0; k < encoder.numWeights; k++) {
    const keep = w[k]!;
    w[k] = keep + h;
    const up = total();
    w[k] = keep - h;
    const down = total();
    w[k] = keep;
    worst = Math.max(worst, Math.abs((up - down) / (2 * h) - grad[k]!));
  }
  return worst;
}

describe("bcrf and mean-field objectives with real-valued attributes", () => {
  it("their feature gradients match central finite differences", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (seed) => {
        const corpus = valuedCorpus(seed);
        const bcrf = bcrfObjective({ iterations: 4000, tolerance: 1e-13 });
        expect(gradientError(corpus, bcrf, seed)).toBeLessThan(1e-5);
        expect(gradientError(corpus, meanFieldObjective({ iterations: 3 }), seed)).toBeLessThan(
          1e-5,
        );
      }),
      { numRuns: 20 },
    );
  });

  it("train a label that only an attribute's value tells", async () => {
    const rnd = seededRandom(11);
    const corpus = (count: number): LabelledSequence[] =>
      Array.from({ length: count }, () => {
        const xs = Array.from({ length: 2 + Math.floor(rnd() * 4) }, () =>
          rnd() < 0.5 ? -(0.2 + rnd()) : 0.2 + rnd(),
        );
        return {
          attributes: fromAttributeLists(xs.map((x) => [{ name: "x", value: x }, "bias"])),
          labels: xs.map((x) => (x > 0 ? "P" : "N")),
        };
      });
    const test = corpus(60);
    for (const objective of [bcrfObjective(), meanFieldObjective()]) {
      const { model } = await trainCrf(corpus(120), { objective, maxIterations: 40 });
      let right = 0;
      let all = 0;
      for (const s of test) {
        for (const [t, label] of model.tag(s.attributes).entries()) {
          all++;
          if (label === s.labels![t]) right++;
        }
      }
      expect(right / all, objective.name).toBeGreaterThan(0.97);
    }
  });
});
