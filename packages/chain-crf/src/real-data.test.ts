import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seededRandom } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { modelFromTraining } from "./crf-model.js";
import { chunkingPreset } from "./features/chunking.js";
import { nerPreset } from "./features/ner.js";
import type { Preset } from "./features/types.js";
import { InferenceContext } from "./inference/context.js";
import { forwardBackwardKernel } from "./inference/forward-backward.js";
import { forwardBackwardLogKernel } from "./inference/forward-backward-shared.js";
import { InstanceScorer } from "./model/scorer.js";
import { loadModelFromBytes, modelToBytes } from "./model-file.js";
import { prepareTrainingData } from "./training-data.js";

/** The dataset mirror, found as the datasets registry does: LAGRANGE_DATA_DIR, else ../shared/datasets. */
function mirrorFile(relative: string): string | undefined {
  const fromEnv = process.env.LAGRANGE_DATA_DIR;
  const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
  const dir =
    fromEnv !== undefined && fromEnv !== ""
      ? resolve(fromEnv)
      : resolve(repoRoot, "..", "shared", "datasets");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  const path = join(dir, relative);
  return existsSync(path) ? path : undefined;
}

function readSentences(path: string, max: number): Array<{ rows: string[][]; labels: string[] }> {
  const out: Array<{ rows: string[][]; labels: string[] }> = [];
  let rows: string[][] = [];
  let labels: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (out.length >= max) break;
    if (line.trim() === "") {
      if (rows.length > 0) out.push({ rows, labels });
      rows = [];
      labels = [];
      continue;
    }
    const c = line.split(" ");
    rows.push(c.slice(0, -1));
    labels.push(c.at(-1)!);
  }
  return out;
}

const conll2000 = mirrorFile("conll2000/train.txt");

/**
 * Fast forward-backward (SIMD products, scaling) = log-space kernel on every sentence; the
 * bigram, first- and last-label gradient blocks sum to zero; a model file round trip tags alike.
 */
function checkCorpus(
  sentences: Array<{ rows: string[][]; labels: string[] }>,
  preset: Preset,
): void {
  const data = prepareTrainingData(
    sentences.map((s) => ({ attributes: preset.extract(s.rows), labels: s.labels })),
  );
  const { layout, dataset, encoder } = data;
  const L = layout.numLabels;
  const rnd = seededRandom(2000);
  // Weights of a trained model's magnitude: a few units, some large.
  const weights = Float64Array.from({ length: layout.numWeights }, () =>
    rnd() < 0.01 ? (rnd() - 0.5) * 20 : (rnd() - 0.5) * 2,
  );
  const scorer = new InstanceScorer(layout);
  const ctx = new InferenceContext();
  let worst = 0;
  for (let i = 0; i < dataset.numInstances; i++) {
    const from = dataset.instanceOffsets[i]!;
    const to = dataset.instanceOffsets[i + 1]!;
    const view = scorer.load(dataset.state, null, from, to, weights);
    const fast = forwardBackwardKernel(ctx, view, true);
    const fastMarginals = ctx.marginals.slice(0, (to - from) * L);
    const exact = forwardBackwardLogKernel(ctx, view, true);
    worst = Math.max(worst, Math.abs(fast - exact) / Math.max(1, Math.abs(exact)));
    for (let k = 0; k < fastMarginals.length; k++) {
      worst = Math.max(worst, Math.abs(fastMarginals[k]! - ctx.marginals[k]!));
    }
  }
  expect(worst).toBeLessThan(1e-9);

  // Per sentence, expected and observed label-bigram (and first/last label) counts both sum to
  // n − 1 (and 1), so those gradient blocks sum to zero; the loss is positive and finite.
  const grad = new Float64Array(layout.numWeights);
  let loss = 0;
  for (let i = 0; i < encoder.numInstances; i++) loss += encoder.instanceLoss(i, weights, grad);
  expect(Number.isFinite(loss) && loss > 0).toBe(true);
  const sum = (from: number, to: number) => grad.subarray(from, to).reduce((s, x) => s + x, 0);
  expect(Math.abs(sum(layout.transitionBase, layout.transitionBase + L * L))).toBeLessThan(1e-6);
  expect(Math.abs(sum(layout.startBase, layout.startBase + L))).toBeLessThan(1e-6);
  expect(Math.abs(sum(layout.endBase, layout.endBase + L))).toBeLessThan(1e-6);
  expect(grad.every((g) => Number.isFinite(g))).toBe(true);
  // The batch path (corpus and weights in WebAssembly memory) gives the same pass.
  const batch = new Float64Array(layout.numWeights);
  expect(encoder.rangeLoss(0, encoder.numInstances, weights, batch)).toBeCloseTo(loss, 6);
  let worstGradient = 0;
  for (let k = 0; k < batch.length; k++) {
    worstGradient = Math.max(worstGradient, Math.abs(batch[k]! - grad[k]!));
  }
  expect(worstGradient).toBeLessThan(1e-9);

  const model = modelFromTraining(data, weights, { preset: preset.name });
  const back = loadModelFromBytes(modelToBytes(model, { precision: "float64" }));
  for (const s of sentences.slice(0, 50)) {
    const attributes = preset.extract(s.rows);
    expect(back.tag(attributes)).toEqual(model.tag(attributes));
  }
}

const conll2003 = mirrorFile("conll2003/eng.train");

describe("chain CRF on real sentences", () => {
  it.skipIf(conll2000 === undefined)(
    "CoNLL-2000 chunking, 22 labels (needs conll2000/train.txt in the dataset mirror)",
    () => checkCorpus(readSentences(conll2000!, 400), chunkingPreset()),
  );
  it.skipIf(conll2003 === undefined)(
    "CoNLL-2003 NER, 9 labels: an odd L exercises the SIMD remainder lanes (needs conll2003/eng.train)",
    () => {
      const sentences = readSentences(conll2003!, 300).filter(
        (s) => s.rows[0]![0] !== "-DOCSTART-",
      );
      checkCorpus(sentences, nerPreset());
    },
  );
});
