import { ProblemValidationError } from "../errors.js";
import type { Slave } from "../solver.js";

/** A slave and the global positions it labels: its local position j is global `positions[j]`. */
export interface SlaveBinding {
  readonly slave: Slave;
  /** Distinct global positions, one per local position; absent = identity (the slave covers 0..n−1). */
  readonly positions?: Int32Array;
}

/** Validated bindings: every slave's positions spelled out, and how many slaves cover each position. */
export interface Coverage {
  readonly slaves: readonly Slave[];
  readonly positions: readonly Int32Array[];
  readonly cover: Int32Array;
  /** One slave labelling positions 0..n−1 in order: no agreement multipliers, no averaging. */
  readonly single: boolean;
}

export function checkProblemSize(n: number, L: number): void {
  if (!Number.isInteger(n) || n < 1) {
    throw new ProblemValidationError(
      "problem.n",
      `expected an integer ≥ 1 (an empty sequence has nothing to label), got ${n}`,
    );
  }
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError("problem.L", `expected an integer ≥ 1, got ${L}`);
  }
}

/** Checks that the bindings fit (n, L) and cover every position at least once. */
export function coverage(
  n: number,
  L: number,
  bindings: readonly SlaveBinding[],
  identity: Int32Array,
): Coverage {
  if (bindings.length === 0) {
    throw new ProblemValidationError("problem.slaves", "expected at least one slave");
  }
  const seenBy = new Int32Array(n).fill(-1);
  const positions: Int32Array[] = [];
  const slaves: Slave[] = [];
  let single = bindings.length === 1;
  bindings.forEach((binding, s) => {
    const { slave } = binding;
    const at = `problem.slaves[${s}]`;
    if (slave.L !== L) {
      throw new ProblemValidationError(
        `${at}.slave.L`,
        `slave "${slave.name}" has L = ${slave.L}, the problem has L = ${L}`,
      );
    }
    let map = binding.positions;
    if (map === undefined) {
      if (slave.n !== n) {
        throw new ProblemValidationError(
          `${at}.positions`,
          `slave "${slave.name}" labels ${slave.n} positions, the problem has ${n}: give its positions`,
        );
      }
      map = identity;
    } else if (map.length !== slave.n) {
      throw new ProblemValidationError(
        `${at}.positions`,
        `expected ${slave.n} positions (slave "${slave.name}" has n = ${slave.n}), got ${map.length}`,
      );
    }
    for (let j = 0; j < map.length; j++) {
      const i = map[j]!;
      if (!(i >= 0 && i < n)) {
        throw new ProblemValidationError(
          `${at}.positions[${j}]`,
          `expected a position in 0..${n - 1}, got ${i}`,
        );
      }
      if (seenBy[i] === s) {
        throw new ProblemValidationError(
          `${at}.positions[${j}]`,
          `position ${i} appears twice in one slave`,
        );
      }
      seenBy[i] = s;
      if (i !== j) single = false;
    }
    positions.push(map);
    slaves.push(slave);
  });
  return { slaves, positions, cover: countCover(n, positions), single };
}

function countCover(n: number, positions: readonly Int32Array[]): Int32Array {
  const cover = new Int32Array(n);
  for (const map of positions) for (let j = 0; j < map.length; j++) cover[map[j]!]!++;
  for (let i = 0; i < n; i++) {
    if (cover[i] === 0) {
      throw new ProblemValidationError(
        "problem.slaves",
        `position ${i} is covered by no slave; every position needs at least one`,
      );
    }
  }
  return cover;
}
