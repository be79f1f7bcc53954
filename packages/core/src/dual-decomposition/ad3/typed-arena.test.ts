import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { carve, carveAll } from "./typed-arena.js";

describe("carve", () => {
  it("gives zeroed arrays of the lengths asked for, none overlapping another", () => {
    const types = [Float64Array, Int32Array, Uint8Array] as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 12 }),
        (t, lengths) => {
          const arrays = carve(types[t]!, lengths);
          expect(arrays.map((a) => a.length)).toEqual(lengths);
          for (const a of arrays) {
            expect(a).toBeInstanceOf(types[t]);
            expect(a.every((x) => x === 0)).toBe(true);
          }
          // Each array filled with its own mark keeps it: no view reaches into another.
          for (const [k, a] of arrays.entries()) a.fill(k + 1);
          for (const [k, a] of arrays.entries()) expect(a.every((x) => x === k + 1)).toBe(true);
        },
      ),
    );
  });

  it("puts the arrays V8 would keep off its heap on one buffer, and leaves small ones alone", () => {
    const [a, b, small] = carve(Float64Array, [100, 9, 8]);
    expect(a!.buffer).toBe(b!.buffer);
    expect(small!.buffer).not.toBe(a!.buffer);
    expect(b!.byteOffset % 8).toBe(0);
  });

  it("carves all three types from one buffer, each array zeroed, aligned and apart", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 6 }),
        (f, i, u) => {
          const [doubles, integers, bytes] = carveAll(f, i, u);
          const all = [...doubles, ...integers, ...bytes];
          expect(all.map((a) => a.length)).toEqual([...f, ...i, ...u]);
          const offHeap = all.filter((a) => a.byteLength > 64);
          for (const a of offHeap) expect(a.buffer).toBe(offHeap[0]!.buffer);
          for (const a of doubles) expect(a.byteOffset % 8).toBe(0);
          for (const a of integers) expect(a.byteOffset % 4).toBe(0);
          for (const a of all) expect(a.every((x) => x === 0)).toBe(true);
          for (const [k, a] of all.entries()) a.fill((k % 100) + 1);
          for (const [k, a] of all.entries())
            expect(a.every((x) => x === (k % 100) + 1)).toBe(true);
        },
      ),
    );
  });

  it("carves again from a spare buffer large enough, zeroed; a smaller one is left alone", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 6 }),
        (f, u) => {
          const first = carveAll(f, [], u);
          const buffer = first[3];
          for (const a of [...first[0], ...first[2]]) a.fill(7);
          const again = carveAll(f, [], u, buffer);
          expect(again[3]).toBe(buffer);
          for (const a of [...again[0], ...again[2]]) expect(a.every((x) => x === 0)).toBe(true);
          if (buffer !== null) {
            const larger = carveAll([...f, 100], [], u, buffer);
            expect(larger[3]).not.toBe(buffer);
            expect(larger[3]!.byteLength).toBeGreaterThan(buffer.byteLength);
          }
        },
      ),
    );
  });
});
