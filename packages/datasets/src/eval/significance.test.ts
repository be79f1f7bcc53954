import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateChunks } from "./chunks.js";
import {
  normalSurvival,
  pairedBootstrapChunkF1,
  sentenceChunkCounts,
  wilcoxonSignedRank,
} from "./significance.js";

/** P-value by enumerating all 2^n sign assignments of the (mid)ranks: the test's definition. */
function bruteForceWilcoxon(
  d: readonly number[],
  alternative: "two-sided" | "greater" | "less",
): number {
  const nonzero = d.filter((v) => v !== 0);
  const n = nonzero.length;
  const abs = nonzero.map(Math.abs);
  const ranks = abs.map((a) => {
    const below = abs.filter((b) => b < a).length;
    const equal = abs.filter((b) => b === a).length;
    return below + (equal + 1) / 2;
  });
  const observed = nonzero.reduce((s, v, i) => s + (v > 0 ? ranks[i]! : 0), 0);
  let le = 0;
  let ge = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    let plus = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) plus += ranks[i]!;
    if (plus <= observed + 1e-9) le++;
    if (plus >= observed - 1e-9) ge++;
  }
  const total = 2 ** n;
  if (alternative === "greater") return ge / total;
  if (alternative === "less") return le / total;
  return Math.min(1, (2 * Math.min(le, ge)) / total);
}

describe("Wilcoxon signed-rank test", () => {
  it("Darwin's Zea mays data (Fisher 1935): T = 24, exact two-sided p = 1352/32768", () => {
    // Cross-minus-self height differences in eighths of an inch; the two negative ones have
    // ranks 10 and 14, so R− = 24.
    const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
    const two = wilcoxonSignedRank(d);
    expect(two.statistic).toBe(24);
    expect(two.method).toBe("exact");
    expect(two.pValue).toBe(1352 / 32768);
    const greater = wilcoxonSignedRank(d, undefined, { alternative: "greater" });
    expect(greater.statistic).toBe(120 - 24);
    expect(greater.pValue).toBe(676 / 32768);
  });

  it("normal approximation with ties and a zero, computed by hand", () => {
    // d = 2 −2 3 5 5 5 −1 0: the zero is dropped (n = 7). |d| ranks: 1→1, 2,2→2.5, 3→4, 5,5,5→6.
    // R+ = 2.5 + 4 + 18 = 24.5, R− = 1 + 2.5 = 3.5, T = 3.5. Mean 7·8/4 = 14.
    // Var = 7·8·15/24 − [(2³−2) + (3³−3)]/48 = 35 − 0.625 = 34.375; z = (3.5 − 14)/√34.375.
    const r = wilcoxonSignedRank([2, -2, 3, 5, 5, 5, -1, 0], undefined, { method: "approx" });
    expect(r.statistic).toBe(3.5);
    expect([r.n, r.zeros, r.rankSumPositive, r.rankSumNegative]).toEqual([7, 1, 24.5, 3.5]);
    expect(r.z!).toBeCloseTo(-10.5 / Math.sqrt(34.375), 12);
    expect(r.pValue).toBeCloseTo(2 * normalSurvival(10.5 / Math.sqrt(34.375)), 14);
    // Pairs give the same test as their differences.
    expect(
      wilcoxonSignedRank([3, 1, 5, 6, 6, 6, 0, 4], [1, 3, 2, 1, 1, 1, 1, 4], { method: "approx" }),
    ).toEqual(r);
  });

  it("the exact p-value equals enumeration over all sign flips, ties included", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom("two-sided" as const, "greater" as const, "less" as const),
        (d, alternative) => {
          fc.pre(d.some((v) => v !== 0));
          const r = wilcoxonSignedRank(d, undefined, { alternative, method: "exact" });
          expect(r.pValue).toBeCloseTo(bruteForceWilcoxon(d, alternative), 12);
        },
      ),
    );
  });

  it("the normal approximation approaches the exact test for large n", () => {
    const random = seededRandom(3);
    const d = Array.from({ length: 50 }, () => random() - 0.42);
    const exact = wilcoxonSignedRank(d, undefined, { method: "exact" }).pValue;
    const approx = wilcoxonSignedRank(d, undefined, { method: "approx" }).pValue;
    expect(Math.abs(exact - approx)).toBeLessThan(0.005);
    expect(wilcoxonSignedRank([...d, ...d], undefined).method).toBe("approx");
  });

  it("normalSurvival matches known quantiles", () => {
    expect(normalSurvival(0)).toBe(0.5);
    expect(normalSurvival(1.959963984540054)).toBeCloseTo(0.025, 14);
    expect(normalSurvival(-1.959963984540054)).toBeCloseTo(0.975, 14);
    // Q(5) = 2.866515718791939e-7 (Abramowitz & Stegun table 26.1).
    expect(normalSurvival(5) / 2.866515718791939e-7).toBeCloseTo(1, 10);
  });

  it("refuses all-zero differences", () => {
    expect(() => wilcoxonSignedRank([0, 0], undefined)).toThrow(/every difference is zero/);
  });
});

describe("paired bootstrap", () => {
  const random = seededRandom(11);
  const types = ["NP", "VP"];
  const gold: string[][] = [];
  for (let s = 0; s < 150; s++) {
    const sentence: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = random();
      const type = types[Math.floor(random() * 2)]!;
      sentence.push(r < 0.3 ? "O" : r < 0.65 ? `B-${type}` : `I-${type}`);
    }
    gold.push(sentence);
  }
  const corrupt = (rate: number, seed: number): string[][] => {
    const r = seededRandom(seed);
    return gold.map((sentence) =>
      sentence.map((l) => (r() < rate ? (l === "O" ? "B-NP" : "O") : l)),
    );
  };

  it("per-sentence chunk counts sum to the corpus counts", () => {
    const predicted = corrupt(0.2, 5);
    const counts = sentenceChunkCounts(gold, predicted);
    const sums = [0, 0, 0];
    for (let s = 0; s < gold.length; s++)
      for (let k = 0; k < 3; k++) sums[k]! += counts[s * 3 + k]!;
    const corpus = evaluateChunks(gold, predicted);
    expect(sums).toEqual([corpus.correctChunks, corpus.predictedChunks, corpus.goldChunks]);
  });

  it("is deterministic for a seed, finds a real difference, and none between identical systems", () => {
    const good = corrupt(0.02, 7);
    const bad = corrupt(0.25, 8);
    const result = pairedBootstrapChunkF1(gold, good, bad, { samples: 1000, seed: 42 });
    expect(pairedBootstrapChunkF1(gold, good, bad, { samples: 1000, seed: 42 })).toEqual(result);
    expect(result.delta).toBeCloseTo(
      evaluateChunks(gold, good).f1 - evaluateChunks(gold, bad).f1,
      12,
    );
    expect(result.pValue).toBeLessThan(0.01);
    expect(result.aWins).toBe(1000);
    expect(result.interval[0]).toBeGreaterThan(0);
    const same = pairedBootstrapChunkF1(gold, good, good, { samples: 200, seed: 1 });
    expect(same.delta).toBe(0);
    expect(same.pValue).toBe(1);
  });
});
