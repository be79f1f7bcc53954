import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { f1FromCounts, pairedBootstrap, scoreLabelling } from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import { getTaskPreset } from "@lagrange/recipes";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accuracySuite } from "./accuracy.js";
import { type AccuracyDataset, HELD_OUT_FOLD, heldOutCut } from "./accuracy-datasets.js";
import { accuracyMarkdown } from "./accuracy-report.js";
import { accuracyFromCounts, bootstrapInterval, sentenceStats } from "./accuracy-statistics.js";

// ---------------------------------------------------------------------------------------------
// A tiny generated NER corpus (word pos chunk ner, IOB2, documents) and its resources.

const FIRST = ["John", "Mary", "Peter", "Anna", "Hans", "Maria", "Paul", "Laura"];
const LAST = ["Smith", "Jones", "Brown", "Meyer"];
const PLACES = ["Paris", "Berlin", "Texas", "Ontario", "Madrid", "Oslo"];
const ORGS = ["Reuters", "Siemens", "Fiat", "Nokia"];
const VERBS = ["said", "visited", "left", "joined"];

/** A sentence; one in four names is annotated with the wrong type (noise the models cannot learn). */
function sentence(random: () => number): string[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const rows: string[] = [];
  const person = random() < 0.5 ? [pick(FIRST), pick(LAST)] : [pick(FIRST)];
  const type = random() < 0.25 ? "ORG" : "PER";
  for (const [k, w] of person.entries()) {
    rows.push(`${w} NNP ${k === 0 ? "B" : "I"}-NP ${k === 0 ? "B" : "I"}-${type}`);
  }
  rows.push(`${pick(VERBS)} VBD B-VP O`);
  if (random() < 0.5) {
    rows.push("in IN B-PP O", `${pick(PLACES)} NNP B-NP B-LOC`);
  } else {
    rows.push("the DT B-NP O", `${pick(ORGS)} NNP I-NP B-ORG`, "team NN I-NP O");
  }
  rows.push(". . O O");
  return rows;
}

function corpusText(seed: number, documents: number, perDocument: number): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  for (let d = 0; d < documents; d++) {
    parts.push("-DOCSTART- -X- -X- O", "");
    for (let s = 0; s < perDocument; s++) parts.push(...sentence(random), "");
  }
  return parts.join("\n");
}

const GAZETTEERS: Record<string, readonly string[]> = {
  "names-female": ["Mary", "Anna", "Maria"],
  "names-male": ["John", "Peter", "Hans"],
  countries: ["France", "Germany"],
  nationalities: ["French"],
  uscities: ["Paris", "Austin"],
  usstates: ["Texas"],
  caprovinces: ["Ontario"],
  mexstates: ["Sonora"],
};

function clusterPaths(): string {
  const words = [...FIRST, ...LAST, ...PLACES, ...ORGS, ...VERBS, "in", "the", "team", "."];
  // Names under 0…, places 10…, the rest 11…: a clustering that helps.
  const bits = (w: string) =>
    FIRST.includes(w)
      ? "000"
      : LAST.includes(w)
        ? "001"
        : PLACES.includes(w)
          ? "100"
          : ORGS.includes(w)
            ? "101"
            : "11";
  return `${words.map((w) => `${bits(w)}\t${w}\t5`).join("\n")}\n`;
}

function embeddingClusters(): string {
  const words = [...FIRST, ...LAST, ...PLACES, ...ORGS, ...VERBS, "in", "the", "team", "."];
  const id = (w: string, k: number) =>
    (FIRST.includes(w) || LAST.includes(w)
      ? 1
      : PLACES.includes(w)
        ? 2
        : ORGS.includes(w)
          ? 3
          : 4) *
    (k / 10);
  const lines = words.map((w) => [w, id(w, 100), id(w, 300), id(w, 1000)].join("\t"));
  return `word\tk100\tk300\tk1000\n${lines.join("\n")}\n`;
}

