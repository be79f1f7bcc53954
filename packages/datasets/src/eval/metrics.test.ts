import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeSpans, type Span } from "../schemes/spans.js";
import { AlignmentError, evaluateChunks, evaluateSegments } from "./chunks.js";
import { confusionMatrix, evaluateTokens, renderConfusionMatrix } from "./tokens.js";

/** Random properly nested spans (≤ 3 levels) over n tokens. */
function randomTree(seed: number, n: number): Span[] {
  const next = seededRandom(seed);
  const spans: Span[] = [];
  const fill = (from: number, to: number, level: number, path: string): void => {
    let at = from;
    while (at < to) {
      at += Math.floor(next() * 3);
      const end = at + 1 + Math.floor(next() * 4);
      if (at >= to || end > to) return;
      const own = ["a", "b"][Math.floor(next() * 2)]!;
      const type = path === "" ? own : `${path}/${own}`;
      spans.push({ type, start: at, end, level });
      if (level < 2 && next() < 0.6) fill(at, end, level + 1, type);
      at = end;
    }
  };
  fill(0, n, 0, "");
  return spans;
}

const label = fc.constantFrom("O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC");
const pairs = fc.array(
  fc
    .integer({ min: 0, max: 10 })
    .chain((n) =>
      fc.tuple(
        fc.array(label, { minLength: n, maxLength: n }),
        fc.array(label, { minLength: n, maxLength: n }),
      ),
    ),
  { minLength: 1, maxLength: 5 },
);

describe("token metrics", () => {
  it("match per-label counting done the slow way", () => {
    fc.assert(
      fc.property(pairs, fc.boolean(), (data, includeOutside) => {
        const gold = data.map(([g]) => g);
        const predicted = data.map(([, p]) => p);
        const result = evaluateTokens(gold, predicted, { includeOutside });
        const flatGold = gold.flat();
        const flatPredicted = predicted.flat();
        const all = [...new Set([...flatGold, ...flatPredicted])].filter(
          (l) => includeOutside || l !== "O",
        );
        expect([...result.labels].sort()).toEqual(all.sort());
        let sumF = 0;
        for (const l of all) {
          const tp = flatGold.filter((g, i) => g === l && flatPredicted[i] === l).length;
          const predictedCount = flatPredicted.filter((p) => p === l).length;
          const goldCount = flatGold.filter((g) => g === l).length;
          const entry = result.perLabel[l]!;
          expect([entry.correct, entry.predicted, entry.support]).toEqual([
            tp,
            predictedCount,
            goldCount,
          ]);
          expect(entry.precision).toBeCloseTo(predictedCount ? tp / predictedCount : 0, 12);
          expect(entry.recall).toBeCloseTo(goldCount ? tp / goldCount : 0, 12);
          sumF += entry.f1;
        }
        expect(result.macro.f1).toBeCloseTo(all.length ? sumF / all.length : 0, 12);
        const correct = flatGold.filter((g, i) => g === flatPredicted[i]).length;
        expect(result.accuracy).toBeCloseTo(flatGold.length ? correct / flatGold.length : 0, 12);
        if (includeOutside && flatGold.length > 0) {
          // Every token is predicted as exactly one label, so micro P = R = accuracy.
          expect(result.micro.precision).toBeCloseTo(result.accuracy, 12);
          expect(result.micro.recall).toBeCloseTo(result.accuracy, 12);
        }
      }),
    );
  });

  it("refuses misaligned input", () => {
    expect(() => evaluateTokens([["O"]], [["O", "O"]])).toThrow(AlignmentError);
    expect(() => evaluateChunks([["O"]], [])).toThrow(/1 gold, 0 predicted/);
  });
});

describe("confusion matrix", () => {
  it("counts every token once, diagonal = correct tokens", () => {
    fc.assert(
      fc.property(pairs, (data) => {
        const gold = data.map(([g]) => g);
        const predicted = data.map(([, p]) => p);
        const m = confusionMatrix(gold, predicted);
        const L = m.labels.length;
        let total = 0;
        let diagonal = 0;
        for (let i = 0; i < L; i++) {
          for (let j = 0; j < L; j++) total += m.counts[i * L + j]!;
          diagonal += m.counts[i * L + i]!;
        }
        expect(total).toBe(m.total);
        expect(diagonal).toBe(evaluateTokens(gold, predicted).correctTokens);
      }),
    );
  });

  it("renders rows as gold and columns as predictions", () => {
    const m = confusionMatrix([["O", "B-PER", "O"]], [["O", "O", "O"]], { labels: ["O", "B-PER"] });
    expect(renderConfusionMatrix(m)).toBe(
      [
        "gold \\ predicted  O  B-PER",
        "O                 2      0",
        "B-PER             1      0",
        "",
      ].join("\n"),
    );
    expect(() => confusionMatrix([["X"]], [["O"]], { labels: ["O"] })).toThrow(/gold label "X"/);
  });
});

