import { constraintActivity } from "@lagrange/core/dual-decomposition";
import { type LabelScheme, schemeViolations } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { brokenHardConstraints } from "./independent-check.js";
import { SegmentIndex } from "./segments.js";
import type { TemplateSpec } from "./template.js";
import { templateFromSpec } from "./templates.js";

/** Each scheme's labels over two types (hierarchical: a nested type under one of them). */
const LABEL_SETS: Readonly<Record<Exclude<LabelScheme, "none">, readonly string[]>> = {
  IOB1: ["O", "I-PER", "I-LOC", "B-LOC", "B-PER"],
  IOB2: ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"],
  IOE1: ["O", "I-PER", "I-LOC", "E-LOC", "E-PER"],
  IOE2: ["O", "I-PER", "E-PER", "I-LOC", "E-LOC"],
  BIOES: ["O", "B-PER", "I-PER", "E-PER", "S-PER", "S-LOC"],
  BILOU: ["O", "B-PER", "L-PER", "U-PER", "U-LOC"],
  "hierarchical-BIO": ["O", "B-PER", "I-PER", "B-PER/B-LOC", "I-PER/B-LOC", "I-PER/I-LOC"],
};

/** Every label sequence of length n the scheme accepts. */
function validLabellings(labels: readonly string[], n: number, scheme: LabelScheme): number[][] {
  const out: number[][] = [];
  const walk = (prefix: number[]) => {
    if (prefix.length === n) {
      if (
        schemeViolations(
          prefix.map((y) => labels[y]!),
          scheme,
        ).length === 0
      ) {
        out.push([...prefix]);
      }
      return;
    }
    for (let y = 0; y < labels.length; y++) walk([...prefix, y]);
  };
  walk([]);
  return out;
}

function specsFor(scheme: LabelScheme): TemplateSpec[] {
  const [a, b] = scheme === "hierarchical-BIO" ? ["PER", "PER/LOC"] : ["PER", "LOC"];
  return [
    { kind: "singleton", segment: a },
    { kind: "singleton", segment: b },
    { kind: "pairwise-sum", first: a, second: b, bound: 1 },
    { kind: "pairwise-difference", first: b, second: a, bound: 0 },
    { kind: "adjacency", first: a, second: "O" },
    { kind: "precedence", first: b, second: a },
    { kind: "begin-end", first: "O", second: a },
    { kind: "presence-precedence", first: a, second: b },
    { kind: "state-change", delimiter: ",", first: a, second: "O" },
  ];
}

describe("brokenHardConstraints: the independent check", () => {
  for (const scheme of Object.keys(LABEL_SETS) as Exclude<LabelScheme, "none">[]) {
    it(`${scheme}: agrees with the compiled rows and the templates' own count on every valid labelling`, () => {
      const labels = LABEL_SETS[scheme];
      const index = new SegmentIndex(labels, scheme);
      const templates = specsFor(scheme).map((spec) => templateFromSpec(spec, index));
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 4 }),
          fc.array(fc.constantFrom("w", ",", "x"), { minLength: 4, maxLength: 4 }),
          (n, words) => {
            const tokens = words.slice(0, n);
            for (const ids of validLabellings(labels, n, scheme)) {
              const names = ids.map((y) => labels[y]!);
              const states = index.lattice.lift(ids);
              for (const template of templates) {
                const [broken] = brokenHardConstraints(
                  [{ template, penalty: null }],
                  names,
                  tokens,
                  {
                    scheme,
                  },
                );
                const instance = { n, L: index.L, tokens };
                let rows = 0;
                for (const row of template.instantiate(instance)) {
                  rows += Math.max(0, constraintActivity(row, states, index.L) - row.rhs);
                }
                const independent = broken?.violation ?? 0;
                expect({ id: template.id, names, v: independent }).toEqual({
                  id: template.id,
                  names,
                  v: rows,
                });
                expect(template.violation(states, instance)).toBe(independent);
              }
            }
          },
        ),
        { numRuns: 8 },
      );
    });
  }

  it("reads only hard constraints, and names what a labelling breaks", () => {
    const labels = LABEL_SETS.IOB1;
    const index = new SegmentIndex(labels, "IOB1");
    const oneLoc = templateFromSpec({ kind: "singleton", segment: "LOC" }, index);
    const onePer = templateFromSpec({ kind: "singleton", segment: "PER" }, index);
    // Two LOC segments, each starting with I-LOC (IOB1): what a B- count misses.
    const names = ["I-LOC", "O", "I-LOC", "I-PER", "B-PER"];
    const broken = brokenHardConstraints(
      [
        { template: oneLoc, penalty: null },
        { template: onePer, penalty: 2 },
      ],
      names,
      names.map(() => "w"),
      { scheme: "IOB1" },
    );
    expect(broken).toEqual([{ id: "singleton:LOC", description: oneLoc.describe(), violation: 1 }]);
  });
});
