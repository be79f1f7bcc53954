import { describe, expect, it } from "vitest";
import { importanceScores, pruneByImportance, type ScoredExample } from "./importance.js";
import { SegmentIndex } from "./segments.js";
import { templateFromSpec } from "./templates.js";

const LABELS = ["O", "B-author", "I-author", "B-title"];
const index = new SegmentIndex(LABELS, "IOB2");
const enc = (s: string) => Int32Array.from(s.split(" "), (n) => LABELS.indexOf(n));
const example = (gold: string, predicted: string): ScoredExample => {
  const g = enc(gold);
  return { n: g.length, L: LABELS.length, gold: g, predicted: enc(predicted) };
};

describe("importance (anzaroot2014 §5.6)", () => {
  // Hand-computed: see the counts in each expectation.
  const examples = [
    example("B-author I-author B-title", "B-author B-author B-title"),
    example("B-author B-title", "B-author B-title"),
    example("B-author B-author B-title", "B-author B-author B-author"),
    example("B-title O", "B-author B-author"),
  ];
  const singletonAuthor = templateFromSpec({ kind: "singleton", segment: "author" }, index);
  const singletonTitle = templateFromSpec({ kind: "singleton", segment: "title" }, index);
  const precedence = templateFromSpec(
    { kind: "precedence", first: "author", second: "title" },
    index,
  );
  const pairSum = templateFromSpec(
    { kind: "pairwise-sum", first: "author", second: "title", bound: 1 },
    index,
  );
  const scores = importanceScores([singletonAuthor, singletonTitle, precedence, pairSum], examples);

  it("counts sentences violated in gold and in prediction", () => {
    const byId = new Map(scores.map((s) => [s.template.id, s]));
    // singleton author: gold violated in d3 only; predicted in d1, d3, d4 → 3 / 1.
    expect(byId.get(singletonAuthor.id)).toMatchObject({
      goldViolations: 1,
      predictedViolations: 3,
      importance: 3,
    });
    // singleton title: never violated → 0.
    expect(byId.get(singletonTitle.id)).toMatchObject({
      goldViolations: 0,
      predictedViolations: 0,
      importance: 0,
    });
    // precedence author→title: gold never violated; predicted d3 and d4 → +∞.
    expect(byId.get(precedence.id)).toMatchObject({ goldViolations: 0, predictedViolations: 2 });
    expect(byId.get(precedence.id)!.importance).toBe(Number.POSITIVE_INFINITY);
    // author + title ≤ 1: gold d1, d2, d3; predicted all four → 4 / 3.
    expect(byId.get(pairSum.id)!.importance).toBeCloseTo(4 / 3, 12);
  });

  it("prunes below the threshold and ranks the rest by importance", () => {
    expect(pruneByImportance(scores).map((s) => s.template.id)).toEqual([
      precedence.id,
      singletonAuthor.id,
    ]);
    expect(pruneByImportance(scores, 1).map((s) => s.template.id)).toEqual([
      precedence.id,
      singletonAuthor.id,
      pairSum.id,
    ]);
  });
});
