import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CrfModel, modelFromTraining } from "../crf-model.js";
import { crfsuiteModelFromBytes, crfsuiteModelToBytes } from "../interop/crfsuite/index.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { TRAINING_ALGORITHMS, trainCrf } from "../train-crf.js";
import { prepareTrainingData } from "../training-data.js";
import type { LabelledSequence } from "./dataset.js";

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

/** Every weight of a model by name: state `attr|label`, bigram `a>b`, start/end, conditioned. */
function namedWeights(model: CrfModel): Map<string, number> {
  const { layout, weights, labels, attributes, transitionAttributes } = model;
  const L = layout.numLabels;
  const out = new Map<string, number>();
  for (let a = 0; a < layout.numAttributes; a++) {
    for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
      out.set(`${attributes.name(a)}|${labels.name(layout.featureLabels[f]!)}`, weights[f]!);
    }
  }
  for (let a = 0; a < L; a++) {
    for (let b = 0; b < L; b++) {
      out.set(`${labels.name(a)}>${labels.name(b)}`, weights[layout.transitionBase + a * L + b]!);
    }
    if (layout.startBase >= 0) {
      out.set(`^${labels.name(a)}`, weights[layout.startBase + a]!);
      out.set(`${labels.name(a)}$`, weights[layout.endBase + a]!);
    }
  }
  for (let a = 0; a < layout.numTransitionAttributes; a++) {
    const o = layout.transitionAttributeOffsets;
    for (let f = o[a]!; f < o[a + 1]!; f++) {
      const pair = layout.transitionFeaturePairs[f]!;
      const name = `${transitionAttributes.name(a)}|${labels.name(Math.floor(pair / L))}>${labels.name(pair % L)}`;
      out.set(name, weights[layout.transitionAttributeBase + f]!);
    }
  }
  return out;
}

/** The model the warm start begins with: new data's layout, the initial model's weights. */
function warmModel(init: CrfModel, sequences: readonly LabelledSequence[]): CrfModel {
  const data = prepareTrainingData(sequences, { init, shared: false });
  expect(data.initialWeights).toBeDefined();
  return modelFromTraining(data, data.initialWeights!);
}

/** A trained model: distinct non-zero weights, so that one put in the wrong place shows. */
async function trained(sequences: readonly LabelledSequence[], seed: number): Promise<CrfModel> {
  return (await trainCrf(sequences, { maxIterations: 15, seed })).model;
}

describe("continued training: the warm start", () => {
  it("keeps every label, attribute and weight of the initial model and adds the new ones at 0 (random corpora)", async () => {
    await fc.assert(
      fc.asyncProperty(seeds, seeds, fc.boolean(), async (s1, s2, transitions) => {
        const a = randomCorpus(s1, { sequences: 5, labels: 3, vocabulary: 6, transitions });
        const b = randomCorpus(s2, { sequences: 5, labels: 4, vocabulary: 9, transitions });
        const init = await trained(a, s1);
        const warm = warmModel(init, b);
        // The initial model's labels first, with their ids.
        expect(warm.labels.names().slice(0, init.labels.size)).toEqual(init.labels.names());
        const union = (x: readonly LabelledSequence[], y: readonly LabelledSequence[]) =>
          new Set(
            [...x, ...y].flatMap((s) => (s.labels ?? []).filter((l) => typeof l === "string")),
          );
        expect(new Set(warm.labels.names())).toEqual(union(a, b));
        const attrs = (x: readonly LabelledSequence[]) => x.flatMap((s) => s.attributes.names);
        expect(new Set(warm.attributes.names())).toEqual(new Set([...attrs(a), ...attrs(b)]));
        const before = namedWeights(init);
        const after = namedWeights(warm);
        for (const [name, w] of before) expect(after.get(name), name).toBe(w);
        for (const [name, w] of after) if (!before.has(name)) expect(w, name).toBe(0);
        // The (conditioned) state features: the initial model's plus those the new data shows.
        const cold = prepareTrainingData(b, { shared: false });
        const shown = namedWeights(
          modelFromTraining(cold, new Float64Array(cold.layout.numWeights)),
        );
        const owned = (m: Map<string, number>) => [...m.keys()].filter((k) => k.includes("|"));
        expect(new Set(owned(after))).toEqual(new Set([...owned(before), ...owned(shown)]));
      }),
      { numRuns: 25 },
    );
  });

  it("gives every sentence the initial model's chain scores over the old labels", async () => {
    await fc.assert(
      fc.asyncProperty(seeds, seeds, async (s1, s2) => {
        const a = randomCorpus(s1, { sequences: 5, labels: 3, transitions: true });
        const b = randomCorpus(s2, { sequences: 5, labels: 4, vocabulary: 9, transitions: true });
        const init = await trained(a, s1);
        const warm = warmModel(init, b);
        const L0 = init.numLabels;
        const L = warm.numLabels;
        for (const s of [...a, ...b]) {
          const x = init.chainScores(s.attributes);
          const y = warm.chainScores(s.attributes);
          for (let t = 0; t < x.n; t++) {
            for (let l = 0; l < L0; l++) expect(y.unary[t * L + l]).toBe(x.unary[t * L0 + l]);
          }
          // Without conditioned bigrams a model gives one block; with them, one per position.
          const blocks = y.transition.length / (L * L);
          const shared = x.transition.length === L0 * L0;
          for (let k = 0; k < blocks; k++) {
            const from = shared ? 0 : k * L0 * L0;
            for (let p = 0; p < L0; p++) {
              for (let q = 0; q < L0; q++) {
                const w = y.transition[k * L * L + p * L + q];
                expect(w).toBe(x.transition[from + p * L0 + q]);
              }
            }
          }
        }
      }),
      { numRuns: 20 },
    );
  });
});

