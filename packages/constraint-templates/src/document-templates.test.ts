import { constraintViolation, LagrangeError } from "@lagrange/core";
import { type LabelScheme, schemeViolations } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateTemplates } from "./candidates.js";
import { parseConstraintsFile, serializeConstraintsFile } from "./constraints-file.js";
import { documentInstantiator, hasDocumentScope } from "./document-templates-instances.js";
import { brokenHardConstraints } from "./independent-check.js";
import { SegmentIndex } from "./segments.js";
import type { TemplateInstance, TemplateSpec } from "./template.js";
import { templateFromSpec } from "./templates.js";

/** Label sets of 3–5 labels under schemes with and without split lattice states. */
const LABEL_SETS: readonly { scheme: LabelScheme; labels: readonly string[] }[] = [
  { scheme: "IOB2", labels: ["O", "B-PER", "I-PER"] },
  { scheme: "IOB2", labels: ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"] },
  { scheme: "IOB1", labels: ["O", "I-PER", "I-ORG", "B-ORG"] },
  { scheme: "BIOES", labels: ["O", "S-PER", "B-ORG", "E-ORG", "S-ORG"] },
];

/** Three-word vocabularies, so that strings repeat and acronyms find (or miss) long forms. */
const VOCABULARIES: readonly (readonly string[])[] = [
  ["New", "York", "NY"],
  ["Bank", "of", "BOB"],
  ["Bank", "The", "BB"],
  ["Paris", "said", "PS"],
];

/** Every labelling of n tokens the scheme accepts (label ids). */
function validLabellings(labels: readonly string[], n: number, scheme: LabelScheme): number[][] {
  const out: number[][] = [];
  const walk = (prefix: number[]) => {
    if (prefix.length === n) {
      if (
        schemeViolations(
          prefix.map((y) => labels[y]!),
          scheme,
        ).length === 0
      )
        out.push(prefix);
      return;
    }
    for (let y = 0; y < labels.length; y++) walk([...prefix, y]);
  };
  walk([]);
  return out;
}

/** A document of 2–3 sentences of 2–3 tokens drawn from one vocabulary, and a valid labelling. */
const documentArb = fc
  .record({
    set: fc.integer({ min: 0, max: LABEL_SETS.length - 1 }),
    vocabulary: fc.constantFrom(...VOCABULARIES),
    lengths: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: 3 }),
  })
  .chain(({ set, vocabulary, lengths }) =>
    fc.record({
      set: fc.constant(set),
      lengths: fc.constant(lengths),
      sentences: fc.tuple(
        ...lengths.map((n) =>
          fc.array(fc.constantFrom(...vocabulary), { minLength: n, maxLength: n }),
        ),
      ),
      picks: fc.array(fc.nat(), { minLength: lengths.length, maxLength: lengths.length }),
      maxOccurrences: fc.constantFrom(undefined, 2, 3),
    }),
  );

function startsOf(lengths: readonly number[]): Int32Array {
  const starts = new Int32Array(lengths.length);
  for (let k = 1; k < lengths.length; k++) starts[k] = starts[k - 1]! + lengths[k - 1]!;
  return starts;
}

describe("document templates: rows, violation() and the independent check agree", () => {
  it("on random tiny documents in every scheme, with sentence templates beside them", () => {
    fc.assert(
      fc.property(documentArb, ({ set, lengths, sentences, picks, maxOccurrences }) => {
        const { scheme, labels } = LABEL_SETS[set]!;
        const index = new SegmentIndex(labels, scheme);
        const types = index
          .countableKeys()
          .map((k) => k.key)
          .filter((k) => k !== "O");
        const specs: TemplateSpec[] = types.flatMap((type) =>
          (["same-string", "acronym"] as const).map((kind) =>
            maxOccurrences === undefined ? { kind, type } : { kind, type, maxOccurrences },
          ),
        );
        const ids = lengths.flatMap((n, k) => {
          const all = validLabellings(labels, n, scheme);
          return all[picks[k]! % all.length]!;
        });
        const names = ids.map((y) => labels[y]!);
        const starts = startsOf(lengths);
        // Lifted sentence by sentence: a state depends on its neighbour within a sentence only.
        const states = Int32Array.from(
          lengths.flatMap((n, k) => [...index.lattice.lift(ids.slice(starts[k]!, starts[k]! + n))]),
        );
        const tokens = sentences.flat();
        const instance: TemplateInstance = {
          n: tokens.length,
          L: index.L,
          tokens,
          sentenceStarts: starts,
        };
        for (const spec of specs) {
          const template = templateFromSpec(spec, index);
          expect(template.scope).toBe("document");
          const rows = template
            .instantiate(instance)
            .reduce((sum, c) => sum + constraintViolation(c, states, index.L), 0);
          expect(template.violation(states, instance)).toBe(rows);
          const [broken] = brokenHardConstraints([{ template, penalty: null }], names, tokens, {
            scheme,
            sentenceStarts: starts,
          });
          expect({ id: template.id, tokens, names, v: broken?.violation ?? 0 }).toEqual({
            id: template.id,
            tokens,
            names,
            v: rows,
          });
        }
        // A sentence template in a document: its rows at each sentence's offset.
        const singleton = templateFromSpec({ kind: "singleton", segment: types[0]! }, index);
        const weighted = [{ template: singleton, penalty: null }];
        const rows = documentInstantiator(weighted)(instance).reduce(
          (sum, c) => sum + constraintViolation(c, states, index.L),
          0,
        );
        let perSentence = 0;
        lengths.forEach((n, k) => {
          const from = starts[k]!;
          perSentence += singleton.violation(states.slice(from, from + n), { n, L: index.L });
        });
        expect(rows).toBe(perSentence);
        const [broken] = brokenHardConstraints(weighted, names, tokens, {
          scheme,
          sentenceStarts: starts,
        });
        expect(broken?.violation ?? 0).toBe(perSentence);
      }),
      { numRuns: 300, seed: 37 },
    );
  });
});

