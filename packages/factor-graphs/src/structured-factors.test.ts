import { createRandom, type Random } from "@lagrange/core";
import type { BinaryFactor } from "@lagrange/core/dual-decomposition";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countedTreeFactor,
  generalTreeFactor,
  sequenceFactor,
  sequenceScoreOffsets,
  treeOrder,
  treeScoreOffsets,
} from "./structured-factors.js";

/** Every assignment of one state per position. */
function* allStates(numStates: Int32Array): Generator<Int32Array> {
  const states = new Int32Array(numStates.length);
  for (;;) {
    yield states;
    let i = numStates.length - 1;
    while (i >= 0 && states[i] === numStates[i]! - 1) states[i--] = 0;
    if (i < 0) return;
    states[i]! += 1;
  }
}

function oneHot(states: Int32Array, numStates: Int32Array): Float64Array {
  let size = 0;
  for (const n of numStates) size += n;
  const z = new Float64Array(size);
  let offset = 0;
  states.forEach((s, i) => {
    z[offset + s] = 1;
    offset += numStates[i]!;
  });
  return z;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < a.length; i++) total += a[i]! * b[i]!;
  return total;
}

/** The factor's map against the best one-hot configuration found by enumeration. */
function checkMap(
  factor: BinaryFactor,
  numStates: Int32Array,
  direct: (states: Int32Array) => number,
  random: Random,
): void {
  const adjustment = Float64Array.from({ length: factor.size }, () => random.float(-2, 2));
  let best = -Infinity;
  for (const states of allStates(numStates)) {
    const z = oneHot(states, numStates);
    const own = direct(states);
    expect(factor.score(z)).toBeCloseTo(own, 12);
    best = Math.max(best, own + dot(adjustment, z));
  }
  const out = new Float64Array(factor.size);
  const value = factor.map(adjustment, out);
  expect(value).toBeCloseTo(best, 10);
  if (best > -Infinity) {
    // The maximiser it writes attains the value it returns.
    expect(factor.score(out) + dot(adjustment, out)).toBeCloseTo(value, 10);
  }
}

function randomStates(random: Random, maxLength: number, maxStates: number): Int32Array {
  return Int32Array.from({ length: random.int(1, maxLength) }, () => random.int(1, maxStates));
}

describe("sequenceFactor", () => {
  const sequenceScore = (numStates: Int32Array, scores: Float64Array, budget?: number) => {
    const edges = sequenceScoreOffsets(numStates);
    return (states: Int32Array): number => {
      let total = 0;
      let previous = 0;
      let zeros = 0;
      states.forEach((k, i) => {
        total += scores[edges[i]! + previous * numStates[i]! + k]!;
        previous = k;
        if (k === 0) zeros++;
      });
      if (budget !== undefined && zeros > budget) return -Infinity;
      return total + scores[edges[numStates.length]! + previous]!;
    };
  };

  it("maps to the best chain by enumeration", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const numStates = randomStates(random, 5, 3);
        const scores = Float64Array.from(
          { length: sequenceScoreOffsets(numStates)[numStates.length + 1]! },
          () => random.float(-1, 1),
        );
        const factor = sequenceFactor(numStates, scores);
        checkMap(factor, numStates, sequenceScore(numStates, scores), random);
      }),
      { numRuns: 200 },
    );
  });

  it("with a budget, caps the positions in state 0 and reports an empty polytope", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const numStates = randomStates(random, 5, 3);
        const budget = random.int(0, numStates.length + 1);
        const scores = Float64Array.from(
          { length: sequenceScoreOffsets(numStates)[numStates.length + 1]! },
          () => random.float(-1, 1),
        );
        const factor = sequenceFactor(numStates, scores, budget);
        checkMap(factor, numStates, sequenceScore(numStates, scores, budget), random);
      }),
      { numRuns: 300 },
    );
  });

  it("scores a vector with no state or two states at a position −∞", () => {
    const factor = sequenceFactor(Int32Array.of(2, 2), new Float64Array(2 + 4 + 2));
    expect(factor.score([0, 0, 1, 0])).toBe(-Infinity);
    expect(factor.score([1, 1, 1, 0])).toBe(-Infinity);
    expect(factor.score([1, 0, 0, 1])).toBe(0);
  });

  it("rejects a score table of the wrong length", () => {
    expect(() => sequenceFactor(Int32Array.of(2), new Float64Array(3))).toThrow(/4 scores/);
  });
});

