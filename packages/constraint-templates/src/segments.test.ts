import { allowedTransitions } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bioStartMask, bioTransitionMask, parseBioLabel, SegmentIndex } from "./segments.ts";

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

describe("parseBioLabel", () => {
  it("parses flat and hierarchical labels and rejects others with the label named", () => {
    expect(parseBioLabel("O")).toEqual([]);
    expect(parseBioLabel("I-authors/B-person")).toEqual([
      { prefix: "I", type: "authors" },
      { prefix: "B", type: "person" },
    ]);
    expect(() => parseBioLabel("U-x")).toThrow(/label "U-x".*level "U-x"/);
    expect(() => parseBioLabel("B-a//I-b")).toThrow(/B-a\/\/I-b/);
  });
});

describe("SegmentIndex", () => {
  it("counts segment beginnings per path key", () => {
    const index = new SegmentIndex(HIER);
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
    const index = new SegmentIndex(HIER, "name");
    const labels = Int32Array.from([1, 3, 8, 9]);
    const counts = index.counts(labels);
    expect(counts[index.indexOf("person")]).toBe(2); // one author, one editor person
    expect(counts[index.indexOf("person-last")]).toBe(2);
  });

  it("names the known keys when a key is unknown", () => {
    expect(() => new SegmentIndex(FLAT).get("editor")).toThrow(/unknown segment "editor".*author/);
  });
});

describe("bioTransitionMask", () => {
  it("flat BIO: I-x only after B-x or I-x; starts never with I-", () => {
    const mask = bioTransitionMask(FLAT);
    const L = FLAT.length;
    const ok = (a: string, b: string) => mask[FLAT.indexOf(a) * L + FLAT.indexOf(b)];
    expect(ok("B-author", "I-author")).toBe(1);
    expect(ok("I-author", "I-author")).toBe(1);
    expect(ok("O", "I-author")).toBe(0);
    expect(ok("B-title", "I-author")).toBe(0);
    expect(ok("I-title", "B-author")).toBe(1);
    expect(ok("B-year", "O")).toBe(1);
    expect([...bioStartMask(FLAT)]).toEqual([1, 1, 0, 1, 0, 1]);
  });

  it("hierarchical BIO: continuing a level needs the same path above it", () => {
    const mask = bioTransitionMask(HIER);
    const L = HIER.length;
    const ok = (a: number, b: number) => mask[a * L + b];
    expect(ok(1, 2)).toBe(1); // first name continues
    expect(ok(1, 3)).toBe(1); // last name begins inside the same person
    expect(ok(3, 4)).toBe(1); // a new person inside the same authors segment
    expect(ok(3, 5)).toBe(1); // "and" inside authors
    expect(ok(6, 3)).toBe(0); // title → inside a person: no open authors segment
    expect(ok(8, 3)).toBe(0); // editor's person → authors' person: different path
    expect(ok(8, 9)).toBe(1);
    expect(ok(5, 2)).toBe(0); // "and" → continuing a first name that is not open
  });

  it("allows every transition of randomly generated well-formed hierarchical sequences", () => {
    // Build label sequences from random nested segmentations and check the mask accepts them.
    const tree = fc.array(
      fc.record({
        type: fc.constantFrom("a", "b"),
        length: fc.integer({ min: 1, max: 3 }),
        children: fc.array(
          fc.record({ type: fc.constantFrom("c", "d"), length: fc.integer({ min: 1, max: 2 }) }),
          { maxLength: 2 },
        ),
      }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(tree, fc.boolean(), (segments, outsideFirst) => {
        const names: string[] = outsideFirst ? ["O"] : [];
        for (const s of segments) {
          const inner: string[] = [];
          for (const c of s.children) {
            for (let k = 0; k < c.length; k++) inner.push(`${k === 0 ? "B" : "I"}-${c.type}`);
          }
          const total = Math.max(s.length, inner.length);
          for (let k = 0; k < total; k++) {
            const top = `${k === 0 ? "B" : "I"}-${s.type}`;
            names.push(k < inner.length ? `${top}/${inner[k]}` : top);
          }
        }
        const labels = [...new Set(names)];
        const mask = bioTransitionMask(labels);
        const start = bioStartMask(labels);
        const L = labels.length;
        expect(start[labels.indexOf(names[0]!)]).toBe(1);
        // Agrees with the datasets package's independent IOB2 mask on the whole label set.
        const extended = [...new Set([...labels, "O", "I-a/B-c", "B-b/I-d"])];
        const theirs = allowedTransitions(extended, "IOB2", { levelSeparator: "/" });
        expect([...bioTransitionMask(extended)]).toEqual([...theirs.allowed]);
        for (let i = 1; i < names.length; i++) {
          expect(mask[labels.indexOf(names[i - 1]!) * L + labels.indexOf(names[i]!)]).toBe(1);
        }
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});
