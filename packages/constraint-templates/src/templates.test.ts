import { constraintViolation } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  candidateTemplates,
  constraintInstantiator,
  instantiateAll,
  RULE_FAMILIES,
} from "./candidates.js";
import { SegmentIndex } from "./segments.js";
import type { ConstraintTemplate, TemplateInstance, TemplateSpec } from "./template.js";
import { templateFromSpec } from "./templates.js";

const LABELS = ["O", "B-author", "I-author", "B-title", "I-title", "B-editor", "I-editor"];
const index = new SegmentIndex(LABELS, "IOB2");
const L = LABELS.length;
const enc = (s: string) =>
  Int32Array.from(s.split(" "), (name) => {
    const id = LABELS.indexOf(name);
    if (id < 0) throw new Error(name);
    return id;
  });

/** Total violation as the solver sees it: Σ over the instantiated constraints. */
function instantiatedViolation(t: ConstraintTemplate, labels: Int32Array, inst: TemplateInstance) {
  return t.instantiate(inst).reduce((sum, c) => sum + constraintViolation(c, labels, L), 0);
}

function check(spec: TemplateSpec, sequence: string, expected: number, tokens?: string[]) {
  const t = templateFromSpec(spec, index);
  const labels = enc(sequence);
  const inst: TemplateInstance =
    tokens === undefined ? { n: labels.length, L } : { n: labels.length, L, tokens };
  expect(t.violation(labels, inst)).toBe(expected);
  expect(instantiatedViolation(t, labels, inst)).toBe(expected);
}

describe("count templates (anzaroot2014 §5.2–5.4)", () => {
  it("singleton: at most one author segment", () => {
    const spec = { kind: "singleton", segment: "author" } as const;
    expect(templateFromSpec(spec, index).describe()).toBe("at most one author segment");
    check(spec, "B-author I-author B-title I-title", 0);
    check(spec, "B-author I-author B-author B-title", 1);
    check(spec, "B-author B-author B-author", 2);
  });

  it("pairwise sum and difference with their bounds", () => {
    check(
      { kind: "pairwise-sum", first: "title", second: "editor", bound: 1 },
      "B-title B-editor",
      1,
    );
    check(
      { kind: "pairwise-sum", first: "title", second: "editor", bound: 0 },
      "B-title B-editor B-editor",
      3,
    );
    check(
      { kind: "pairwise-sum", first: "title", second: "editor", bound: 3 },
      "B-title B-editor B-editor",
      0,
    );
    // thesis-needs-school style: count(editor) − count(author) ≤ 0.
    check(
      { kind: "pairwise-difference", first: "editor", second: "author", bound: 0 },
      "B-editor I-editor O",
      1,
    );
    check(
      { kind: "pairwise-difference", first: "editor", second: "author", bound: 0 },
      "B-author B-editor",
      0,
    );
    check(
      { kind: "pairwise-difference", first: "editor", second: "author", bound: 1 },
      "B-editor B-editor B-editor",
      2,
    );
    expect(
      templateFromSpec(
        { kind: "pairwise-difference", first: "editor", second: "author", bound: 0 },
        index,
      ).describe(),
    ).toBe("no more editor segments than author segments");
  });

  it("hierarchical equality halves count hierarchy components", () => {
    const hier = new SegmentIndex(
      [
        "O",
        "B-authors/B-person/B-person-first",
        "I-authors/B-person/B-person-last",
        "I-authors/I-person/B-person-last",
        "I-authors/B-person/B-person-first",
      ],
      "hierarchical-BIO",
    );
    const labels = Int32Array.from([1, 3, 2, 4]); // person(first,last), person(last), person(first)
    const inst = { n: 4, L: 5 };
    const personVsFirst = templateFromSpec(
      { kind: "hierarchical", first: "authors/person", second: "authors/person/person-first" },
      hier,
    );
    const firstVsPerson = templateFromSpec(
      { kind: "hierarchical", first: "authors/person/person-first", second: "authors/person" },
      hier,
    );
    expect(personVsFirst.violation(labels, inst)).toBe(1); // 3 persons, 2 first names
    expect(firstVsPerson.violation(labels, inst)).toBe(0);
    for (const t of [personVsFirst, firstVsPerson]) {
      expect(t.instantiate(inst).reduce((s, c) => s + constraintViolation(c, labels, 5), 0)).toBe(
        t.violation(labels, inst),
      );
    }
    const candidates = candidateTemplates(hier, { families: ["hierarchical"] });
    expect(candidates.map((t) => t.id).sort()).toEqual(
      [
        "hierarchical:authors/person/person-first|authors/person",
        "hierarchical:authors/person|authors/person/person-first",
        "hierarchical:authors/person/person-last|authors/person",
        "hierarchical:authors/person|authors/person/person-last",
        "hierarchical:authors/person|authors",
        "hierarchical:authors|authors/person",
      ].sort(),
    );
  });
});

