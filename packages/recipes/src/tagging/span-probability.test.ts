import { type ChainScores, scoreLabelling } from "@lagrange/core";
import { decodingMask, type LabelScheme, schemeSpans } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spanProbabilities } from "./span-probability.js";

const LABELS: Readonly<Partial<Record<LabelScheme, readonly string[]>>> = {
  IOB2: ["O", "B-A", "I-A", "B-B", "I-B"],
  IOB1: ["O", "I-A", "B-A", "I-B", "B-B"],
  IOE1: ["O", "I-A", "E-A", "I-B", "E-B"],
  BIOES: ["O", "B-A", "I-A", "E-A", "S-A", "S-B"],
  "hierarchical-BIO": ["O", "B-x", "I-x", "B-x/B-y", "I-x/B-y", "I-x/I-y"],
};
const SCHEMES = Object.keys(LABELS) as LabelScheme[];

/** Every labelling of n positions over L labels, as arrays of ids. */
function* labellings(n: number, L: number): Generator<number[]> {
  const y = new Array<number>(n).fill(0);
  for (;;) {
    yield [...y];
    let i = n - 1;
    while (i >= 0 && y[i] === L - 1) y[i--] = 0;
    if (i < 0) return;
    y[i]!++;
  }
}

/** p(span) by enumeration: labellings that keep the span's labels and have it as a span. */
function bruteForce(
  scores: ChainScores,
  names: readonly string[],
  scheme: LabelScheme,
  decoded: readonly number[],
) {
  let z = 0;
  const mass = new Map<string, number>();
  const key = (s: { start: number; end: number; type: string; level: number }) =>
    `${s.start}:${s.end}:${s.type}:${s.level}`;
  const wanted = schemeSpans(
    decoded.map((y) => names[y]!),
    scheme,
  );
  for (const y of labellings(scores.n, scores.L)) {
    const w = Math.exp(scoreLabelling(scores, y));
    if (w === 0) continue;
    z += w;
    const spans = new Set(
      schemeSpans(
        y.map((t) => names[t]!),
        scheme,
      ).map(key),
    );
    for (const span of wanted) {
      let same = spans.has(key(span));
      for (let i = span.start; i < span.end && same; i++) same = y[i] === decoded[i];
      if (same) mass.set(key(span), (mass.get(key(span)) ?? 0) + w);
    }
  }
  return wanted.map((span) => (z === 0 ? 0 : (mass.get(key(span)) ?? 0) / z));
}

describe("spanProbabilities", () => {
  it("equals brute-force enumeration on small random chains, masked or not, every scheme", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCHEMES),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 100, maxLength: 100 }),
        fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
        (scheme, n, masked, numbers, picks) => {
          const names = LABELS[scheme]!;
          const L = names.length;
          let k = 0;
          const next = () => numbers[k++ % numbers.length]!;
          const mask = masked ? decodingMask(names, scheme) : undefined;
          const start = Float64Array.from({ length: L }, next);
          if (mask !== undefined) {
            for (let t = 0; t < L; t++) if (mask.allowedStart[t] === 0) start[t] = -Infinity;
          }
          const scores: ChainScores = {
            n,
            L,
            unary: Float64Array.from({ length: n * L }, next),
            transition: Float64Array.from({ length: L * L }, next),
            start,
            end: Float64Array.from({ length: L }, next),
            ...(mask === undefined ? {} : { allowed: mask.allowed }),
          };
          const decoded = Array.from({ length: n }, (_, i) => picks[i]! % L);
          const found = spanProbabilities(scores, decoded, names, scheme);
          const expected = bruteForce(scores, names, scheme, decoded);
          expect(found.length).toBe(expected.length);
          for (const [i, span] of found.entries()) {
            expect(span.probability).toBeCloseTo(expected[i]!, 9);
          }
        },
      ),
      { numRuns: 300, seed: 39 },
    );
  });

  it("gives nothing for plain tags and 1 for a span the chain is sure of", () => {
    const scores: ChainScores = {
      n: 2,
      L: 3,
      unary: Float64Array.from([0, 50, 0, 0, 0, 50]),
      transition: new Float64Array(9),
    };
    expect(spanProbabilities(scores, [1, 2], ["O", "B-A", "I-A"], "none")).toEqual([]);
    const [span] = spanProbabilities(scores, [1, 2], ["O", "B-A", "I-A"], "IOB2");
    expect(span).toMatchObject({ start: 0, end: 2, type: "A" });
    expect(span!.probability).toBeCloseTo(1, 9);
  });

  it("gives 0, not NaN, where the chain gives the span's labels no mass", () => {
    // B-A → I-A is forbidden: the decoded span's inner pair has no mass, nor does its marginal.
    const scores: ChainScores = {
      n: 3,
      L: 3,
      unary: new Float64Array(9),
      transition: Float64Array.from([0, 0, 0, 0, 0, -Infinity, 0, 0, 0]),
    };
    const spans = spanProbabilities(scores, [0, 1, 2], ["O", "B-A", "I-A"], "IOB2");
    expect(spans.map((s) => s.probability)).toEqual([0]);
    const none: ChainScores = { ...scores, unary: new Float64Array(9).fill(-Infinity) };
    expect(spanProbabilities(none, [1, 2, 0], ["O", "B-A", "I-A"], "IOB2")[0]!.probability).toBe(0);
  });
});
