import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attributeNames, featureExtractor } from "@lagrange/chain-crf";
import { type Corpus, inferScheme, parseConll } from "@lagrange/datasets";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { modelFeatureSpec, modelPreset } from "../model-features.js";
import { getTaskPreset } from "../preset-names.js";
import { trainOnCorpus } from "../training.js";
import { jackknifeFolds, mineEntityLexicons } from "./mined-lexicons.js";
import { inputColumnNames, trainingFeatures } from "./training-features.js";

function corpus(text: string, label: string): Corpus {
  const sentences = parseConll(text, { file: label, documentMarker: "-DOCSTART-" });
  return {
    label,
    format: "conll",
    sentences,
    scheme: inferScheme(sentences.flatMap((s) => (s.labels ? [s.labels] : []))),
  };
}

// Ten documents, each naming its own person and a shared city, word POS label.
const DOCUMENTS = Array.from({ length: 10 }, (_, d) =>
  [
    "-DOCSTART- -X- O",
    "",
    `Name${d} NNP B-PER`,
    "visited NN O",
    "New NNP B-LOC",
    "York NNP I-LOC",
    ". . O",
    "",
    `Name${d} NNP B-PER`,
    "left VBD O",
    "",
  ].join("\n"),
).join("\n");

describe("mined lexicons", () => {
  it("give each string the type it is labelled with most often", () => {
    const labelled = [
      { tokens: ["Paris", "Hilton"], labels: ["B-PER", "I-PER"] },
      { tokens: ["Paris"], labels: ["B-LOC"] },
      { tokens: ["Paris"], labels: ["B-LOC"] },
      { tokens: ["in", "Paris"], labels: ["O", "B-PER"] },
    ];
    expect(mineEntityLexicons(labelled, "IOB2")).toEqual([
      { name: "mined-LOC", entries: ["Paris"] },
      { name: "mined-PER", entries: ["Paris Hilton"] },
    ]);
  });

  it("jackknife: no sentence's fold lexicon holds a string seen only in its own fold", () => {
    const text = DOCUMENTS;
    const c = corpus(text, "d.conll");
    const fold = jackknifeFolds(c.sentences, 4);
    // Whole documents stay in one fold.
    c.sentences.forEach((s, i) => {
      const j = c.sentences.findIndex((o) => o.document === s.document);
      expect(fold[i]).toBe(fold[j]);
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), (k) => {
        const labelled = c.sentences.map((s) => ({ tokens: s.tokens, labels: s.labels! }));
        const lexicon = mineEntityLexicons(labelled, "IOB2", (i) => fold[i] !== k);
        const names = new Set(lexicon.flatMap((l) => l.entries));
        c.sentences.forEach((s, i) => {
          if (fold[i] !== k) return;
          const own = s.tokens[0]!;
          expect(names.has(own)).toBe(false);
        });
        expect(names.has("New York")).toBe(true);
      }),
    );
  });
});

/** The parts issue 40 added, off: what these tests are about is older (and needs no build). */
const OLD_PARTS = {
  largeGazetteers: false,
  context: false,
  wideClusters: false,
  embeddings: false,
} as const;

describe("task presets", () => {
  const dir = mkdtempSync(join(tmpdir(), "lagrange-task-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "clusters-en.paths"), "0101\tvisited\t10\n0110\tleft\t8\n111\tYork\t5\n");
  for (const name of getTaskPreset("ner-en").gazetteers) {
    writeFileSync(join(dir, `${name}.txt`), name === "uscities" ? "New York\n" : "Nowhere\n");
  }
  const train = corpus(DOCUMENTS, "d.conll");

  it("ner-en on word, pos data: clusters, gazetteers and jackknifed mined lexicons, recorded in the model", async () => {
    const features = await trainingFeatures({ preset: "ner-en", use: OLD_PARTS }, train, "IOB2", {
      resourcesDir: dir,
    });
    expect(features.preset).toBe("ner");
    expect(features.features?.columns).toEqual(["word", "pos"]);
    expect(features.jackknife?.specs).toHaveLength(4);
    const rows = [
      ["New", "NNP"],
      ["York", "NNP"],
    ];
    const names = attributeNames(featureExtractor(features.features!).extract(rows))[1]!;
    expect(names).toEqual(
      expect.arrayContaining([
        "brown-en[0]p4=111",
        "pos[0]=NNP",
        "lex[0]:mined-LOC=I",
        "lex[-1]:uscities=B",
      ]),
    );
    const trained = await trainOnCorpus(train, {
      preset: features.preset,
      features: features.features!,
      jackknife: features.jackknife!,
      maxIterations: 5,
    });
    const spec = modelFeatureSpec(trained.model);
    expect(spec?.lexicons?.map((l) => l.name)).toContain("mined-PER");
    // Tagging rebuilds the same extractor from the model alone.
    expect(attributeNames(modelPreset(trained.model).extract(rows))[1]).toEqual(names);
    // A training sentence of fold k saw a lexicon without its own fold's names.
    const k = features.jackknife!.fold[0]!;
    const foldNames = features.jackknife!.specs[k]!.lexicons!.flatMap((l) => l.entries);
    expect(foldNames).not.toContain(train.sentences[0]!.tokens[0]);
  });

  it("adds the large npm-built gazetteers where on (use.largeGazetteers)", async () => {
    const plain = await trainingFeatures({ preset: "ner-en", use: OLD_PARTS }, train, "IOB2", {
      resourcesDir: dir,
    });
    const names = (f: typeof plain) => (f.features?.lexicons ?? []).map((l) => l.name);
    expect(names(plain)).not.toContain("cities-15k");
    const large = await trainingFeatures(
      { preset: "ner-en", use: { ...OLD_PARTS, largeGazetteers: true } },
      train,
      "IOB2",
      { resourcesDir: dir },
    );
    expect(names(large)).toEqual(
      expect.arrayContaining([...getTaskPreset("ner-en").largeGazetteers]),
    );
    expect(names(large)).toContain("uscities");
    const rows = [
      ["John", "NNP"],
      ["met", "VBD"],
      ["São", "NNP"],
      ["Paulo", "NNP"],
    ];
    const attributes = attributeNames(featureExtractor(large.features!).extract(rows));
    expect(attributes[0]).toContain("lex[0]:people-names=B");
    expect(attributes[2]).toEqual(
      expect.arrayContaining(["lex[0]:cities-15k=B", "lex[1]:cities-15k=I"]),
    );
    expect(attributes[3]).toContain("lexi[0]:cities-15k=I");
    expect(getTaskPreset("pos-en").largeGazetteers).toEqual([]);
  });

  it("names the columns of files by count and checks a given layout", () => {
    expect(inputColumnNames(train)).toEqual(["word", "pos"]);
    expect(() => inputColumnNames(train, ["word"])).toThrow(/--columns names 1 column/);
  });
});
