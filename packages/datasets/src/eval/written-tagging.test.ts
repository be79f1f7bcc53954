import { describe, expect, it } from "vitest";
import { WrittenTaggingScorer } from "./written-tagging.js";

describe("WrittenTaggingScorer", () => {
  it("scores CoNLL text fed in pieces split anywhere, trailing columns skipped", () => {
    const scorer = new WrittenTaggingScorer("conll", "IOB2", 1);
    const text = "John B-PER B-PER 0.9\nlives O O 0.8\nin O O 0.9\nYork B-LOC O 0.6\n\n";
    for (let at = 0; at < text.length; at += 7) scorer.feed(text.slice(at, at + 7));
    const score = scorer.finish();
    expect(score?.kind).toBe("chunk-f1");
    expect(score?.kind === "chunk-f1" && score.evaluation.f1).toBeCloseTo(2 / 3);
  });

  it("scores NDJSON records that carry gold, and reads POS tags by accuracy", () => {
    const scorer = new WrittenTaggingScorer("ndjson", "none");
    scorer.feed('{"tokens":["a","b"],"gold":["X","Y"],"labels":["X","X"]}\n');
    scorer.feed('{"tokens":["c"],"labels":["X"]}\n');
    expect(scorer.finish()).toMatchObject({ kind: "accuracy", tokens: 2, correct: 1 });
  });

  it("gives no score without gold, and keeps the first unreadable line as the failure", () => {
    expect(new WrittenTaggingScorer("conll", "IOB2").finish()).toBeUndefined();
    const broken = new WrittenTaggingScorer("ndjson", "IOB2");
    broken.feed("{not json\n");
    expect(broken.finish()).toBeUndefined();
    expect(broken.failure).toBeInstanceOf(SyntaxError);
  });
});