describe("rule templates (fersini2014 (17)–(21), node form)", () => {
  it("adjacency: an author token is followed by an author or title token", () => {
    // Group "author" = {B-author, I-author}; "title" = {B-title, I-title}.
    check({ kind: "adjacency", first: "author", second: "title" }, "B-author B-title", 0);
    check({ kind: "adjacency", first: "author", second: "title" }, "B-author I-author B-title", 1);
    check({ kind: "adjacency", first: "author", second: "title" }, "O B-author", 0); // last token: no pair
  });

  it("precedence: every author token has a title token somewhere after it", () => {
    check(
      { kind: "precedence", first: "author", second: "title" },
      "B-author I-author O B-title",
      0,
    );
    check({ kind: "precedence", first: "author", second: "title" }, "B-title B-author I-author", 2);
  });

  it("state change around a delimiter token", () => {
    const spec = {
      kind: "state-change",
      delimiter: ",",
      first: "author",
      second: "title",
    } as const;
    check(spec, "B-author O B-title", 0, ["Smith", ",", "Title"]);
    check(spec, "B-author O B-author", 1, ["Smith", ",", "Jones"]);
    check(spec, "B-title O B-author", 2, ["Title", ",", "Jones"]);
    check(spec, "B-title O B-author", 0, ["Title", ";", "Jones"]); // not the delimiter
    expect(() => templateFromSpec(spec, index).instantiate({ n: 3, L })).toThrow(/tokens/);
  });

  it("begin-end: a sentence that starts with author ends with title", () => {
    check({ kind: "begin-end", first: "author", second: "title" }, "B-author B-title", 0);
    check({ kind: "begin-end", first: "author", second: "title" }, "B-author B-editor", 1);
    check({ kind: "begin-end", first: "author", second: "title" }, "B-editor B-editor", 0);
    check({ kind: "begin-end", first: "author", second: "title" }, "B-author", 1); // n = 1
  });

  it("presence and precedence: no title token before an author token (one unit per pair)", () => {
    check({ kind: "presence-precedence", first: "author", second: "title" }, "B-author B-title", 0);
    check({ kind: "presence-precedence", first: "author", second: "title" }, "B-title B-author", 1);
    check(
      { kind: "presence-precedence", first: "author", second: "title" },
      "B-title I-title B-author I-author",
      4,
    );
  });

  it("violation() equals the violation of the instantiated constraints on random labellings", () => {
    const templates = candidateTemplates(index, {
      families: ["singleton", "pairwise", "hierarchical", ...RULE_FAMILIES],
      includeOutside: true,
      delimiters: [",", "."],
    });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: L - 1 }), { minLength: 1, maxLength: 7 }),
        fc.array(fc.constantFrom(",", ".", "x"), { minLength: 7, maxLength: 7 }),
        (ys, toks) => {
          const labels = Int32Array.from(ys);
          const inst = { n: labels.length, L, tokens: toks.slice(0, labels.length) };
          for (const t of templates) {
            expect(instantiatedViolation(t, labels, inst)).toBe(t.violation(labels, inst));
          }
        },
      ),
      { numRuns: 60, seed: 5 },
    );
  });
});