describe("which tokens a document template links", () => {
  const index = new SegmentIndex(["O", "B-PER", "I-PER", "B-ORG", "I-ORG"], "IOB2");
  const L = index.L;
  const ids = (names: string) =>
    Int32Array.from(names.split(" "), (n) => index.labels.names().indexOf(n));
  const violation = (spec: TemplateSpec, text: string, names: string, starts = [0]) => {
    const tokens = text.split(" ");
    return templateFromSpec(spec, index).violation(ids(names), {
      n: tokens.length,
      L,
      tokens,
      sentenceStarts: Int32Array.from(starts),
    });
  };
  const sameString = { kind: "same-string", type: "PER" } as const;

  it("same-string: a capitalised repeat shares the type; stopwords and lowercase do not count", () => {
    expect(violation(sameString, "Smith met Smith", "B-PER O O")).toBe(1);
    expect(violation(sameString, "Smith met Smith", "B-PER O B-PER")).toBe(0);
    expect(violation(sameString, "Smith met Smith", "O O O")).toBe(0);
    expect(violation(sameString, "smith met smith", "B-PER O O")).toBe(0);
    expect(violation(sameString, "I met I", "B-PER O O")).toBe(0);
    // A star from the first occurrence: two later ones that disagree with it cost two.
    expect(violation(sameString, "Smith Smith Smith", "B-PER O O")).toBe(2);
    expect(violation({ ...sameString, maxOccurrences: 2 }, "Smith Smith Smith", "B-PER O O")).toBe(
      1,
    );
  });

  it("same-string: a string seen only at sentence starts is left out", () => {
    expect(violation(sameString, "Today x Today y", "B-PER O O O", [0, 2])).toBe(0);
    expect(violation(sameString, "Today x y Today", "B-PER O O O", [0, 2])).toBe(1);
  });

  it("acronym: the long form's first token and the acronym share the type", () => {
    const acronym = { kind: "acronym", type: "ORG" } as const;
    expect(
      violation(acronym, "the Bank of England . BOE rose", "O B-ORG I-ORG I-ORG O O O", [0, 5]),
    ).toBe(1);
    expect(
      violation(acronym, "the Bank of England . BOE rose", "O B-ORG I-ORG I-ORG O B-ORG O", [0, 5]),
    ).toBe(0);
    // The function word may be skipped in the initials.
    expect(violation(acronym, "Bank of England BE", "B-ORG I-ORG I-ORG O")).toBe(1);
    // No run spells it: nothing to link; a run across two sentences does not count.
    expect(violation(acronym, "Bank of Paris BE", "B-ORG I-ORG I-ORG O")).toBe(0);
    expect(violation(acronym, "Bank England BE", "B-ORG O O", [0, 1])).toBe(0);
  });

  it("describes itself, is a document family, and reaches every countable type", () => {
    const t = templateFromSpec(sameString, index);
    expect(t.id).toBe("same-string:PER");
    expect(t.family).toBe("document");
    expect(t.describe()).toMatch(/same type PER or none across a document/);
    const found = candidateTemplates(index, { families: ["document"] }).map((c) => c.id);
    expect(found.sort()).toEqual(
      ["acronym:ORG", "acronym:PER", "same-string:ORG", "same-string:PER"].sort(),
    );
    expect(hasDocumentScope([{ template: t, penalty: 1 }])).toBe(true);
    expect(hasDocumentScope([{ template: t, penalty: 0 }])).toBe(false);
    const sentence = templateFromSpec({ kind: "singleton", segment: "PER" }, index);
    expect(sentence.scope).toBe("sentence");
    expect(hasDocumentScope([{ template: sentence, penalty: null }])).toBe(false);
  });

  it("refuses O, a type the model lacks, and a bad maxOccurrences as usage errors", () => {
    const usage = (spec: TemplateSpec) => {
      try {
        templateFromSpec(spec, index);
      } catch (error) {
        return error instanceof LagrangeError && error.code === "usage" ? error.message : "other";
      }
      return "none";
    };
    expect(usage({ kind: "same-string", type: "O" })).toMatch(/no entity type/);
    expect(usage({ kind: "acronym", type: "LOC" })).toMatch(/no segment type or label "LOC"/);
    expect(usage({ kind: "acronym", type: "PER", maxOccurrences: 1 })).toMatch(/≥ 2/);
  });

  it("round-trips through a constraints file, and a malformed spec names its line", () => {
    const entries = [
      { template: templateFromSpec(sameString, index), penalty: 1.5 },
      {
        template: templateFromSpec({ kind: "acronym", type: "ORG", maxOccurrences: 5 }, index),
        penalty: null,
      },
    ];
    const text = serializeConstraintsFile({ index, entries });
    const read = parseConstraintsFile(text, { source: "doc.json" });
    expect(read.entries.map((e) => [e.template.id, e.penalty])).toEqual([
      ["same-string:PER", 1.5],
      ["acronym:ORG|5", null],
    ]);
    const bad = text.replace('"maxOccurrences":5', '"maxOccurrences":"many"');
    expect(() => parseConstraintsFile(bad, { source: "doc.json" })).toThrow(
      /doc\.json:\d+: constraints\[1\]\.spec\.maxOccurrences: expected an integer ≥ 2/,
    );
  });
});
