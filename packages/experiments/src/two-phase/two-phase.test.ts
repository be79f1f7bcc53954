import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluateSegments, generateCitationSentences } from "@lagrange/datasets";
import { trainOrLoadModel } from "@lagrange/recipes";
import { afterAll, describe, expect, it } from "vitest";
import { twoPhaseData } from "./data.js";
import { twoPhaseSystems } from "./decode-split.js";
import {
  labelType,
  quantile,
  sentenceFieldCounts,
  significanceOf,
  timeDistribution,
  tokenScores,
} from "./metrics.js";

describe("labelType", () => {
  it("strips B-/I- at every level and keeps O", () => {
    expect(labelType("B-author")).toBe("author");
    expect(labelType("I-ORG")).toBe("ORG");
    expect(labelType("O")).toBe("O");
    expect(labelType("I-venue/B-date/I-year")).toBe("venue/date/year");
  });
});

describe("tokenScores (fersini2014 Eqs. 31–34 over label types)", () => {
  const gold = [["B-PER", "I-PER", "O", "B-LOC"]];
  const predicted = [["B-PER", "B-PER", "O", "O"]];
  const s = tokenScores(gold, predicted);

  it("counts types, not B-/I- labels, for accuracy and per-type figures", () => {
    expect(s.accuracy).toBeCloseTo(75); // PER PER O right, LOC → O wrong
    expect(s.labelAccuracy).toBeCloseTo(50); // I-PER → B-PER also wrong
    expect(s.perType.PER).toMatchObject({ precision: 100, recall: 100, f1: 100, support: 2 });
    expect(s.perType.LOC).toMatchObject({ precision: 0, recall: 0, f1: 0, support: 1 });
    expect(s.perType.O).toMatchObject({ precision: 50, recall: 100, support: 1 });
  });

  it("averages with and without O", () => {
    // O included: micro P = R = F = accuracy.
    expect(s.withOutside.micro.f1).toBeCloseTo(75);
    expect(s.withOutside.macro.recall).toBeCloseTo((100 + 0 + 100) / 3);
    // O excluded: 2 right of 2 predicted entity tokens, of 3 gold ones.
    expect(s.withoutOutside.micro.precision).toBeCloseTo(100);
    expect(s.withoutOutside.micro.recall).toBeCloseTo(200 / 3);
    expect(s.withoutOutside.macro.f1).toBeCloseTo(50);
  });
});

describe("per-sentence field counts and the bootstrap", () => {
  const gold = generateCitationSentences(12, { seed: 7 }).map((s) => s.labels!);
  // A worse system: every other sentence loses its first token to O.
  const worse = gold.map((labels, k) =>
    k % 2 === 0 ? labels.map((l, i) => (i === 0 ? "O" : l)) : [...labels],
  );

  it("sums to the corpus counts (segments)", () => {
    const counts = sentenceFieldCounts(gold, worse, "segments");
    const corpus = evaluateSegments(gold, worse);
    const sum = (k: number) => counts.filter((_, i) => i % 3 === k).reduce((a, b) => a + b, 0);
    expect([sum(0), sum(1), sum(2)]).toEqual([
      corpus.correctChunks,
      corpus.predictedChunks,
      corpus.goldChunks,
    ]);
  });

  it("is seeded, and signed against the baseline", () => {
    const options = { samples: 200, seed: 3 };
    const a = significanceOf(gold, gold, worse, "segments", options);
    expect(a).toEqual(significanceOf(gold, gold, worse, "segments", options));
    expect(a.f1.delta).toBeGreaterThan(0);
    expect(a.accuracy.delta).toBeCloseTo((100 * 6) / gold.flat().length);
    const b = significanceOf(gold, worse, gold, "segments", options);
    expect(b.f1.delta).toBeCloseTo(-a.f1.delta);
  });
});

describe("time distributions", () => {
  it("nearest-rank p95, median and max", () => {
    const ms = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(quantile(ms, 0.95)).toBe(19);
    expect(timeDistribution(ms)).toEqual({ sentences: 20, median: 10.5, p95: 19, max: 20 });
    expect(timeDistribution([])).toEqual({ sentences: 0, median: 0, p95: 0, max: 0 });
  });
});

describe("split protocols", () => {
  it("generated-flat holds the τ part out of the training data, like Cora", async () => {
    const d = await twoPhaseData("generated-flat");
    expect(d.evaluation).toBe("chunks");
    expect(d.tuneTrain.sentences.length + d.heldOut.sentences.length).toBe(
      d.train.sentences.length,
    );
    expect(d.train.sentences.slice(0, 90)).toEqual(d.tuneTrain.sentences);
    expect(d.heldOut.sentences).toEqual(d.train.sentences.slice(90));
    for (const s of d.train.sentences) {
      expect(s.labels!.every((l) => !l.includes("/"))).toBe(true);
    }
  });

  it("generated-nested takes τ from a half of other data, like UMass", async () => {
    const d = await twoPhaseData("generated-nested");
    expect(d.evaluation).toBe("segments");
    expect(d.tuneTrain).toBe(d.train);
    const held = new Set(d.heldOut.sentences);
    expect(d.test.sentences.some((s) => held.has(s))).toBe(false);
  });

  it("every family alone, all together, and Soft-DD", () => {
    const names = twoPhaseSystems(["precedence", "begin-end"]).map((s) => s.name);
    expect(names).toEqual([
      "CRF-Viterbi",
      "two-phase: precedence",
      "two-phase: begin-end",
      "two-phase: all rules",
      "Soft-DD: all rules",
    ]);
  });
});

describe("trainOrLoadModel", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("trains once, then finds the model in the cache", async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-2p-cache-"));
    const corpus = {
      label: "generated",
      format: "umass" as const,
      scheme: "hierarchical-BIO" as const,
      sentences: generateCitationSentences(30, { seed: 5 }),
    };
    const options = { name: "citation-crf", preset: "citation", iterations: 3, cacheDir: dir };
    const first = await trainOrLoadModel(corpus, options);
    expect(first.cached).toBe(false);
    const second = await trainOrLoadModel(corpus, options);
    expect(second.cached).toBe(true);
    expect(second.model.labels.names()).toEqual(first.model.labels.names());
    const other = await trainOrLoadModel(corpus, { ...options, iterations: 4 });
    expect(other.cached).toBe(false);
  });
});