describe("candidateTemplates", () => {
  it("counts full labels (the paper's unit) or segments on hierarchical label sets", () => {
    const hier = new SegmentIndex(
      ["O", "B-authors/B-person", "I-authors/I-person", "I-authors/B-person", "B-title", "I-title"],
      "hierarchical-BIO",
    );
    const byLabel = candidateTemplates(hier, { families: ["singleton"] });
    expect(byLabel.map((t) => t.describe())).toEqual([
      "at most one B-authors/B-person label",
      "at most one I-authors/B-person label",
      "at most one B-title label",
    ]);
    const bySegment = candidateTemplates(hier, { families: ["singleton"], countUnit: "segment" });
    expect(bySegment.map((t) => t.describe())).toEqual([
      "at most one authors segment",
      "at most one authors/person segment",
      "at most one title segment",
    ]);
    // Two persons in one authors segment: the label count sees one B-authors/B-person token.
    const labels = Int32Array.from([1, 2, 3, 4]);
    const inst = { n: 4, L: 6 };
    expect(byLabel[0]!.violation(labels, inst)).toBe(0);
    expect(bySegment[1]!.violation(labels, inst)).toBe(1);
    // Hierarchical equality relates segment kinds whatever the count unit.
    expect(candidateTemplates(hier, { families: ["hierarchical"] }).map((t) => t.id)).toEqual([
      "hierarchical:authors|authors/person",
      "hierarchical:authors/person|authors",
    ]);
  });

  it("generates the paper's families over the countable segments", () => {
    const K = index.countableKeys().length; // author, editor, title
    expect(K).toBe(3);
    const all = candidateTemplates(index);
    const by = (f: string) => all.filter((t) => t.family === f).length;
    expect(by("singleton")).toBe(K);
    expect(by("pairwise")).toBe(((K * (K - 1)) / 2) * 4 + K * (K - 1) * 4);
    expect(by("hierarchical")).toBe(0); // flat labels have no hierarchy
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
    const rules = candidateTemplates(index, { families: ["state-change"], delimiters: [","] });
    expect(rules.length).toBe(K * (K - 1));
  });

  it("instantiateAll attaches penalties, names, and skips zero penalties", () => {
    const singleton = templateFromSpec({ kind: "singleton", segment: "author" }, index);
    const pair = templateFromSpec(
      { kind: "pairwise-sum", first: "author", second: "title", bound: 1 },
      index,
    );
    const precedence = templateFromSpec(
      { kind: "precedence", first: "author", second: "title" },
      index,
    );
    const cs = instantiateAll(
      [
        { template: singleton, penalty: 2 },
        { template: pair, penalty: 0 },
        { template: precedence, penalty: null },
      ],
      { n: 3, L },
    );
    expect(cs.length).toBe(1 + 3);
    expect(cs[0]!.penalty).toBe(2);
    expect(cs[0]!.name).toBe("at most one author segment");
    expect(cs[1]!.penalty).toBeUndefined();
    expect(() => singleton.instantiate({ n: 3, L: L + 1 })).toThrow(/built for 7 lattice states/);
  });

  it("constraintInstantiator reuses per-length constraints and re-reads tokens", () => {
    const singleton = templateFromSpec({ kind: "singleton", segment: "author" }, index);
    const change = templateFromSpec(
      { kind: "state-change", delimiter: ",", first: "author", second: "title" },
      index,
    );
    const weighted = [
      { template: singleton, penalty: 1 },
      { template: change, penalty: 0.5 },
    ];
    const instantiate = constraintInstantiator(weighted);
    const a = instantiate({ n: 3, L, tokens: ["a", ",", "b"] });
    const b = instantiate({ n: 3, L, tokens: ["a", "b", "c"] });
    expect(a.length).toBe(2);
    expect(b.length).toBe(1);
    expect(b[0]).toBe(a[0]); // the singleton's constraint is built once for n = 3
    expect(a).toEqual(instantiateAll(weighted, { n: 3, L, tokens: ["a", ",", "b"] }));
  });
});
