import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChainScores, scoreLabelling, validateChainScores } from "./chain.js";
import { concatenateChains } from "./chain-concatenate.js";

// Scores in quarters keep every sum exact, so the identity can be checked with toBe.
const score = fc.integer({ min: -12, max: 12 }).map((k) => k / 4);
const edgeScore = fc.oneof(
  { weight: 4, arbitrary: score },
  { weight: 1, arbitrary: fc.constant(Number.NEGATIVE_INFINITY) },
);
const scores = (length: number, arb = score) =>
  fc.array(arb, { minLength: length, maxLength: length }).map((a) => Float64Array.from(a));

function chainArb(L: number): fc.Arbitrary<ChainScores> {
  return fc
    .record({
      n: fc.integer({ min: 1, max: 4 }),
      positionSpecific: fc.boolean(),
      hasStart: fc.boolean(),
      hasEnd: fc.boolean(),
      hasAllowed: fc.boolean(),
    })
    .chain(({ n, positionSpecific, hasStart, hasEnd, hasAllowed }) =>
      fc.record({
        n: fc.constant(n),
        L: fc.constant(L),
        unary: scores(n * L),
        transition: scores(positionSpecific && n > 1 ? (n - 1) * L * L : L * L),
        start: hasStart ? scores(L, edgeScore) : fc.constant(undefined),
        end: hasEnd ? scores(L, edgeScore) : fc.constant(undefined),
        allowed: hasAllowed
          ? fc
              .array(fc.integer({ min: 0, max: 3 }), { minLength: L * L, maxLength: L * L })
              .map((a) => Uint8Array.from(a, (x) => (x === 0 ? 0 : 1)))
          : fc.constant(undefined),
      }),
    )
    .map(({ start, end, allowed, ...rest }) => ({
      ...rest,
      ...(start !== undefined ? { start } : {}),
      ...(end !== undefined ? { end } : {}),
      ...(allowed !== undefined ? { allowed } : {}),
    }));
}

const problemArb = fc.integer({ min: 1, max: 3 }).chain((L) =>
  fc.array(chainArb(L), { minLength: 1, maxLength: 4 }).chain((parts) => {
    const n = parts.reduce((sum, p) => sum + p.n, 0);
    return fc.record({
      parts: fc.constant(parts),
      labels: fc.array(fc.integer({ min: 0, max: L - 1 }), { minLength: n, maxLength: n }),
    });
  }),
);

describe("concatenateChains", () => {
  it("scores every labelling as the sum of its parts, −∞ included", () => {
    fc.assert(
      fc.property(problemArb, ({ parts, labels }) => {
        const { scores: joined, starts } = concatenateChains(parts);
        validateChainScores(joined);
        let expected = 0;
        parts.forEach((part, p) => {
          expect(starts[p]).toBe(p === 0 ? 0 : starts[p - 1]! + parts[p - 1]!.n);
          expected += scoreLabelling(part, labels.slice(starts[p]!, starts[p]! + part.n));
        });
        expect(scoreLabelling(joined, labels)).toBe(expected);
        if (parts.length > 1) {
          expect(joined.allowed).toBeUndefined();
          expect(joined.start).toBe(parts[0]!.start);
          expect(joined.end).toBe(parts[parts.length - 1]!.end);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("returns a single part as it is", () => {
    const part: ChainScores = {
      n: 2,
      L: 2,
      unary: new Float64Array(4),
      transition: new Float64Array(4),
    };
    const { scores: joined, starts } = concatenateChains([part]);
    expect(joined).toBe(part);
    expect([...starts]).toEqual([0]);
  });

  it("puts end + start on the boundary block", () => {
    const a: ChainScores = {
      n: 1,
      L: 2,
      unary: Float64Array.of(0, 0),
      transition: Float64Array.of(0, 0, 0, 0),
      end: Float64Array.of(1, Number.NEGATIVE_INFINITY),
    };
    const b: ChainScores = {
      n: 1,
      L: 2,
      unary: Float64Array.of(0, 0),
      transition: Float64Array.of(0, 0, 0, 0),
      start: Float64Array.of(10, 20),
    };
    const { scores: joined } = concatenateChains([a, b]);
    expect([...joined.transition]).toEqual([11, 21, -Infinity, -Infinity]);
  });

  it("rejects parts with different label counts and an empty list", () => {
    const part = (L: number): ChainScores => ({
      n: 1,
      L,
      unary: new Float64Array(L),
      transition: new Float64Array(L * L),
    });
    expect(() => concatenateChains([part(2), part(3)])).toThrow(/parts\[1\]\.L/);
    expect(() => concatenateChains([])).toThrow(/parts/);
  });
});