/** Sentences whose labels mostly follow their words (word k is label k mod 4), 10 % noise. */
function learnableCorpus(seed: number, count: number): LabelledSequence[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const n = 2 + Math.floor(rnd() * 7);
    const words = Array.from({ length: n }, () => Math.floor(rnd() * 40));
    return {
      attributes: {
        length: n,
        offsets: Int32Array.from({ length: n + 1 }, (_, i) => 2 * i),
        names: words.flatMap((w, i) => [`w=${w}`, `p=${i === 0 ? "^" : words[i - 1]}`]),
        values: null,
        transition: null,
      },
      labels: words.map((w) => `L${rnd() < 0.1 ? Math.floor(rnd() * 4) : w % 4}`),
    };
  });
}

describe("continued training: the optimum", () => {
  it("from a model of part A, training on B ⊇ A reaches training B from scratch (L-BFGS, convex)", async () => {
    const all = learnableCorpus(11, 80);
    const partA = all.slice(0, 40);
    const options = { c2: 0.5, maxIterations: 500, delta: 1e-10 } as const;
    const first = await trainCrf(partA, options);
    const continued = await trainCrf(all, { ...options, init: first.model });
    const scratch = await trainCrf(all, options);
    expect(continued.numFeatures).toBe(scratch.numFeatures);
    expect(Math.abs(continued.loss - scratch.loss) / scratch.loss).toBeLessThan(1e-6);
    expect(continued.iterations).toBeLessThan(scratch.iterations);
    const c = namedWeights(continued.model);
    for (const [name, w] of namedWeights(scratch.model)) {
      expect(Math.abs(c.get(name)! - w), name).toBeLessThan(1e-3);
    }
    expect(continued.model.settings.init).toMatchObject({
      labels: first.model.numLabels,
      addedFeatures: scratch.numFeatures - first.numFeatures,
    });
  });

  it("a label first seen in the new data is learnt and decoded", async () => {
    const seq = (words: string[], labels: string[]): LabelledSequence => ({
      attributes: {
        length: words.length,
        offsets: Int32Array.from({ length: words.length + 1 }, (_, i) => i),
        names: words.map((w) => `w=${w}`),
        values: null,
        transition: null,
      },
      labels,
    });
    const old = [seq(["a", "b"], ["X", "Y"]), seq(["b", "a"], ["Y", "X"])];
    const init = (await trainCrf(old, { maxIterations: 50 })).model;
    const fresh = [...old, seq(["c", "a"], ["Z", "X"]), seq(["b", "c"], ["Y", "Z"])];
    for (const algorithm of TRAINING_ALGORITHMS) {
      const { model } = await trainCrf(fresh, { algorithm, init, maxIterations: 30 });
      expect(model.labels.names(), algorithm).toEqual(["X", "Y", "Z"]);
      expect(model.tag(seq(["a", "c", "b"], ["X", "Z", "Y"]).attributes), algorithm).toEqual([
        "X",
        "Z",
        "Y",
      ]);
    }
  });

  it("continues an imported CRFsuite model (no start/end weights), keeping its layout's kind", async () => {
    const a = randomCorpus(3, { sequences: 20, labels: 3, vocabulary: 10 });
    const b = randomCorpus(4, { sequences: 20, labels: 4, vocabulary: 12 });
    const data = prepareTrainingData(a, { startEnd: false, shared: false });
    const weights = Float64Array.from({ length: data.layout.numWeights }, (_, k) => (k % 7) - 3);
    const native = modelFromTraining(data, weights);
    const imported = crfsuiteModelFromBytes(crfsuiteModelToBytes(native));
    expect(imported.layout.startBase).toBe(-1);
    const warm = warmModel(imported, [...a, ...b]);
    expect(warm.layout.startBase).toBe(-1);
    const before = namedWeights(imported);
    const after = namedWeights(warm);
    for (const [name, w] of before) expect(after.get(name), name).toBe(w);
    const { model } = await trainCrf([...a, ...b], { init: imported, maxIterations: 20 });
    expect(model.labels.size).toBe(4);
  });
});