describe("bench accuracy on a tiny generated corpus", () => {
  let dir = "";
  let dataset: AccuracyDataset;
  let chunking: AccuracyDataset;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-bench-accuracy-"));
    await writeFile(join(dir, "train.conll"), corpusText(1, 20, 8));
    await writeFile(join(dir, "dev.conll"), corpusText(2, 5, 8));
    const resources = join(dir, "resources");
    await import("node:fs/promises").then((fs) => fs.mkdir(resources));
    await writeFile(join(resources, "clusters-en.paths"), clusterPaths());
    // The wide-clusters row's second clustering (C = 1000), here the same small one.
    await writeFile(join(resources, "clusters-en-c1000.paths"), clusterPaths());
    // The embeddings row's k-means clusters: a small file, so the test never builds from the registry.
    await writeFile(join(resources, "embeddings-en.tsv"), embeddingClusters());
    for (const [name, entries] of Object.entries(GAZETTEERS)) {
      await writeFile(join(resources, `${name}.txt`), `${entries.join("\n")}\n`);
    }
    dataset = {
      name: "tiny",
      train: join(dir, "train.conll"),
      dev: join(dir, "dev.conll"),
      task: "ner-en",
      groups: "documents",
    };
    chunking = {
      name: "tiny-chunking",
      train: join(dir, "train.conll"),
      dev: null,
      task: "chunking",
      clusters: "en",
      groups: null,
    };
  });
  afterAll(async () => {
    if (dir !== "" && process.env.KEEP_ACC === undefined)
      await rm(dir, { recursive: true, force: true });
  });

  it("runs every row the library offers, scores held-out and dev with intervals, and renders them", async () => {
    const statuses: string[] = [];
    const result = await accuracySuite({
      datasets: [dataset, chunking],
      maxIterations: 8,
      threads: 1,
      c1: 1,
      resourcesDir: join(dir, "resources"),
      bootstrapSamples: 200,
      onStatus: (m) => statuses.push(m),
    });
    expect(result.unavailable).toEqual([]);
    const [ner, chunk] = result.datasets;
    expect(ner!.rows.map((r) => r.row)).toEqual([
      "baseline",
      "clusters",
      "lexicons",
      "bioes",
      "gazetteers",
      "context",
      "wide-clusters",
      "embeddings",
      "preset",
      "elastic-net",
      "words",
      "two-stage",
      "general",
      "document",
    ]);
    expect(ner!.rows.map((r) => r.builtOn)).toEqual([
      null,
      "baseline",
      "clusters",
      "lexicons",
      "bioes",
      "gazetteers",
      "context",
      "wide-clusters",
      "embeddings",
      "preset",
      "preset",
      "preset",
      "preset",
      "preset",
    ]);
    const train = await openCorpus(dataset.train);
    const { cut, heldOut } = heldOutCut(train);
    expect(ner!.trainSentences).toBe(cut.sentences.length);
    expect(ner!.heldOutSentences).toBe(heldOut.sentences.length);
    expect(ner!.devSentences).toBe(40);
    for (const row of ner!.rows) {
      for (const s of [row.heldOut, row.dev!]) {
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(100);
        expect(s.interval[0]).toBeLessThan(s.interval[1]);
        expect(s.interval[0]).toBeGreaterThanOrEqual(0);
        expect(s.interval[1]).toBeLessThanOrEqual(100);
      }
      const before = ner!.rows.find((r) => r.row === row.builtOn);
      if (before === undefined) expect(row.heldOut.delta).toBeNull();
      else {
        expect(row.heldOut.delta).toBeCloseTo(row.heldOut.score - before.heldOut.score, 10);
        expect(row.dev!.delta).toBeCloseTo(row.dev!.score - before.dev!.score, 10);
      }
      expect(row.iterations).toBeGreaterThan(0);
      expect(row.trainSeconds).toBeGreaterThan(0);
    }
    const [
      baseline,
      clusters,
      lexicons,
      bioes,
      gazetteers,
      context,
      wide,
      embeddings,
      preset,
      elasticNet,
      words,
      twoStage,
      general,
      document,
    ] = ner!.rows;
    // Clusters, lexicons, document context and a second clustering add attributes, hence features;
    // BIOES inside more labels.
    expect(clusters!.numFeatures).toBeGreaterThan(baseline!.numFeatures);
    expect(lexicons!.numFeatures).toBeGreaterThan(clusters!.numFeatures);
    expect(bioes!.numFeatures).toBeGreaterThan(lexicons!.numFeatures);
    expect(gazetteers!.features).toContain("large gazetteers");
    expect(context!.numFeatures).toBeGreaterThan(gazetteers!.numFeatures);
    expect(wide!.numFeatures).toBeGreaterThan(context!.numFeatures);
    expect(embeddings!.numFeatures).toBeGreaterThan(wide!.numFeatures);
    expect(embeddings!.features).toContain("PPMI-SVD k-means k = 100, 300, 1000");
    // Two-stage: the mined lexicons' folds, votes on the training tokens, more attributes.
    expect(twoStage!.twoStage!.folds).toBe(getTaskPreset("ner-en").folds);
    expect(twoStage!.twoStage!.voted.ctok).toBeGreaterThan(0);
    expect(twoStage!.numFeatures).toBeGreaterThan(lexicons!.numFeatures);
    // The preset as it ships: its own choice of the parts, the non-local rows over it.
    expect(preset!.features).toContain("ner-en as it ships");
    // L1 zeroes weights and the model file keeps the others only.
    expect(elasticNet!.features).toContain("L1 c1 = 1");
    expect(elasticNet!.modelBytes).toBeLessThan(preset!.modelBytes);
    expect(result.settings.c1).toBe(1);
    // The word column alone: fewer attributes than the preset on word and POS.
    expect(words!.features).toContain("on the word column alone");
    expect(words!.numFeatures).toBeLessThan(preset!.numFeatures);
    expect(twoStage!.features.startsWith(preset!.features)).toBe(true);
    expect(general!.general!.groups).toBe("documents");
    expect(general!.general!.mistakes.length).toBeGreaterThan(0);
    // Document constraints: 18 training documents, 4 jackknife folds, the first one the check.
    const doc = document!.document!;
    expect(doc.checkDocuments).toBe(5);
    // Dev's 5 documents, each decoded whole, where constraints were kept; else its 40 sentences.
    expect(doc.documents).toBe(doc.checkGain === null ? 40 : 5);
    expect(doc.certified).toBeGreaterThanOrEqual(0);
    expect(doc.certified).toBeLessThanOrEqual(1);
    expect(doc.tagSeconds).toBeGreaterThan(0);
    expect(doc.viterbiSeconds).toBeGreaterThan(0);
    if (doc.checkGain === null) {
      // Nothing kept: the model is the chain, tagged as it was.
      expect(doc.reason).toBeDefined();
      expect(document!.heldOut.delta).toBe(0);
      expect(document!.dev!.delta).toBe(0);
    } else {
      expect(doc.checkGain.interval[0]).toBeGreaterThan(0);
      expect(doc.kept.length).toBeGreaterThan(0);
    }
    expect(ner!.comparisons.map((p) => `${p.from}→${p.to} ${p.split}`)).toEqual([
      "baseline→lexicons held-out",
      "baseline→lexicons dev",
      "lexicons→preset held-out",
      "lexicons→preset dev",
      "preset→elastic-net held-out",
      "preset→elastic-net dev",
      "preset→words held-out",
      "preset→words dev",
      "lexicons→bioes held-out",
      "lexicons→bioes dev",
      "bioes→gazetteers held-out",
      "bioes→gazetteers dev",
      "gazetteers→context held-out",
      "gazetteers→context dev",
      "context→wide-clusters held-out",
      "context→wide-clusters dev",
      "wide-clusters→embeddings held-out",
      "wide-clusters→embeddings dev",
      "preset→two-stage held-out",
      "preset→two-stage dev",
      "preset→general held-out",
      "preset→general dev",
      "preset→document held-out",
      "preset→document dev",
    ]);
    for (const p of ner!.comparisons) {
      expect(p.pValue).toBeGreaterThan(0);
      expect(p.pValue).toBeLessThanOrEqual(1);
      const to = ner!.rows.find((r) => r.row === p.to)!;
      const from = ner!.rows.find((r) => r.row === p.from)!;
      const split = (r: typeof to) => (p.split === "dev" ? r.dev! : r.heldOut);
      expect(p.delta).toBeCloseTo(split(to).score - split(from).score, 10);
      expect(p.interval[0]).toBeLessThanOrEqual(p.interval[1]);
    }
    // Chunking: a feature preset, its clusters from the cluster language, no lexicons, no dev.
    expect(chunk!.rows.map((r) => r.row)).toEqual(["baseline", "clusters", "two-stage"]);
    expect(chunk!.rows[2]!.twoStage!.folds).toBe(4);
    expect(chunk!.rows[1]!.features).toContain("clusters-en");
    expect(chunk!.rows[0]!.dev).toBeNull();
    expect(chunk!.skipped.map((s) => s.row)).toEqual([
      "lexicons",
      "bioes",
      "gazetteers",
      "context",
      "wide-clusters",
      "embeddings",
      "preset",
      "elastic-net",
      "words",
      "general",
      "document",
    ]);
    const md = accuracyMarkdown(result);
    expect(md).toContain("#### tiny (ner-en;");
    expect(md).toContain("| + lexicons (gazetteers, mined) |");
    expect(md).toContain("| + two-stage votes |");
    expect(md).toContain("baseline → lexicons on held-out");
    expect(md).toContain("preset → general on dev");
    expect(md).toContain("| + PPMI-SVD k-means clusters (k = 100, 300, 1000) |");
    expect(md).toContain("| + document context (aggregation) |");
    expect(md).toContain("| + document constraints |");
    expect(md).toMatch(/% of (5 documents|40 sentences) certified, tagging/);
    expect(md).toContain("no dev split");
    expect(statuses.some((m) => m.startsWith("tiny lexicons: mined lexicons"))).toBe(true);
  }, 240_000);

  it("keeps only the rows asked for, and says why a row does not apply", async () => {
    const result = await accuracySuite({
      datasets: [chunking],
      rows: ["lexicons"],
      maxIterations: 3,
      threads: 1,
      resourcesDir: join(dir, "resources"),
      bootstrapSamples: 50,
    });
    const d = result.datasets[0]!;
    expect(d.rows).toEqual([]);
    expect(d.skipped).toEqual([{ row: "lexicons", why: "preset chunking has no lexicons" }]);
  });
});

