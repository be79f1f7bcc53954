import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LinearConstraint } from "../constraints.js";
import { ProblemValidationError } from "../errors.js";
import { createRandom } from "../random.js";
import {
  type ConstraintMatrix,
  ConstraintMatrixCache,
  compileConstraints,
} from "./constraint-matrix.js";

/**
 * Random constraints with the structure of count constraints (the same labels at every position,
 * one coefficient per label) mixed with arbitrary ones, repeated indicators and signed zeros.
 */
function constraints(seed: number, n: number, L: number): LinearConstraint[] {
  const random = createRandom(seed);
  const out: LinearConstraint[] = [];
  const m = random.int(1, 8);
  for (let k = 0; k < m; k++) {
    const indices: number[] = [];
    const coefficients: number[] = [];
    const coefficient = () => random.pick([1, -1, 0.5, 2, -0, 0, 3.25]);
    if (random.bool(0.6)) {
      const labels = Array.from({ length: L }, (_, t) => t).filter(() => random.bool(0.4));
      const perLabel = labels.map(() => coefficient());
      const from = random.bool(0.3) ? 1 : 0;
      for (let i = from; i < n; i++) {
        labels.forEach((t, j) => {
          indices.push(i * L + t);
          coefficients.push(perLabel[j]!);
        });
      }
    } else {
      const terms = random.int(0, 2 * L);
      for (let e = 0; e < terms; e++) {
        indices.push(random.int(0, n * L - 1));
        coefficients.push(coefficient());
      }
    }
    if (random.bool(0.2) && indices.length > 0) {
      indices.push(indices[0]!);
      coefficients.push(coefficient());
    }
    out.push({
      indices: Int32Array.from(indices),
      coefficients: Float64Array.from(coefficients),
      rhs: random.int(0, 3),
      penalty: 1,
    });
  }
  return out;
}

describe("column classes of a compiled constraint matrix", () => {
  it("updating −Aᵀλ by classes gives the per-entry update to the bit", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed ^ 0x5eed);
        const n = random.int(1, 6);
        const L = random.int(1, 5);
        const A = compileConstraints(constraints(seed, n, L), n, L, "as-given", 1e-9);
        const size = n * L;
        const byEntry = new Float64Array(size);
        const byClass = new Float64Array(size);
        const classValues = new Float64Array(A.classCount);
        for (let step = 0; step < 4; step++) {
          const touched = new Set<number>();
          for (let k = 0; k < A.m; k++) {
            if (random.bool(0.4)) continue;
            const delta = random.pick([0.5, -0.25, 1e-3, 3, -1.75]);
            for (let e = A.rowStart[k]!; e < A.rowStart[k + 1]!; e++) {
              byEntry[A.index[e]!]! -= A.coefficient[e]! * delta;
            }
            for (let e = A.classRowStart[k]!; e < A.classRowStart[k + 1]!; e++) {
              classValues[A.classIndex[e]!]! -= A.classCoefficient[e]! * delta;
              touched.add(A.classIndex[e]!);
            }
          }
          for (const c of touched) {
            for (let e = A.classMemberStart[c]!; e < A.classMemberStart[c + 1]!; e++) {
              byClass[A.classMembers[e]!] = classValues[c]!;
            }
          }
          for (let g = 0; g < size; g++) expect(Object.is(byClass[g], byEntry[g])).toBe(true);
        }
        // Every column in some constraint has a class, and members share their entries.
        for (let g = 0; g < size; g++) {
          const inAny = A.colStart[g + 1]! > A.colStart[g]!;
          expect(A.columnClass[g]! >= 0).toBe(inAny);
        }
      }),
      { numRuns: 300, seed: 16 },
    );
  });

  it("a count constraint over n positions is one class per label", () => {
    const n = 20;
    const L = 5;
    const indices: number[] = [];
    for (let i = 0; i < n; i++) indices.push(i * L + 1, i * L + 3);
    const A = compileConstraints(
      [
        {
          indices: Int32Array.from(indices),
          coefficients: new Float64Array(indices.length).fill(1),
          rhs: 2,
          penalty: 0.5,
        },
      ],
      n,
      L,
      "as-given",
      1e-9,
    );
    // Labels 1 and 3 carry the same coefficient in the same row: one class for all 40 columns.
    expect(A.classCount).toBe(1);
    expect(A.classRowStart[1]! - A.classRowStart[0]!).toBe(1);
  });
});

describe("the compiled matrices' cache", () => {
  const arrays = (A: ConstraintMatrix) =>
    Object.fromEntries(
      Object.entries(A)
        .filter(([key]) => key !== "source")
        .map(([key, value]) => [
          key,
          ArrayBuffer.isView(value) ? Array.from(value as Float64Array) : value,
        ]),
    );

  it("the same terms with other penalties or mode: the compiled terms kept, the bounds a fresh compile's", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed ^ 0xcac4e);
        const n = random.int(1, 6);
        const L = random.int(1, 5);
        const first = constraints(seed, n, L);
        const cache = new ConstraintMatrixCache();
        const A = cache.get(first, n, L, "as-given", 1e-9);
        const penalty = () => random.pick([undefined, 0, 0.5, 2]);
        const again = first.map((c) => {
          const p = penalty();
          const { penalty: _, ...terms } = c;
          return p === undefined ? terms : { ...terms, penalty: p };
        });
        const mode = random.pick(["as-given", "hard"] as const);
        const B = cache.get(again, n, L, mode, 1e-9);
        expect(B.colRow).toBe(A.colRow);
        expect(B.classMembers).toBe(A.classMembers);
        expect(arrays(B)).toEqual(arrays(compileConstraints(again, n, L, mode, 1e-9)));
        // Nothing changed: the very matrix.
        expect(cache.get(again.slice(), n, L, mode, 1e-9)).toBe(B);
      }),
      { numRuns: 200, seed: 41 },
    );
  });

  it("terms in other arrays, another rhs or another size: compiled anew", () => {
    const n = 3;
    const L = 2;
    const first = constraints(7, n, L);
    const cache = new ConstraintMatrixCache();
    const A = cache.get(first, n, L, "as-given", 1e-9);
    const copied = first.map((c) => ({ ...c, indices: c.indices.slice() }));
    expect(cache.get(copied, n, L, "as-given", 1e-9).colRow).not.toBe(A.colRow);
    const moved = first.map((c, k) => (k === 0 ? { ...c, rhs: c.rhs + 1 } : c));
    const B = cache.get(moved, n, L, "as-given", 1e-9);
    expect(B.colRow).not.toBe(A.colRow);
    expect(B.rhs[0]).toBe(first[0]!.rhs + 1);
    expect(cache.get(first, n + 1, L, "as-given", 1e-9).n).toBe(n + 1);
  });

  it("a bad penalty with cached terms is the same clear error as on a first compile", () => {
    const n = 3;
    const L = 2;
    const first = constraints(3, n, L);
    const cache = new ConstraintMatrixCache();
    cache.get(first, n, L, "as-given", 1e-9);
    const bad = first.map((c, k) => (k === first.length - 1 ? { ...c, penalty: -1 } : c));
    const expected = `problem.constraints[${first.length - 1}].penalty`;
    expect(() => cache.get(bad, n, L, "as-given", 1e-9)).toThrow(ProblemValidationError);
    expect(() => cache.get(bad, n, L, "as-given", 1e-9)).toThrow(expected);
    expect(() => compileConstraints(bad, n, L, "as-given", 1e-9)).toThrow(expected);
  });
});
