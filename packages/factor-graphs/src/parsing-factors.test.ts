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

/**
 * map against enumeration of all 0/1 vectors, scored by the factor's own `score`; `ties` draws
 * adjustments from {−1, 0, 1} so that optima tie.
 */
function checkAgainstEnumeration(factor: BinaryFactor, random: Random, ties = false): number {
  const adjustment = Float64Array.from({ length: factor.size }, () =>
    ties ? random.int(-1, 1) : random.float(-2, 2),
  );
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

/** Each arc h→m (m ≠ 0) over n nodes with probability `density`, at most `limit` of them. */
function randomArcs(random: Random, n: number, density: number, limit: number) {
  const heads: number[] = [];
  const modifiers: number[] = [];
  for (let h = 0; h < n; h++) {
    for (let m = 1; m < n; m++) {
      if (h !== m && random.bool(density) && heads.length < limit) {
        heads.push(h);
        modifiers.push(m);
      }
    }
  }
  return { heads: Int32Array.from(heads), modifiers: Int32Array.from(modifiers) };
}

/** The factor's map on `adjustment`, value and configuration. */
function mapOnce(factor: BinaryFactor, adjustment: Float64Array): [number, number[]] {
  const out = new Float64Array(factor.size).fill(7);
  return [factor.map(adjustment, out), Array.from(out)];
}

/**
 * The textbook recursive Chu–Liu–Edmonds the factor replaced (a smaller matrix per contraction),
 * kept as the oracle for its tie-breaking: the heads of the best arborescence over dense scores
 * `s[h * size + m]` (−∞: no arc), or false when there is none.
 */
function contract(size: number, s: Float64Array, heads: Int32Array): boolean {
  for (let m = 1; m < size; ++m) {
    let best = -Infinity;
    let arg = -1;
    for (let h = 0; h < size; ++h) {
      if (h === m) continue;
      const value = s[h * size + m]!;
      if (value > best) {
        best = value;
        arg = h;
      }
    }
    if (arg < 0) return false;
    heads[m] = arg;
  }
  heads[0] = -1;
  // Find a cycle among the chosen heads.
  const mark = new Int32Array(size).fill(-1);
  let cycleNode = -1;
  for (let start = 1; start < size && cycleNode < 0; ++start) {
    let v = start;
    while (v > 0 && mark[v] === -1) {
      mark[v] = start;
      v = heads[v]!;
    }
    if (v > 0 && mark[v] === start) cycleNode = v;
  }
  if (cycleNode < 0) return true;

  const inCycle = new Uint8Array(size);
  let v = cycleNode;
  do {
    inCycle[v] = 1;
    v = heads[v]!;
  } while (v !== cycleNode);
  // New numbering: the nodes outside the cycle keep their order, the cycle becomes the last node.
  const index = new Int32Array(size);
  let next = 0;
  for (let u = 0; u < size; ++u) if (!inCycle[u]) index[u] = next++;
  const c = next;
  const small = c + 1;
  for (let u = 0; u < size; ++u) if (inCycle[u]) index[u] = c;
  const t = new Float64Array(small * small).fill(-Infinity);
  // For arcs into the cycle, which cycle node they enter; for arcs out of it, which node leaves.
  const enters = new Int32Array(small).fill(-1);
  const leaves = new Int32Array(small).fill(-1);
  for (let u = 0; u < size; ++u) {
    for (let w = 1; w < size; ++w) {
      if (u === w) continue;
      const value = s[u * size + w]!;
      if (value === -Infinity) continue;
      if (inCycle[u] && inCycle[w]) continue;
      if (inCycle[w]) {
        const adjusted = value - s[heads[w]! * size + w]!;
        const k = index[u]! * small + c;
        if (adjusted > t[k]!) {
          t[k] = adjusted;
          enters[index[u]!] = w;
        }
      } else if (inCycle[u]) {
        const k = c * small + index[w]!;
        if (value > t[k]!) {
          t[k] = value;
          leaves[index[w]!] = u;
        }
      } else {
        t[index[u]! * small + index[w]!] = value;
      }
    }
  }
  const smallHeads = new Int32Array(small);
  if (!contract(small, t, smallHeads)) return false;
  // Expand: the cycle keeps its arcs but the one the chosen entering arc replaces.
  const original = new Int32Array(small);
  for (let u = 0; u < size; ++u) if (!inCycle[u]) original[index[u]!] = u;
  const cycleHeads = new Int32Array(size);
  for (let u = 0; u < size; ++u) cycleHeads[u] = heads[u]!;
  for (let w = 1; w < size; ++w) {
    if (inCycle[w]) {
      heads[w] = cycleHeads[w]!;
    } else {
      const h = smallHeads[index[w]!]!;
      heads[w] = h === c ? leaves[index[w]!]! : original[h]!;
    }
  }
  const from = smallHeads[c]!;
  heads[enters[from]!] = original[from]!;
  return true;
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
        const { heads, modifiers } = randomArcs(random, n, 0.75, 14);
        checkAgainstEnumeration(arborescenceFactor(n, heads, modifiers), random);
      }),
      { numRuns: 300 },
    );
  });

  it("maps to the best arborescence by enumeration when scores tie", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(2, 5);
        const { heads, modifiers } = randomArcs(random, n, random.float(0.3, 1), 14);
        checkAgainstEnumeration(arborescenceFactor(n, heads, modifiers), random, true);
      }),
      { numRuns: 300 },
    );
  });

  it("breaks ties as the recursive Chu–Liu–Edmonds does", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(2, 16);
        const { heads, modifiers } = randomArcs(random, n, random.float(0.2, 1), n * n);
        const factor = arborescenceFactor(n, heads, modifiers);
        const adjustment = Float64Array.from(heads, () => random.int(-1, 1));
        const scores = new Float64Array(n * n).fill(-Infinity);
        heads.forEach((h, r) => {
          scores[h * n + modifiers[r]!] = adjustment[r]!;
        });
        const expected = new Int32Array(n);
        const [value, out] = mapOnce(factor, adjustment);
        if (!contract(n, scores, expected)) {
          expect(value).toBe(-Infinity);
          return;
        }
        const chosen = new Int32Array(n).fill(-1);
        out.forEach((z, r) => {
          if (z === 1) chosen[modifiers[r]!] = heads[r]!;
        });
        expect(Array.from(chosen.subarray(1))).toEqual(Array.from(expected.subarray(1)));
      }),
      { numRuns: 500 },
    );
  });

  it("answers repeated calls as a fresh factor would (its scratch is reused)", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(2, 14);
        // Integer scores make contractions tie. Half the arc sets close a group of nodes to arcs
        // from outside, so that a call finds no arborescence only after contracting a cycle.
        let { heads, modifiers } = randomArcs(random, n, random.float(0.15, 1), n * n);
        if (n > 2 && random.bool(0.5)) {
          const closed = Array.from({ length: n }, (_, v) => v > 0 && random.bool(0.5));
          const keep = Array.from(heads, (h, r) => closed[h] || !closed[modifiers[r]!]);
          heads = heads.filter((_, r) => keep[r]);
          modifiers = modifiers.filter((_, r) => keep[r]);
        }
        const reused = arborescenceFactor(n, heads, modifiers);
        for (let call = 0; call < 12; call++) {
          const ties = random.bool(0.5);
          const adjustment = Float64Array.from(heads, () =>
            ties ? random.int(-1, 1) : random.float(-2, 2),
          );
          const fresh = arborescenceFactor(n, heads, modifiers);
          expect(mapOnce(reused, adjustment)).toEqual(mapOnce(fresh, adjustment));
        }
      }),
      { numRuns: 200 },
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

  it("answers repeated calls as a fresh factor would (its scratch is reused)", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const length = random.int(1, 7);
        const g = random.int(0, 4);
        const siblings = Float64Array.from({ length: siblingScoreCount(length) }, () =>
          random.float(-1, 1),
        );
        const grand = Float64Array.from({ length: g * (length - 1) }, () => random.float(-1, 1));
        const make = () =>
          g === 0
            ? headAutomatonFactor(length, siblings)
            : grandparentHeadAutomatonFactor(length, g, grand, siblings);
        const reused = make();
        for (let call = 0; call < 8; call++) {
          const ties = random.bool(0.5);
          const adjustment = Float64Array.from({ length: reused.size }, () =>
            ties ? random.int(-1, 1) : random.float(-2, 2),
          );
          expect(mapOnce(reused, adjustment)).toEqual(mapOnce(make(), adjustment));
        }
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
