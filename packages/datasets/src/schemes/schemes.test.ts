import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LabelSchemeError, SCHEME_NAMES, type SchemeName } from "./labels.js";
import {
  convertScheme,
  encodeSpans,
  extractSpans,
  type Span,
  SpanError,
  schemeLabels,
} from "./spans.js";
import { allowedTransitions, findViolations, isValidSequence } from "./validity.js";

const TYPES = ["NP", "VP", "b-c"];

/** Random non-overlapping flat spans over n tokens. */
const flatSpans = fc.integer({ min: 0, max: 14 }).chain((n) =>
  fc
    .array(
      fc.tuple(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 2 }),
      ),
      {
        maxLength: 8,
      },
    )
    .map((pieces) => {
      // gap, length-1, type: laid out left to right, dropping what does not fit
      const spans: Span[] = [];
      let at = 0;
      for (const [gap, extra, type] of pieces) {
        const start = at + gap;
        const end = start + extra + 1;
        if (end > n) break;
        spans.push({ type: TYPES[type]!, start, end, level: 0 });
        at = end;
      }
      return { n, spans };
    }),
);

function labelsOf(scheme: SchemeName): string[] {
  return schemeLabels(TYPES, scheme);
}

function canonical(spans: readonly Span[]): string {
  return JSON.stringify([...spans].sort((a, b) => a.start - b.start || a.level - b.level));
}

describe("label schemes: known encodings", () => {
  // Spans NP[0,2) NP[2,3) VP[4,5) over 5 tokens, written by hand from the scheme definitions.
  const spans: Span[] = [
    { type: "NP", start: 0, end: 2, level: 0 },
    { type: "NP", start: 2, end: 3, level: 0 },
    { type: "VP", start: 4, end: 5, level: 0 },
  ];
  const expected: Record<SchemeName, string[]> = {
    IOB1: ["I-NP", "I-NP", "B-NP", "O", "I-VP"],
    IOB2: ["B-NP", "I-NP", "B-NP", "O", "B-VP"],
    IOE1: ["I-NP", "E-NP", "I-NP", "O", "I-VP"],
    IOE2: ["I-NP", "E-NP", "E-NP", "O", "E-VP"],
    BIOES: ["B-NP", "E-NP", "S-NP", "O", "S-VP"],
    BILOU: ["B-NP", "L-NP", "U-NP", "O", "U-VP"],
  };
  for (const scheme of SCHEME_NAMES) {
    it(`${scheme} encodes and decodes`, () => {
      expect(encodeSpans(spans, 5, scheme)).toEqual(expected[scheme]);
      expect(extractSpans(expected[scheme], scheme)).toEqual(spans);
      expect(findViolations(expected[scheme], scheme)).toEqual([]);
    });
  }

  it("reads BILOU letters as BIOES and back", () => {
    expect(convertScheme(["U-X", "B-Y", "L-Y"], "BIOES", "BIOES")).toEqual(["S-X", "B-Y", "E-Y"]);
    expect(convertScheme(["S-X", "B-Y", "E-Y"], "BILOU", "BILOU")).toEqual(["U-X", "B-Y", "L-Y"]);
  });

  it("decodes leniently like conlleval and reports the violations", () => {
    const labels = ["I-NP", "I-NP", "B-VP", "I-NP", "O", "I-PP"];
    expect(extractSpans(labels, "IOB2").map((s) => [s.type, s.start, s.end])).toEqual([
      ["NP", 0, 2],
      ["VP", 2, 3],
      ["NP", 3, 4],
      ["PP", 5, 6],
    ]);
    expect(findViolations(labels, "IOB2").map((v) => [v.position, v.kind])).toEqual([
      [0, "start"],
      [3, "transition"],
      [5, "transition"],
    ]);
    // In IOB1, B- marks only a chunk that directly follows one of the same type.
    expect(findViolations(labels, "IOB1").map((v) => v.position)).toEqual([2]);
    expect(isValidSequence(["I-NP", "B-NP", "I-VP"], "IOB1")).toBe(true);
  });

  it("rejects labels outside the scheme with the position", () => {
    expect(() => extractSpans(["O", "E-NP"], "IOB2")).toThrow(LabelSchemeError);
    expect(() => extractSpans(["O", "E-NP"], "IOB2")).toThrow(/position 1/);
    expect(() => extractSpans(["NP"], "BIOES")).toThrow(/position 0/);
    expect(() => allowedTransitions(["O", "B-"], "IOB2")).toThrow(/position 1/);
  });

  it("rejects spans that no sequence can express", () => {
    const overlap: Span[] = [
      { type: "A", start: 0, end: 2, level: 0 },
      { type: "B", start: 1, end: 3, level: 0 },
    ];
    expect(() => encodeSpans(overlap, 3, "IOB2")).toThrow(SpanError);
    expect(() => encodeSpans([{ type: "A", start: 2, end: 4, level: 0 }], 3, "IOB2")).toThrow(
      /≤ 3/,
    );
  });
});

