import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPreset } from "@lagrange/chain-crf";
import { inferScheme, parseConll } from "@lagrange/datasets";
import { afterAll, describe, expect, it } from "vitest";
import { cachedModel, cacheModel } from "./model-cache.js";
import { sentenceAttributes } from "./model-input.js";
import { trainOnCorpus } from "./training.js";

const CHUNKS = "the DT B-NP\ncat NN I-NP\nsat VBD B-VP\n\na DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n";

describe("the model cache", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("gives back the trained model: its weights to the bit and its scheme's mask", async () => {
    const sentences = parseConll(CHUNKS, { file: "train.conll" });
    const corpus = {
      label: "train.conll",
      format: "conll" as const,
      sentences,
      scheme: inferScheme(sentences.map((s) => s.labels!)),
    };
    const { model } = await trainOnCorpus(corpus, { preset: "chunking", maxIterations: 10 });
    const dir = await mkdtemp(join(tmpdir(), "lagrange-cache-"));
    dirs.push(dir);
    await cacheModel(dir, "m", "k", model);
    const cached = await cachedModel(dir, "m", "k");
    const attributes = sentenceAttributes(getPreset("chunking"), sentences[0]!);
    const fresh = model.chainScores(attributes);
    const back = cached!.chainScores(attributes);
    expect(fresh.allowed).toBeDefined();
    expect(Array.from(back.allowed!)).toEqual(Array.from(fresh.allowed!));
    const bits = (v: Float64Array) => Array.from(v, (x) => (Object.is(x, -0) ? "-0" : x));
    expect(bits(cached!.weights)).toEqual(bits(model.weights));
    expect(bits(back.unary)).toEqual(bits(fresh.unary));
    expect(bits(back.transition)).toEqual(bits(fresh.transition));
    expect(bits(back.start!)).toEqual(bits(fresh.start!));
  });
});
