// Second-order training: the loss against brute force, its gradient against finite differences,
// the first-order CRF when the trigram weights are zero, and the model and its file end to end.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CrfModel } from "../crf-model.js";
import { chunkingPreset } from "../features/chunking.js";
import { loadModelFromBytes, modelToBytes } from "../model-file.js";
import { headerOf } from "../testing/model-header.js";
import { randomCorpus } from "../testing/random-corpus.js";
import { trainCrf } from "../train-crf.js";
import { prepareTrainingData } from "../training-data.js";
import { SecondOrderEncoder } from "./second-order.js";

const configs = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  values: fc.boolean(),
  transitions: fc.boolean(),
  labels: fc.integer({ min: 1, max: 3 }),
  trigrams: fc.constantFrom("observed" as const, "all" as const),
});

function setup(c: {
  seed: number;
  values: boolean;
  transitions: boolean;
  labels: number;
  trigrams: "observed" | "all";
}) {
  const corpus = randomCorpus(c.seed, {
    sequences: 3,
    maxLength: 5,
    labels: c.labels,
    values: c.values,
    transitions: c.transitions,
  });
  const data = prepareTrainingData(corpus, { shared: false });
  const encoder = new SecondOrderEncoder(data.dataset, data.layout, { trigrams: c.trigrams });
  const rnd = seededRandom(c.seed + 1);
  const weights = Float64Array.from({ length: encoder.numWeights }, () => rnd() * 2 - 1);
  return { data, encoder, weights };
}

/** Weights of the trigrams outside the encoder's pattern set to 0 (where training keeps them). */
function frozen(encoder: SecondOrderEncoder, weights: Float64Array): Float64Array {
  const active = encoder.pattern?.active;
  if (active !== undefined) {
    for (let k = 0; k < active.length; k++)
      if (active[k] === 0) weights[encoder.trigramBase + k] = 0;
  }
  return weights;
}

describe("SecondOrderEncoder", () => {
  it("loss = log Σ exp(score) − score(gold) over every labelling, decode = the best one", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { data, encoder, weights } = setup(c);
        const L = encoder.numLabels;
        const T = encoder.trigramBase;
        for (let i = 0; i < encoder.numInstances; i++) {
          const n = encoder.instanceLength(i);
          const gold = encoder.goldLabels(i);
          // A labelling's score as its feature counts dotted with the weights.
          const score = (y: Int32Array) => {
            const counts = new Float64Array(encoder.numWeights);
            encoder.addFeatureCounts(i, y, 1, counts);
            return counts.reduce((s, x, k) => s + x * weights[k]!, 0);
          };
          const scores: number[] = [];
          const y = new Int32Array(n);
          for (let code = 0; code < L ** n; code++) {
            let r = code;
            for (let p = n - 1; p >= 0; p--) {
              y[p] = r % L;
              r = Math.floor(r / L);
            }
            scores.push(score(y));
          }
          const max = Math.max(...scores);
          const logZ = max + Math.log(scores.reduce((s, x) => s + Math.exp(x - max), 0));
          expect(encoder.instanceLoss(i, weights, null)).toBeCloseTo(logZ - score(gold), 9);
          const out = new Int32Array(n);
          expect(encoder.decode(i, weights, out)).toBeCloseTo(max, 9);
          expect(score(out)).toBeCloseTo(max, 9);
        }
        expect(T).toBe(data.layout.numWeights);
      }),
      { numRuns: 100 },
    );
  });

  it("gradient matches central finite differences (state, bigram, conditioned, trigram weights)", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights: random } = setup(c);
        const weights = frozen(encoder, random);
        const active = encoder.pattern?.active;
        const total = (w: Float64Array, grad: Float64Array | null, scale: number) => {
          let s = 0;
          for (let i = 0; i < encoder.numInstances; i++)
            s += encoder.instanceLoss(i, w, grad, scale);
          return s;
        };
        const grad = new Float64Array(encoder.numWeights);
        total(weights, grad, 0.5);
        const h = 1e-5;
        const w = weights.slice();
        for (let k = 0; k < w.length; k++) {
          const t = k - encoder.trigramBase;
          if (active !== undefined && t >= 0 && active[t] === 0) {
            // Not a parameter: an unseen trigram stays at 0.
            expect(grad[k]).toBe(0);
            continue;
          }
          w[k] = weights[k]! + h;
          const up = total(w, null, 1);
          w[k] = weights[k]! - h;
          const down = total(w, null, 1);
          w[k] = weights[k]!;
          expect(grad[k]).toBeCloseTo((0.5 * (up - down)) / (2 * h), 5);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("with zero trigram weights: the first-order CRF's loss and gradient", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { data, encoder, weights } = setup(c);
        const K = data.layout.numWeights;
        weights.fill(0, K);
        const first = new Float64Array(K);
        const second = new Float64Array(encoder.numWeights);
        for (let i = 0; i < encoder.numInstances; i++) {
          const a = data.encoder.instanceLoss(i, weights.subarray(0, K), first);
          const b = encoder.instanceLoss(i, weights, second);
          expect(Math.abs(a - b)).toBeLessThan(1e-10 * Math.max(1, Math.abs(a)));
        }
        for (let k = 0; k < K; k++) expect(Math.abs(second[k]! - first[k]!)).toBeLessThan(1e-10);
      }),
      { numRuns: 100 },
    );
  });

  it("refuses partially labelled data", () => {
    const corpus = randomCorpus(3, { sequences: 6, unlabelled: 0.5 });
    const data = prepareTrainingData(corpus, { shared: false });
    expect(() => new SecondOrderEncoder(data.dataset, data.layout)).toThrow(/every token labelled/);
  });
});

