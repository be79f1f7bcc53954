import { describe, expect, it } from "vitest";
import {
  ConstraintsFileError,
  parseConstraintsFile,
  serializeConstraintsFile,
} from "./constraints-file.js";
import { SegmentIndex } from "./segments.js";
import { templateFromSpec } from "./templates.js";

const LABELS = ["O", "B-authors/B-person", "I-authors/I-person", "B-title", "I-title"];
const index = new SegmentIndex(LABELS, "hierarchical-BIO");
const entries = [
  {
    template: templateFromSpec({ kind: "singleton", segment: "authors" }, index),
    penalty: 1.5,
    importance: Number.POSITIVE_INFINITY,
    goldViolations: 0,
    predictedViolations: 4,
  },
  {
    template: templateFromSpec(
      { kind: "hierarchical", first: "authors", second: "authors/person" },
      index,
    ),
    penalty: 0,
    importance: 3.25,
  },
  {
    template: templateFromSpec(
      { kind: "state-change", delimiter: ",", first: "authors", second: "title" },
      index,
    ),
    penalty: null,
  },
];
const text = serializeConstraintsFile({
  index,
  entries,
  metadata: { algorithm: "perceptron", epochs: 5 },
});

function parseError(t: string, options = {}): ConstraintsFileError {
  try {
    parseConstraintsFile(t, { source: "C.json", ...options });
  } catch (error) {
    if (error instanceof ConstraintsFileError) return error;
    throw error;
  }
  throw new Error("expected a ConstraintsFileError");
}

describe("constraints file", () => {
  it("round-trips templates, penalties, importance and metadata, naming each rule in words", () => {
    expect(text).toContain('"description":"at most one authors segment"');
    const parsed = parseConstraintsFile(text, { source: "C.json", expectedLabels: LABELS });
    expect(parsed.index.labels.names()).toEqual(LABELS);
    expect(parsed.entries.map((e) => e.template.id)).toEqual(entries.map((e) => e.template.id));
    expect(parsed.entries.map((e) => e.penalty)).toEqual([1.5, 0, null]);
    expect(parsed.entries[0]!.importance).toBe(Number.POSITIVE_INFINITY);
    expect(parsed.entries[0]!.predictedViolations).toBe(4);
    expect(parsed.entries[1]!.importance).toBe(3.25);
    expect(parsed.metadata).toEqual({ algorithm: "perceptron", epochs: 5 });
    expect(serializeConstraintsFile(parsed)).toBe(text);
    // The rebuilt templates behave like the originals.
    const labels = Int32Array.from([1, 1, 3]);
    expect(parsed.entries[0]!.template.violation(labels, { n: 3, L: 5 })).toBe(1);
  });

  it("reports malformed files with the file, line and what was expected", () => {
    const syntax = parseError(text.replace('"penalty":1.5', '"penalty":1.5,,'));
    expect(syntax.message).toMatch(/^C\.json(:\d+)?: not valid JSON/);
    expect(parseError(text.replace('"lagrange-constraints"', '"other"')).message).toMatch(
      /^C\.json:2: format: expected "lagrange-constraints", got "other"/,
    );
    expect(parseError(text.replace('"version": 1', '"version": 7')).message).toMatch(
      /version 7 was written by a newer lagrange/,
    );
    const negative = parseError(text.replace('"penalty":1.5', '"penalty":-1'));
    expect(negative.path).toBe("constraints[0].penalty");
    expect(negative.line).toBe(
      text.split("\n").findIndex((l) => l.includes("singleton:authors")) + 1,
    );
    expect(negative.message).toMatch(/expected a finite number ≥ 0 or null/);
    expect(parseError(text.replace('"kind":"singleton"', '"kind":"sometimes"')).message).toMatch(
      /constraints\[0\]\.spec\.kind: expected one of singleton/,
    );
    expect(parseError(text.replace('"segment":"authors"', '"segment":"editors"')).message).toMatch(
      /constraints\[0\]\.spec: the model has no segment type or label "editors" \(its types: authors, authors\/person, title\)/,
    );
    expect(
      parseError(text.replace('"id":"singleton:authors"', '"id":"singleton:title"')).message,
    ).toMatch(/constraints\[0\]\.id: expected "singleton:authors"/);
    expect(parseError(text, { expectedLabels: ["O", "B-x"] }).message).toMatch(
      /labels: the file has 5 labels, the model 2/,
    );
    expect(parseError("[]").message).toMatch(/expected a JSON object/);
  });

  it("records the scheme; reads files without one under the model's, refuses another scheme", () => {
    expect(text).toContain('"scheme": "hierarchical-BIO"');
    const iob1 = ["O", "I-PER", "I-LOC", "B-LOC"];
    const written = serializeConstraintsFile({
      index: new SegmentIndex(iob1, "IOB1"),
      entries: [],
    });
    expect(parseConstraintsFile(written).index.lattice.scheme).toBe("IOB1");
    expect(parseError(written, { scheme: "IOB2" }).message).toMatch(
      /scheme: the file's constraints were written for IOB1 labels, the model's scheme is IOB2/,
    );
    // A version-1 file from before schemes were recorded, or one written by hand.
    const unrecorded = written.replace('  "scheme": "IOB1",\n', "");
    expect(unrecorded).not.toContain('"scheme"');
    const legacy = parseConstraintsFile(unrecorded, { scheme: "IOB1" });
    expect(legacy.index.lattice.scheme).toBe("IOB1");
    expect(legacy.index.L).toBe(6); // O, I-PER, I-LOC, B-LOC and the two starting I- states
    expect(parseConstraintsFile(unrecorded).index.lattice.scheme).toBe("IOB2");
    expect(parseError(written.replace('"IOB1"', '"IOB9"')).message).toMatch(
      /scheme: expected one of IOB1, .*got "IOB9"/,
    );
  });

  it("records the document grouping; files without one read unchanged, a bad one is refused", () => {
    expect(text).not.toContain('"groups"');
    expect(parseConstraintsFile(text).groups).toBeUndefined();
    const tweets = serializeConstraintsFile({ index, entries, groups: "tweets" });
    expect(tweets).toContain('"groups": "tweets"');
    const parsed = parseConstraintsFile(tweets);
    expect(parsed.groups).toBe("tweets");
    expect(serializeConstraintsFile(parsed)).toBe(tweets);
    const bad = parseError(tweets.replace('"groups": "tweets"', '"groups": "paragraphs"'));
    expect(bad.message).toMatch(
      /C\.json:\d+: groups: expected "documents" or "tweets", got "paragraphs"/,
    );
  });

  it("rejects duplicate constraints", () => {
    const dup = serializeConstraintsFile({ index, entries: [entries[0]!, entries[0]!] });
    expect(parseError(dup).message).toMatch(/duplicate constraint "singleton:authors"/);
  });
});
