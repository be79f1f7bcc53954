import { seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LabelSchemeError, SCHEME_NAMES } from "./labels.js";
import { convertScheme, encodeSpans, extractSpans, type Span, schemeLabels } from "./spans.js";
import { allowedTransitions, findViolations, isValidSequence } from "./validity.js";

const HIER = { levelSeparator: "/" } as const;

/** Random properly nested spans (≤ 3 levels) over n tokens, in extractSpans order. */
function randomTree(seed: number): { n: number; spans: Span[] } {
  const next = seededRandom(seed);
  const n = Math.floor(next() * 12);
  const spans: Span[] = [];
  const fill = (from: number, to: number, level: number, path: string): void => {
    let at = from;
    while (at < to) {
      at += Math.floor(next() * 3);
      const end = at + 1 + Math.floor(next() * 4);
      if (at >= to || end > to) return;
      const own = ["a", "b", "c-d"][Math.floor(next() * 3)]!;
      const type = path === "" ? own : `${path}/${own}`;
      spans.push({ type, start: at, end, level });
      if (level < 2 && next() < 0.6) fill(at, end, level + 1, type);
      at = end;
    }
  };
  fill(0, n, 0, "");
  return { n, spans };
}

describe("hierarchical labels", () => {
  it("gives spans at every level, identified by their type path", () => {
    const labels = [
      "B-ref-marker",
      "B-authors/B-person/B-person-first",
      "I-authors/I-person/B-person-last",
      "I-authors",
      "I-authors/B-person/B-person-first",
      "I-authors/I-person/B-person-last",
      "I-authors/I-person/I-person-last",
      "B-title",
    ];
    const spans = extractSpans(labels, "IOB2", HIER).map(
      (s) => `${s.level}:${s.type}[${s.start},${s.end})`,
    );
    expect(spans).toEqual([
      "0:ref-marker[0,1)",
      "0:authors[1,7)",
      "1:authors/person[1,3)",
      "2:authors/person/person-first[1,2)",
      "2:authors/person/person-last[2,3)",
      "1:authors/person[4,7)",
      "2:authors/person/person-first[4,5)",
      "2:authors/person/person-last[5,7)",
      "0:title[7,8)",
    ]);
    expect(findViolations(labels, "IOB2", HIER)).toEqual([]);
    expect(convertScheme(labels, "IOB2", "BILOU", HIER)).toEqual([
      "U-ref-marker",
      "B-authors/B-person/U-person-first",
      "I-authors/L-person/U-person-last",
      "I-authors",
      "I-authors/B-person/U-person-first",
      "I-authors/I-person/B-person-last",
      "L-authors/L-person/L-person-last",
      "U-title",
    ]);
  });

  it("a child cannot continue across its parent's boundary", () => {
    // The second person starts a new authors chunk, so its I-person is a violation in IOB2.
    const labels = ["B-authors/B-person", "B-authors/I-person"];
    expect(findViolations(labels, "IOB2", HIER).map((v) => [v.position, v.kind])).toEqual([
      [1, "transition"],
    ]);
    expect(extractSpans(labels, "IOB2", HIER).map((s) => `${s.type}[${s.start},${s.end})`)).toEqual(
      ["authors[0,1)", "authors/person[0,1)", "authors[1,2)", "authors/person[1,2)"],
    );
  });

  it("rejects O inside a path", () => {
    expect(() => extractSpans(["B-a/O"], "IOB2", HIER)).toThrow(LabelSchemeError);
  });

  it("nested spans → any scheme → spans is the identity, valid, and conversions round-trip", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const { n, spans } = randomTree(seed);
        const iob2 = encodeSpans(spans, n, "IOB2", HIER);
        for (const scheme of SCHEME_NAMES) {
          const labels = encodeSpans(spans, n, scheme, HIER);
          expect(extractSpans(labels, scheme, HIER)).toEqual(spans);
          expect(findViolations(labels, scheme, HIER)).toEqual([]);
          expect(
            convertScheme(convertScheme(iob2, "IOB2", scheme, HIER), scheme, "IOB2", HIER),
          ).toEqual(iob2);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("valid ⇔ canonical ⇔ accepted by the mask, on random hierarchical sequences", () => {
    for (const scheme of SCHEME_NAMES) {
      const top = schemeLabels(["a", "b"], scheme).slice(1);
      const inventory = ["O", ...top];
      for (const parent of top) for (const child of top) inventory.push(`${parent}/${child}`);
      const mask = allowedTransitions(inventory, scheme, HIER);
      const L = inventory.length;
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: L - 1 }), { maxLength: 8 }), (ids) => {
          const labels = ids.map((id) => inventory[id]!);
          const valid = isValidSequence(labels, scheme, HIER);
          const again = encodeSpans(
            extractSpans(labels, scheme, HIER),
            labels.length,
            scheme,
            HIER,
          );
          expect(valid).toBe(JSON.stringify(again) === JSON.stringify(labels));
          let feasible =
            ids.length === 0 ||
            (mask.allowedStart[ids[0]!] === 1 && mask.allowedEnd[ids.at(-1)!] === 1);
          for (let i = 1; i < ids.length; i++) {
            if (mask.allowed[ids[i - 1]! * L + ids[i]!] === 0) feasible = false;
          }
          expect(valid).toBe(feasible);
        }),
        { numRuns: 400 },
      );
    }
  });
});
