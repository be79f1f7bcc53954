import { type LabelledSequence, prepareTrainingData, trainCrf } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomCorpus } from "../testing/random-corpus.js";
import { bcrfObjective, meanFieldObjective } from "./objectives.js";

const CONVERGED = { iterations: 4000, tolerance: 1e-13 };

function randomWeights(count: number, seed: number): Float64Array {
  const rnd = seededRandom(seed);
  return Float64Array.from({ length: count }, () => rnd() * 2 - 1);
}

function lossOf(sequences: readonly LabelledSequence[], objective = bcrfObjective(CONVERGED)) {
  const data = prepareTrainingData(sequences);
  data.encoder.setObjective(objective);
  return data;
}

describe("Bregman CRF Fenchel–Young loss on chain-crf's features", () => {
  it("its feature gradient matches finite differences (full, partial and label-set annotations)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.boolean(),
        fc.constantFrom(0, 0.3),
        (seed, transitions, unknown) => {
          const corpus = randomCorpus(seed, { transitions, unknown, sets: unknown / 2 });
          const { encoder } = lossOf(corpus);
          const w = randomWeights(encoder.numWeights, seed);
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
      { numRuns: 25 },
    );
  });

  it("the partial loss is ≥ 0 and equals the full loss when the annotation is complete", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (seed) => {
        const full = randomCorpus(seed, { sequences: 6 });
        const rnd = seededRandom(seed + 1);
        const partial = full.map((s) => ({
          attributes: s.attributes,
          labels: s.labels!.map((l, t) => (t > 0 && rnd() < 0.5 ? null : l)),
        }));
        // One encoder over both copies: the same feature layout and label ids.
        const { encoder } = lossOf([...full, ...partial]);
        const w = randomWeights(encoder.numWeights, seed);
        for (let i = 0; i < full.length; i++) {
          const lf = encoder.instanceLoss(i, w, null);
          const lp = encoder.instanceLoss(full.length + i, w, null);
          expect(lp).toBeGreaterThanOrEqual(-1e-9);
          expect(lf).toBeGreaterThanOrEqual(lp - 1e-9); // fewer labellings consistent: bigger loss
          if (partial[i]!.labels.every((l) => l !== null))
            expect(Math.abs(lf - lp)).toBeLessThan(1e-9);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("the batch path (WebAssembly sweeps) gives the per-instance losses and gradients", () => {
    const corpus = randomCorpus(3, { sequences: 30, maxLength: 9, labels: 4, unknown: 0.1 });
    const { encoder } = lossOf(corpus, bcrfObjective({ iterations: 6 }));
    const w = randomWeights(encoder.numWeights, 4);
    const g1 = new Float64Array(encoder.numWeights);
    let l1 = 0;
    for (let i = 0; i < encoder.numInstances; i++) l1 += encoder.instanceLoss(i, w, g1);
    const g2 = new Float64Array(encoder.numWeights);
    const l2 = encoder.rangeLoss(0, encoder.numInstances, w, g2);
    expect(Math.abs(l1 - l2)).toBeLessThan(1e-9 * Math.max(1, Math.abs(l1)));
    for (let k = 0; k < g1.length; k++) expect(Math.abs(g1[k]! - g2[k]!)).toBeLessThan(1e-9);
  });

  it("trains with chain-crf's L-BFGS, on worker threads too, and records the objective in the model", async () => {
    const corpus = randomCorpus(9, { sequences: 40, maxLength: 8, labels: 3 });
    const one = await trainCrf(corpus, { objective: bcrfObjective(), maxIterations: 15 });
    const two = await trainCrf(corpus, {
      objective: bcrfObjective(),
      maxIterations: 15,
      threads: 2,
    });
    expect(one.model.settings.objective).toBe("bcrf");
    expect(Math.abs(one.loss - two.loss)).toBeLessThan(1e-6 * Math.max(1, one.loss));
    const mf = await trainCrf(corpus, {
      objective: meanFieldObjective(),
      maxIterations: 15,
      threads: 2,
    });
    expect(mf.model.settings.objective).toBe("mean-field");
    expect(mf.loss).toBeLessThan(
      (await trainCrf(corpus, { objective: meanFieldObjective(), maxIterations: 1 })).loss,
    );
  });
});
