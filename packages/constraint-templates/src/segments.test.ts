import { describe, expect, it } from "vitest";
import { SegmentIndex } from "./segments.js";

const FLAT = ["O", "B-author", "I-author", "B-title", "I-title", "B-year"];
const HIER = [
  "O",
  "B-authors/B-person/B-person-first",
  "I-authors/I-person/I-person-first",
  "I-authors/I-person/B-person-last",
  "I-authors/B-person/B-person-first",
  "I-authors",
  "B-title",
  "I-title",
  "B-venue/B-editor/B-person/B-person-first",
  "I-venue/I-editor/I-person/B-person-last",
];

describe("SegmentIndex", () => {
  it("counts segment beginnings per path key", () => {
    const index = new SegmentIndex(HIER, "hierarchical-BIO");
    expect(index.countableKeys().map((k) => k.key)).toEqual([
      "authors",
      "authors/person",
      "authors/person/person-first",
      "authors/person/person-last",
      "title",
      "venue",
      "venue/editor",
      "venue/editor/person",
      "venue/editor/person/person-first",
      "venue/editor/person/person-last",
    ]);
    expect(index.get("authors/person").children).toEqual([
      "authors/person/person-first",
      "authors/person/person-last",
    ]);
    // Two authors (first-name-first), "and" between them, then a title.
    const labels = Int32Array.from([1, 3, 5, 4, 2, 3, 6, 7]);
    const counts = index.counts(labels);
    const count = (key: string) => counts[index.indexOf(key)];
    expect(count("authors")).toBe(1);
    expect(count("authors/person")).toBe(2);
    expect(count("authors/person/person-first")).toBe(2);
    expect(count("authors/person/person-last")).toBe(2);
    expect(count("title")).toBe(1);
    expect(count("venue/editor/person")).toBe(0);
    expect(index.counts(labels)).toBe(counts); // cached per array
    labels[6] = 0; // a reused buffer with new contents is recounted
    expect(index.counts(labels)[index.indexOf("title")]).toBe(0);
  });

  it("keys by element name merge the same element at different places", () => {
    const index = new SegmentIndex(HIER, "hierarchical-BIO", "name");
    const labels = Int32Array.from([1, 3, 8, 9]);
    const counts = index.counts(labels);
    expect(counts[index.indexOf("person")]).toBe(2); // one author, one editor person
    expect(counts[index.indexOf("person-last")]).toBe(2);
  });

  it("names the known keys when a key is unknown", () => {
    expect(() => new SegmentIndex(FLAT, "IOB2").get("editor")).toThrow(
      /no segment type or label "editor" \(its types: author, title, year\)/,
    );
  });
});
