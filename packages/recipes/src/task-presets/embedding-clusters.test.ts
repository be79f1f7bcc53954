import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attributeNames, featureExtractor } from "@lagrange/chain-crf";
import { type Corpus, inferScheme, parseConll } from "@lagrange/datasets";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { modelPreset } from "../model-features.js";
import { getTaskPreset } from "../preset-names.js";
import { trainOnCorpus } from "../training.js";
import {
  embeddingClusters,
  formatEmbeddingClusters,
  parseEmbeddingClusters,
} from "./embedding-clusters.js";
import { trainingFeatures } from "./training-features.js";

describe("embedding clusters file", () => {
  it("reads back what it writes", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[^\s]{1,6}$/), { maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (words, sizes, seed) => {
          const clusters = sizes.map((k, s) =>
            Int32Array.from(words, (_, i) => (seed + 7 * i + s) % k),
          );
          const back = parseEmbeddingClusters(
            formatEmbeddingClusters({ sizes, words, clusters }),
            "e.tsv",
          );
          expect(back).toEqual({ sizes, words, clusters });
        },
      ),
    );
  });

  it("names file:line and what was expected", () => {
    expect(() => parseEmbeddingClusters("w\tk10\n", "e.tsv")).toThrow(
      /e\.tsv:1: expected a header/,
    );
    expect(() => parseEmbeddingClusters("word\tk10\nthe\t3\t4\n", "e.tsv")).toThrow(
      /e\.tsv:2: expected a word and 1 cluster id/,
    );
    expect(() => parseEmbeddingClusters("word\tk10\nthe\t10\n", "e.tsv")).toThrow(
      /e\.tsv:2: column k10: expected a cluster id in 0…9, got "10"/,
    );
    expect(() => parseEmbeddingClusters("word\tk10\nthe\t1\nthe\t2\n", "e.tsv")).toThrow(
      /e\.tsv:3: word "the" again/,
    );
  });
});

describe("embedding clusters in the task presets", () => {
  const dir = mkdtempSync(join(tmpdir(), "lagrange-embeddings-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "clusters-en.paths"), "0101\tvisited\t10\n0110\tleft\t8\n111\tYork\t5\n");
  for (const name of getTaskPreset("ner-en").gazetteers)
    writeFileSync(join(dir, `${name}.txt`), "Nowhere\n");
  writeFileSync(
    join(dir, "embeddings-en.tsv"),
    "word\tk100\tk300\tk1000\nvisited\t3\t17\t999\nYork\t42\t42\t420\nleft\t3\t18\t7\n",
  );
  const text = Array.from({ length: 6 }, (_, d) =>
    [
      `Name${d} NNP B-PER`,
      "visited NN O",
      "York NNP B-LOC",
      "",
      `Name${d} NNP B-PER`,
      "left VBD O",
      "",
    ].join("\n"),
  ).join("\n");
  const sentences = parseConll(text, { file: "e.conll" });
  const train: Corpus = {
    label: "e.conll",
    format: "conll",
    sentences,
    scheme: inferScheme(sentences.flatMap((s) => (s.labels ? [s.labels] : []))),
  };
  const rows = [
    ["visited", "NN"],
    ["York", "NNP"],
  ];

  // The parts this test is not about stay off (the further Brown clustering would be built).
  const others = { wideClusters: false, context: false } as const;

  it("adds one attribute per k where on (use.embeddings), and the model carries them", async () => {
    const plain = await trainingFeatures(
      { preset: "ner-en", use: { ...others, embeddings: false } },
      train,
      "IOB2",
      { resourcesDir: dir },
    );
    const names = (f: typeof plain) => (f.features?.clusters ?? []).map((c) => c.name);
    expect(names(plain)).toEqual(["brown-en"]);
    const asked = await trainingFeatures(
      { preset: "ner-en", use: { ...others, embeddings: true } },
      train,
      "IOB2",
      { resourcesDir: dir },
    );
    expect(names(asked)).toEqual([
      "brown-en",
      "kmeans-en-k100",
      "kmeans-en-k300",
      "kmeans-en-k1000",
    ]);
    expect(asked.notes.join("\n")).toContain("embedding clusters (k = 100, 300, 1000): 3 words");
    const attributes = attributeNames(featureExtractor(asked.features!).extract(rows));
    expect(attributes[1]).toEqual(
      expect.arrayContaining([
        "brown-en[0]p4=111",
        "kmeans-en-k100[0]p2=42",
        "kmeans-en-k300[0]p3=42",
        "kmeans-en-k1000[0]p3=420",
        "kmeans-en-k1000[-1]p3=999",
      ]),
    );
    // One attribute per granularity and offset: an id is never cut into prefixes.
    expect(attributes[1]!.filter((a) => a.startsWith("kmeans-en-k100[0]"))).toHaveLength(1);
    const trained = await trainOnCorpus(train, {
      preset: asked.preset,
      features: asked.features!,
      jackknife: asked.jackknife!,
      maxIterations: 3,
    });
    expect(attributeNames(modelPreset(trained.model).extract(rows))).toEqual(attributes);
  });

  it("refuses a file without an asked k", async () => {
    writeFileSync(join(dir, "embeddings-nl.tsv"), "word\tk100\nde\t1\n");
    await expect(embeddingClusters("nl", [100, 300], { resourcesDir: dir })).rejects.toThrow(
      /embeddings-nl\.tsv:1: expected a column k300; the file has k100/,
    );
  });
});
