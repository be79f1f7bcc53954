import { createRandom, type Random } from "@lagrange/core";
import type { BinaryFactor } from "@lagrange/core/dual-decomposition";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arborescenceFactor,
  grandparentHeadAutomatonFactor,
  headAutomatonFactor,
  siblingScoreCount,
} from "./parsing-factors.js";

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < a.length; i++) total += a[i]! * b[i]!;
  return total;
}

/** map against enumeration of all 0/1 vectors, scored by the factor's own `score`. */
function checkAgainstEnumeration(factor: BinaryFactor, random: Random): number {
  const adjustment = Float64Array.from({ length: factor.size }, () => random.float(-2, 2));
  let best = -Infinity;
  let allowed = 0;
  const z = new Float64Array(factor.size);
  for (let bits = 0; bits < 2 ** factor.size; bits++) {
    for (let j = 0; j < factor.size; j++) z[j] = (bits >> j) & 1;
    const own = factor.score(z);
    if (own === -Infinity) continue;
    allowed++;
    best = Math.max(best, own + dot(adjustment, z));
  }
  const out = new Float64Array(factor.size);
  const value = factor.map(adjustment, out);
  expect(value).toBeCloseTo(best, 10);
  if (best > -Infinity) expect(factor.score(out) + dot(adjustment, out)).toBeCloseTo(value, 10);
  return allowed;
}

/** Number of arborescences of the complete digraph on n nodes rooted at 0: n^(n−2) (Cayley). */
describe("arborescenceFactor", () => {
  it("allows exactly the spanning arborescences (Cayley's count on complete graphs)", () => {
    for (const n of [2, 3, 4]) {
      const heads: number[] = [];
      const modifiers: number[] = [];
      for (let h = 0; h < n; h++) {
        for (let m = 1; m < n; m++) {
          if (h !== m) {
            heads.push(h);
            modifiers.push(m);
          }
        }
      }
      const factor = arborescenceFactor(n, Int32Array.from(heads), Int32Array.from(modifiers));
      expect(checkAgainstEnumeration(factor, createRandom(n))).toBe(n ** (n - 2));
    }
  });

  it("maps to the best arborescence by enumeration, on random arc sets", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(2, 5);
        const heads: number[] = [];
        const modifiers: number[] = [];
        for (let h = 0; h < n; h++) {
          for (let m = 1; m < n; m++) {
            if (h !== m && random.bool(0.75) && heads.length < 14) {
              heads.push(h);
              modifiers.push(m);
            }
          }
        }
        const factor = arborescenceFactor(n, Int32Array.from(heads), Int32Array.from(modifiers));
        checkAgainstEnumeration(factor, random);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects an arc into the root or out of range", () => {
    expect(() => arborescenceFactor(3, Int32Array.of(1), Int32Array.of(0))).toThrow(RangeError);
    expect(() => arborescenceFactor(3, Int32Array.of(3), Int32Array.of(1))).toThrow(RangeError);
  });
});

describe("head automata", () => {
  it("HEAD_AUTOMATON maps to the best modifier set by enumeration", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const length = random.int(1, 7);
        const siblings = Float64Array.from({ length: siblingScoreCount(length) }, () =>
          random.float(-1, 1),
        );
        const allowed = checkAgainstEnumeration(headAutomatonFactor(length, siblings), random);
        expect(allowed).toBe(2 ** (length - 1));
      }),
      { numRuns: 200 },
    );
  });

  it("GRANDPARENT_HEAD_AUTOMATON maps to the best grandparent and modifiers by enumeration", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const length = random.int(1, 5);
        const g = random.int(1, 3);
        const siblings = Float64Array.from({ length: siblingScoreCount(length) }, () =>
          random.float(-1, 1),
        );
        const grand = Float64Array.from({ length: g * (length - 1) }, () => random.float(-1, 1));
        const factor = grandparentHeadAutomatonFactor(length, g, grand, siblings);
        expect(checkAgainstEnumeration(factor, random)).toBe(g * 2 ** (length - 1));
      }),
      { numRuns: 200 },
    );
  });

  it("scores a set by its consecutive siblings", () => {
    // length 3: modifiers 1, 2; sibling order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
    const factor = headAutomatonFactor(3, Float64Array.of(1, 2, 4, 8, 16, 32));
    expect(factor.score([0, 0])).toBe(4);
    expect(factor.score([1, 0])).toBe(1 + 16);
    expect(factor.score([0, 1])).toBe(2 + 32);
    expect(factor.score([1, 1])).toBe(1 + 8 + 32);
  });
});