describe("trainCrf({ order: 2 })", () => {
  const corpus = randomCorpus(11, { sequences: 40, maxLength: 8, labels: 3, transitions: true });

  it("trains a second-order model whose file round-trips (feature second-order) and tags alike", async () => {
    const { model, numFeatures } = await trainCrf(corpus, { order: 2, maxIterations: 30 });
    expect(model.order).toBe(2);
    expect(model.trigrams?.length).toBe(27);
    expect(numFeatures).toBe(model.layout.numWeights + 27);
    expect(model.settings.order).toBe(2);
    expect(model.summary().trigrams).toBe(27);
    const bytes = modelToBytes(model, { precision: "float64" });
    expect(headerOf(bytes).features).toEqual(["second-order"]);
    const back = loadModelFromBytes(bytes);
    expect(back.order).toBe(2);
    expect(Array.from(back.trigrams!)).toEqual(Array.from(model.trigrams!));
    for (const s of corpus) {
      expect(back.tag(s.attributes)).toEqual(model.tag(s.attributes));
      const m = back.marginals(s.attributes);
      for (let i = 0; i < s.attributes.length; i++) {
        let mass = 0;
        for (let t = 0; t < 3; t++) mass += m.marginals[i * 3 + t]!;
        expect(mass).toBeCloseTo(1, 12);
      }
    }
    // Decoders that read first-order chain scores would drop the trigrams: refused.
    expect(() => model.kbest(corpus[0]!.attributes, 2)).toThrow(/second-order/);
    expect(() => model.chainScores(corpus[0]!.attributes)).toThrow(/second-order/);
    // Its first-order part with zero trigram weights decodes as the first-order model does.
    const part = {
      labels: model.labels,
      attributes: model.attributes,
      transitionAttributes: model.transitionAttributes,
      layout: model.layout,
      weights: model.weights,
    };
    const zero = new CrfModel({ ...part, trigrams: new Float64Array(27) });
    const plain = new CrfModel(part);
    for (const s of corpus) {
      expect(zero.tag(s.attributes)).toEqual(plain.tag(s.attributes));
      const a = zero.marginals(s.attributes);
      const b = plain.marginals(s.attributes);
      expect(a.logPartition).toBeCloseTo(b.logPartition, 10);
      for (let k = 0; k < a.marginals.length; k++) {
        expect(a.marginals[k]).toBeCloseTo(b.marginals[k]!, 10);
      }
    }
    // A first-order model's file is unchanged: no feature, no trigrams.
    const { model: first } = await trainCrf(corpus, { maxIterations: 5 });
    const firstBytes = modelToBytes(first);
    expect(headerOf(firstBytes).features).toEqual([]);
    expect(loadModelFromBytes(firstBytes).order).toBe(1);
  });

  it("refuses the trainers and options it does not support", async () => {
    await expect(trainCrf(corpus, { order: 2, algorithm: "ap" })).rejects.toThrow(
      /does not take the ap trainer/,
    );
    await expect(trainCrf(corpus, { order: 2, classWeights: { balanced: true } })).rejects.toThrow(
      /class weights/,
    );
  });
});

/** The dataset mirror, found as the datasets registry does: LAGRANGE_DATA_DIR, else ../shared/datasets. */
function mirrorFile(relative: string): string | undefined {
  const fromEnv = process.env.LAGRANGE_DATA_DIR;
  const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
  const dir =
    fromEnv !== undefined && fromEnv !== ""
      ? resolve(fromEnv)
      : resolve(repoRoot, "..", "shared", "datasets");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  const path = join(dir, relative);
  return existsSync(path) ? path : undefined;
}

const conll2000 = mirrorFile("conll2000/train.txt");

describe("second order on real sentences", () => {
  it.skipIf(conll2000 === undefined)(
    "CoNLL-2000 chunking, 22 labels: trains, learns trigrams, round-trips (needs conll2000/train.txt)",
    async () => {
      const sentences: Array<{ rows: string[][]; labels: string[] }> = [];
      let rows: string[][] = [];
      let labels: string[] = [];
      for (const line of readFileSync(conll2000!, "utf8").split("\n")) {
        if (sentences.length >= 120) break;
        if (line.trim() === "") {
          if (rows.length > 0) sentences.push({ rows, labels });
          rows = [];
          labels = [];
          continue;
        }
        const c = line.split(" ");
        rows.push(c.slice(0, -1));
        labels.push(c.at(-1)!);
      }
      const preset = chunkingPreset();
      const corpus = sentences.map((s) => ({
        attributes: preset.extract(s.rows),
        labels: s.labels,
      }));
      const { model } = await trainCrf(corpus, { order: 2, maxIterations: 15 });
      const L = model.numLabels;
      expect(model.trigrams!.length).toBe(L ** 3);
      expect(model.trigrams!.some((w) => w !== 0)).toBe(true);
      let right = 0;
      let total = 0;
      const back = loadModelFromBytes(modelToBytes(model));
      for (const [k, s] of corpus.entries()) {
        const tagged = model.tag(s.attributes);
        expect(back.tag(s.attributes)).toEqual(tagged);
        for (let i = 0; i < tagged.length; i++) {
          total++;
          if (tagged[i] === sentences[k]!.labels[i]) right++;
        }
      }
      // Fifteen iterations already fit the training sentences well.
      expect(right / total).toBeGreaterThan(0.8);
    },
  );
});