describe("bench accuracy without the data", () => {
  it("skips a dataset that cannot be reached, saying why", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-bench-accuracy-empty-"));
    const names = ["LAGRANGE_DATA_DIR", "LAGRANGE_CACHE_DIR", "LAGRANGE_OFFLINE"] as const;
    const saved = names.map((n) => process.env[n]);
    try {
      process.env.LAGRANGE_DATA_DIR = dir;
      process.env.LAGRANGE_CACHE_DIR = dir;
      process.env.LAGRANGE_OFFLINE = "1";
      const result = await accuracySuite({ datasets: ["wnut17"], quick: true });
      expect(result.datasets).toEqual([]);
      expect(result.unavailable.map((u) => u.dataset)).toEqual(["wnut17"]);
      expect(result.unavailable[0]!.reason).toMatch(/not available offline/);
      expect(accuracyMarkdown(result)).toContain("Not reachable, skipped: wnut17 (");
    } finally {
      names.forEach((n, k) => {
        if (saved[k] === undefined) delete process.env[n];
        else process.env[n] = saved[k];
      });
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The scoring pieces against the library's own, on random labellings.

const TYPES = ["PER", "LOC"];
const label = fc.oneof(
  fc.constant("O"),
  ...TYPES.flatMap((t) => [fc.constant(`B-${t}`), fc.constant(`I-${t}`)]),
);
const pairs = fc.array(
  fc
    .integer({ min: 1, max: 6 })
    .chain((n) =>
      fc.tuple(
        fc.array(label, { minLength: n, maxLength: n }),
        fc.array(label, { minLength: n, maxLength: n }),
      ),
    ),
  { minLength: 1, maxLength: 12 },
);

describe("sentenceStats", () => {
  it("sums to the corpus's conlleval chunk counts (IOB2)", () => {
    fc.assert(
      fc.property(pairs, (sentences) => {
        const gold = sentences.map((p) => p[0]);
        const predicted = sentences.map((p) => p[1]);
        const stats = sentenceStats(gold, predicted, "IOB2");
        const sums = new Float64Array(3);
        for (let s = 0; s < stats.units; s++)
          for (let k = 0; k < 3; k++) sums[k]! += stats.stats[s * 3 + k]!;
        const whole = scoreLabelling(gold, predicted, "IOB2");
        if (whole.kind !== "chunk-f1") throw new Error("expected chunk F1");
        expect([...sums]).toEqual([
          whole.evaluation.correctChunks,
          whole.evaluation.predictedChunks,
          whole.evaluation.goldChunks,
        ]);
        expect(stats.metric(sums)).toBeCloseTo(whole.evaluation.f1, 12);
      }),
    );
  });

  it("sums to the corpus's token accuracy (plain tags)", () => {
    fc.assert(
      fc.property(pairs, (sentences) => {
        const gold = sentences.map((p) => p[0]);
        const predicted = sentences.map((p) => p[1]);
        const stats = sentenceStats(gold, predicted, "none");
        const sums = new Float64Array(2);
        for (let s = 0; s < stats.units; s++)
          for (let k = 0; k < 2; k++) sums[k]! += stats.stats[s * 2 + k]!;
        const whole = scoreLabelling(gold, predicted, "none");
        if (whole.kind !== "accuracy") throw new Error("expected accuracy");
        expect(sums[1]).toBe(whole.tokens);
        expect(accuracyFromCounts(sums)).toBeCloseTo(whole.accuracy, 12);
      }),
    );
  });
});

describe("bootstrapInterval", () => {
  it("is pairedBootstrap's interval against a system scoring 0 (same draws)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(5), fc.nat(5), fc.nat(5)), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 1000 }),
        (rows, seed) => {
          const stats = new Float64Array(rows.flat());
          const input = { units: rows.length, width: 3, stats, metric: f1FromCounts };
          const ours = bootstrapInterval(input, { samples: 101, seed });
          const theirs = pairedBootstrap(
            { ...input, a: stats, b: new Float64Array(stats.length) },
            { samples: 101, seed },
          );
          expect(ours).toEqual([...theirs.interval]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("collapses to the score when every unit is alike", () => {
    const stats = new Float64Array([3, 4, 5, 3, 4, 5, 3, 4, 5]);
    const [lo, hi] = bootstrapInterval({ units: 3, width: 3, stats, metric: f1FromCounts });
    expect(lo).toBe(hi);
    expect(lo).toBeCloseTo(f1FromCounts(new Float64Array([9, 12, 15])), 12);
  });
});

describe("heldOutCut", () => {
  it("splits train into a cut and fold 9, whole documents to one side", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lagrange-bench-accuracy-cut-"));
    try {
      await writeFile(join(dir, "t.conll"), corpusText(3, 23, 3));
      const train = await openCorpus(join(dir, "t.conll"));
      const { cut, heldOut } = heldOutCut(train);
      expect(cut.sentences.length + heldOut.sentences.length).toBe(train.sentences.length);
      const docs = (c: typeof cut) => new Set(c.sentences.map((s) => s.document?.index ?? -1));
      const held = docs(heldOut);
      for (const d of docs(cut)) expect(held.has(d)).toBe(false);
      // Documents are dealt round-robin: documents 9 and 19 are held out.
      expect([...held].sort((a, b) => a - b)).toEqual([HELD_OUT_FOLD, HELD_OUT_FOLD + 10]);
      // Fewer documents than folds: no held-out fold, said so.
      const few = { ...train, sentences: train.sentences.slice(0, 9 * 3) };
      expect(() => heldOutCut(few)).toThrow(/held-out fold \(10 of 10.*is empty in 27 sentences/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
