import { LagrangeError } from "@lagrange/core";
import { constraintActivity } from "@lagrange/core/dual-decomposition";
import {
  decodingMask,
  extractSpans,
  type LabelScheme,
  SCHEME_NAMES,
  type SchemeName,
  schemeLabels,
} from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { constraintLattice } from "./candidates.js";
import { SegmentIndex } from "./segments.js";
import type { TemplateSpec } from "./template.js";
import { templateFromSpec } from "./templates.js";

const TYPES = ["LOC", "PER", "ORG"];
type ChunkScheme = SchemeName | "hierarchical-BIO";
const SCHEMES: readonly ChunkScheme[] = [...SCHEME_NAMES, "hierarchical-BIO"];

function labelsOf(scheme: ChunkScheme, types: readonly string[]): string[] {
  if (scheme !== "hierarchical-BIO") return schemeLabels(types, scheme);
  const out = ["O"];
  for (const type of types) {
    for (const top of ["B", "I"]) {
      out.push(`${top}-${type}`);
      for (const child of ["B", "I"]) out.push(`${top}-${type}/${child}-x`);
    }
  }
  return out;
}

/** Every label sequence of length n valid under the scheme (its decoding mask). */
function validSequences(labels: readonly string[], scheme: LabelScheme, n: number): number[][] {
  const { allowed, allowedStart, allowedEnd } = decodingMask(labels, scheme)!;
  const L = labels.length;
  const out: number[][] = [];
  const prefix: number[] = [];
  const extend = (i: number) => {
    if (i === n) {
      if (allowedEnd[prefix[n - 1]!] === 1) out.push([...prefix]);
      return;
    }
    for (let y = 0; y < L; y++) {
      if (i === 0 ? allowedStart[y] !== 1 : allowed[prefix[i - 1]! * L + y] !== 1) continue;
      prefix.push(y);
      extend(i + 1);
      prefix.pop();
    }
  };
  extend(0);
  return out;
}

/** Span counts per segment path, read by datasets' own span extraction. */
function spanCounts(labels: readonly string[], scheme: ChunkScheme): Map<string, number> {
  const counts = new Map<string, number>();
  const spans =
    scheme === "hierarchical-BIO"
      ? extractSpans(labels, "IOB2", { levelSeparator: "/" })
      : extractSpans(labels, scheme);
  for (const span of spans) counts.set(span.type, (counts.get(span.type) ?? 0) + 1);
  return counts;
}

describe("count templates under every scheme (brute force over all valid labellings)", () => {
  for (const scheme of SCHEMES) {
    it(`${scheme}: compiled rows on the lifted labels equal the span counts; violation() agrees`, () => {
      fc.assert(
        fc.property(
          fc
            .subarray(TYPES, { minLength: 1, maxLength: 2 })
            .chain((types) => fc.shuffledSubarray(labelsOf(scheme, types), { minLength: 1 })),
          fc.integer({ min: 1, max: 4 }),
          fc.integer({ min: 0, max: 2 }),
          (labels, n, bound) => {
            const index = new SegmentIndex(labels, scheme);
            const keys = index.countableKeys("segment").map((k) => k.key);
            const specs: TemplateSpec[] = keys.map((segment) => ({ kind: "singleton", segment }));
            for (const first of keys) {
              for (const second of keys) {
                if (first === second) continue;
                specs.push({ kind: "pairwise-sum", first, second, bound });
                specs.push({ kind: "pairwise-difference", first, second, bound });
              }
            }
            const templates = specs.map((spec) => templateFromSpec(spec, index));
            expect(constraintLattice(templates.map((template) => ({ template, penalty: 1 })))).toBe(
              templates.length === 0 ? undefined : index.lattice,
            );
            const instance = { n, L: index.L };
            const rows = templates.map((t) => t.instantiate(instance));
            for (const y of validSequences(labels, scheme, n)) {
              const states = index.lattice.lift(y);
              const spans = spanCounts(
                y.map((id) => labels[id]!),
                scheme,
              );
              const count = (key: string) => spans.get(key) ?? 0;
              templates.forEach((template, t) => {
                const spec = template.spec;
                const expected =
                  spec.kind === "singleton"
                    ? count(spec.segment)
                    : spec.kind === "pairwise-sum"
                      ? count(spec.first) + count(spec.second)
                      : spec.kind === "pairwise-difference"
                        ? count(spec.first) - count(spec.second)
                        : Number.NaN;
                const [row] = rows[t]!;
                expect(constraintActivity(row!, states, index.L)).toBe(expected);
                expect(template.violation(states, instance)).toBe(Math.max(0, expected - row!.rhs));
              });
            }
          },
        ),
        { numRuns: 30 },
      );
    });
  }

  it("the issue's IOB1 repro: PER is countable, `I-LOC O I-LOC` has two LOC segments", () => {
    const labels = ["O", "I-PER", "I-LOC", "B-LOC", "I-ORG", "I-MISC", "B-MISC"];
    const index = new SegmentIndex(labels, "IOB1");
    const per = templateFromSpec({ kind: "singleton", segment: "PER" }, index);
    const loc = templateFromSpec({ kind: "singleton", segment: "LOC" }, index);
    const y = index.lattice.lift([2, 0, 2]);
    const instance = { n: 3, L: index.L };
    expect(per.instantiate(instance)).toHaveLength(1);
    expect(constraintActivity(loc.instantiate(instance)[0]!, y, index.L)).toBe(2);
    expect(loc.violation(y, instance)).toBe(1);
    // `I-LOC I-LOC B-LOC` is two LOC segments too: B- after I- of its type starts one.
    const adjacent = index.lattice.lift([2, 2, 3]);
    expect(constraintActivity(loc.instantiate(instance)[0]!, adjacent, index.L)).toBe(2);
  });

  it("a type the model lacks is a usage error naming it and the model's types", () => {
    const index = new SegmentIndex(["O", "I-PER", "I-LOC"], "IOB1");
    const attempt = () => templateFromSpec({ kind: "singleton", segment: "GPE" }, index);
    expect(attempt).toThrow(LagrangeError);
    expect(attempt).toThrow(/"GPE" \(its types: LOC, PER\)/);
    expect(() => templateFromSpec({ kind: "singleton", segment: "O" }, index)).toThrow(
      /"O" is outside every segment/,
    );
  });

  it("refuses a constraint set built on different schemes", () => {
    const labels = ["O", "B-PER", "I-PER"];
    const iob1 = templateFromSpec(
      { kind: "singleton", segment: "PER" },
      new SegmentIndex(labels, "IOB1"),
    );
    const iob2 = templateFromSpec(
      { kind: "singleton", segment: "PER" },
      new SegmentIndex(labels, "IOB2"),
    );
    expect(constraintLattice([])).toBeUndefined();
    expect(() =>
      constraintLattice([
        { template: iob1, penalty: 1 },
        { template: iob2, penalty: null },
      ]),
    ).toThrow(/other labels or another scheme \(IOB2, 3 labels\).*\(IOB1, 3 labels\)/);
  });
});