describe("generalTreeFactor", () => {
  it("maps to the best tree labelling by enumeration", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const numStates = randomStates(random, 6, 3);
        const n = numStates.length;
        // Parents in any order (not only earlier nodes), as the format allows.
        const perm = Array.from({ length: n - 1 }, (_, i) => i + 1).sort(() => random.next() - 0.5);
        const parents = new Int32Array(n);
        parents[0] = -1;
        perm.forEach((node, r) => {
          parents[node] = r === 0 ? 0 : random.pick([0, ...perm.slice(0, r)]);
        });
        const edges = treeScoreOffsets(parents, numStates);
        const scores = Float64Array.from({ length: edges[n]! }, () => random.float(-1, 1));
        const factor = generalTreeFactor(parents, numStates, scores);
        const direct = (states: Int32Array): number => {
          let total = 0;
          for (let i = 1; i < n; i++) {
            total += scores[edges[i]! + states[parents[i]!]! * numStates[i]! + states[i]!]!;
          }
          return total;
        };
        checkMap(factor, numStates, direct, random);
      }),
      { numRuns: 200 },
    );
  });

  it("accepts only trees rooted at node 0", () => {
    expect(treeOrder(Int32Array.of(-1, 0, 1))).toEqual(Int32Array.of(0, 1, 2));
    expect(treeOrder(Int32Array.of(-1, 2, 1))).toBeUndefined();
    expect(treeOrder(Int32Array.of(0, 0))).toBeUndefined();
    expect(treeOrder(Int32Array.of(-1, 3))).toBeUndefined();
  });
});

describe("countedTreeFactor", () => {
  it("maps to the best tree labelling and its count by enumeration", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const numStates = randomStates(random, 5, 3);
        const n = numStates.length;
        const parents = new Int32Array(n);
        parents[0] = -1;
        for (let i = 1; i < n; i++) parents[i] = random.int(0, i - 1);
        const edges = treeScoreOffsets(parents, numStates);
        const scores = Float64Array.from({ length: edges[n]! }, () => random.float(-1, 1));
        const factor = countedTreeFactor(parents, numStates, scores);
        let stateCount = 0;
        for (const k of numStates) stateCount += k;
        expect(factor.size).toBe(stateCount + n + 1);
        const adjustment = Float64Array.from({ length: factor.size }, () => random.float(-2, 2));
        let best = -Infinity;
        for (const states of allStates(numStates)) {
          const z = new Float64Array(factor.size);
          z.set(oneHot(states, numStates));
          z[stateCount + states.filter((k) => k === 0).length] = 1;
          let own = 0;
          for (let i = 1; i < n; i++) {
            own += scores[edges[i]! + states[parents[i]!]! * numStates[i]! + states[i]!]!;
          }
          expect(factor.score(z)).toBeCloseTo(own, 12);
          best = Math.max(best, own + dot(adjustment, z));
          // A wrong count is forbidden.
          z[stateCount + ((states.filter((k) => k === 0).length + 1) % (n + 1))] = 1;
          expect(factor.score(z)).toBe(-Infinity);
        }
        const out = new Float64Array(factor.size);
        const value = factor.map(adjustment, out);
        expect(value).toBeCloseTo(best, 10);
        expect(factor.score(out) + dot(adjustment, out)).toBeCloseTo(value, 10);
      }),
      { numRuns: 300 },
    );
  });
});