describe("label schemes: properties", () => {
  it("spans → any scheme → spans is the identity, and the encoding is valid", () => {
    fc.assert(
      fc.property(flatSpans, ({ n, spans }) => {
        for (const scheme of SCHEME_NAMES) {
          const labels = encodeSpans(spans, n, scheme);
          expect(extractSpans(labels, scheme)).toEqual(spans);
          expect(findViolations(labels, scheme)).toEqual([]);
        }
      }),
    );
  });

  it("IOB2 → X → IOB2 is the identity on valid sequences, and every conversion keeps the spans", () => {
    fc.assert(
      fc.property(flatSpans, ({ n, spans }) => {
        const iob2 = encodeSpans(spans, n, "IOB2");
        for (const scheme of SCHEME_NAMES) {
          const there = convertScheme(iob2, "IOB2", scheme);
          expect(convertScheme(there, scheme, "IOB2")).toEqual(iob2);
          for (const other of SCHEME_NAMES) {
            expect(extractSpans(convertScheme(there, scheme, other), other)).toEqual(spans);
          }
        }
      }),
    );
  });

  it("valid ⇔ the sequence is the canonical encoding of its own spans ⇔ the mask accepts it", () => {
    for (const scheme of SCHEME_NAMES) {
      const names = labelsOf(scheme);
      const mask = allowedTransitions(names, scheme);
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: names.length - 1 }), { maxLength: 10 }),
          (ids) => {
            const labels = ids.map((id) => names[id]!);
            const valid = isValidSequence(labels, scheme);
            const roundTrip = encodeSpans(extractSpans(labels, scheme), labels.length, scheme);
            expect(valid).toBe(JSON.stringify(roundTrip) === JSON.stringify(labels));
            let feasible =
              ids.length === 0 ||
              (mask.allowedStart[ids[0]!] === 1 && mask.allowedEnd[ids.at(-1)!] === 1);
            for (let i = 1; i < ids.length; i++) {
              if (mask.allowed[ids[i - 1]! * mask.allowedStart.length + ids[i]!] === 0)
                feasible = false;
            }
            expect(valid).toBe(feasible);
            // Whatever the input, conversion never changes the decoded spans.
            const spans = canonical(extractSpans(labels, scheme));
            for (const other of SCHEME_NAMES) {
              expect(canonical(extractSpans(convertScheme(labels, scheme, other), other))).toBe(
                spans,
              );
            }
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it("counts of valid sequences equal counts of span sets (brute force, n ≤ 5)", () => {
    // Span sets over n tokens with T types: f(n) = f(n-1) + T·Σ_{k=1..n} f(n-k), f(0) = 1.
    const T = 2;
    const types = TYPES.slice(0, T);
    const f = [1];
    for (let n = 1; n <= 5; n++) {
      let total = f[n - 1]!;
      for (let k = 1; k <= n; k++) total += T * f[n - k]!;
      f.push(total);
    }
    for (const scheme of SCHEME_NAMES) {
      const names = schemeLabels(types, scheme);
      for (let n = 0; n <= 5; n++) {
        let valid = 0;
        const seen = new Set<string>();
        const ids = new Array<number>(n).fill(0);
        for (;;) {
          const labels = ids.map((id) => names[id]!);
          if (isValidSequence(labels, scheme)) {
            valid++;
            seen.add(canonical(extractSpans(labels, scheme)));
          }
          let k = 0;
          while (k < n && ids[k] === names.length - 1) ids[k++] = 0;
          if (k === n) break;
          ids[k]!++;
        }
        expect(valid).toBe(f[n]);
        expect(seen.size).toBe(f[n]);
      }
    }
  });

  it("every sequence decoded under the mask is valid", () => {
    for (const scheme of SCHEME_NAMES) {
      const names = labelsOf(scheme);
      const mask = allowedTransitions(names, scheme);
      const L = names.length;
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 9 }).chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(fc.double({ min: -5, max: 5, noNaN: true }), {
                minLength: n * L,
                maxLength: n * L,
              }),
              fc.array(fc.double({ min: -5, max: 5, noNaN: true }), {
                minLength: L * L,
                maxLength: L * L,
              }),
            ),
          ),
          ([n, unary, transition]) => {
            const labels = maskedViterbi(n, L, unary, transition, mask);
            expect(
              isValidSequence(
                labels.map((id) => names[id]!),
                scheme,
              ),
            ).toBe(true);
          },
        ),
        { numRuns: 100 },
      );
    }
  });
});

/** A plain Viterbi with forbidden transitions, starts and ends at −∞ (test-only reference). */
function maskedViterbi(
  n: number,
  L: number,
  unary: readonly number[],
  transition: readonly number[],
  mask: { allowed: Uint8Array; allowedStart: Uint8Array; allowedEnd: Uint8Array },
): number[] {
  const score = new Float64Array(n * L).fill(Number.NEGATIVE_INFINITY);
  const back = new Int32Array(n * L);
  for (let y = 0; y < L; y++) if (mask.allowedStart[y]) score[y] = unary[y]!;
  for (let i = 1; i < n; i++) {
    for (let y = 0; y < L; y++) {
      let best = Number.NEGATIVE_INFINITY;
      let arg = 0;
      for (let p = 0; p < L; p++) {
        if (!mask.allowed[p * L + y]) continue;
        const s = score[(i - 1) * L + p]! + transition[p * L + y]!;
        if (s > best) {
          best = s;
          arg = p;
        }
      }
      score[i * L + y] = best + unary[i * L + y]!;
      back[i * L + y] = arg;
    }
  }
  let best = Number.NEGATIVE_INFINITY;
  let y = -1;
  for (let t = 0; t < L; t++) {
    if (mask.allowedEnd[t] && score[(n - 1) * L + t]! > best) {
      best = score[(n - 1) * L + t]!;
      y = t;
    }
  }
  if (y < 0) throw new Error("no feasible labelling");
  const out = new Array<number>(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = y;
    y = back[i * L + y]!;
  }
  return out;
}