describe("hierarchical segment evaluation", () => {
  it("scores segments at every level and per level", () => {
    const gold: Span[] = [
      { type: "authors", start: 0, end: 4, level: 0 },
      { type: "authors/person", start: 0, end: 2, level: 1 },
      { type: "authors/person", start: 2, end: 4, level: 1 },
      { type: "title", start: 4, end: 6, level: 0 },
    ];
    // The prediction merges the two persons and gets the rest right.
    const predicted: Span[] = [
      { type: "authors", start: 0, end: 4, level: 0 },
      { type: "authors/person", start: 0, end: 4, level: 1 },
      { type: "title", start: 4, end: 6, level: 0 },
    ];
    const hier = { levelSeparator: "/" };
    const result = evaluateSegments(
      [encodeSpans(gold, 6, "IOB2", hier)],
      [encodeSpans(predicted, 6, "IOB2", hier)],
    );
    expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([4, 3, 2]);
    expect(result.perLevel.map((l) => [l.gold, l.count, l.correct])).toEqual([
      [2, 2, 2],
      [2, 1, 0],
    ]);
    expect(result.perType["authors/person"]).toMatchObject({ gold: 2, count: 1, correct: 0 });
    expect(result.precision).toBeCloseTo(2 / 3, 12);
    expect(result.recall).toBeCloseTo(2 / 4, 12);
  });

  it("counts correct segments as the intersection of the generated span sets", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer(),
        fc.integer({ min: 0, max: 12 }),
        (seedGold, seedPredicted, n) => {
          const goldSpans = randomTree(seedGold, n);
          const predictedSpans = randomTree(seedPredicted, n);
          const hier = { levelSeparator: "/" };
          const result = evaluateSegments(
            [encodeSpans(goldSpans, n, "BIOES", hier)],
            [encodeSpans(predictedSpans, n, "BIOES", hier)],
            { scheme: "BIOES" },
          );
          const key = (s: Span) => `${s.level}:${s.type}:${s.start}:${s.end}`;
          const goldKeys = new Set(goldSpans.map(key));
          const correct = predictedSpans.filter((s) => goldKeys.has(key(s)));
          expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([
            goldSpans.length,
            predictedSpans.length,
            correct.length,
          ]);
          for (let level = 0; level < 3; level++) {
            const atLevel = (spans: Span[]) => spans.filter((s) => s.level === level).length;
            const entry = result.perLevel[level];
            expect(entry?.gold ?? 0).toBe(atLevel(goldSpans));
            expect(entry?.count ?? 0).toBe(atLevel(predictedSpans));
            expect(entry?.correct ?? 0).toBe(atLevel(correct));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("with a flat IOB2 scheme agrees with conlleval on valid sequences", () => {
    fc.assert(
      fc.property(pairs, (data) => {
        const canonicalise = (labels: string[]) =>
          labels.map((l, i) =>
            l.startsWith("I-") && labels[i - 1]?.slice(2) !== l.slice(2) ? `B-${l.slice(2)}` : l,
          );
        const gold = data.map(([g]) => canonicalise(g));
        const predicted = data.map(([, p]) => canonicalise(p));
        const a = evaluateChunks(gold, predicted);
        const b = evaluateChunks(gold, predicted, { scheme: "IOB2" });
        expect(b).toEqual(a);
      }),
    );
  });

  it("scores BIOES with the scheme decoder", () => {
    const result = evaluateChunks([["S-PER", "B-LOC", "E-LOC"]], [["S-PER", "B-LOC", "I-LOC"]], {
      scheme: "BIOES",
    });
    expect([result.goldChunks, result.predictedChunks, result.correctChunks]).toEqual([2, 2, 2]);
    expect(result.tokenAccuracy).toBeCloseTo(2 / 3, 12);
  });
});
