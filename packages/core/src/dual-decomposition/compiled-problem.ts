import { ProblemValidationError } from "../errors.js";
import type { Slave } from "../solver.js";
import type { SlaveBinding } from "./bindings.js";
import type { ConstraintMatrix } from "./constraint-matrix.js";

/**
 * One solve's problem as both master steps iterate over it: the slaves with their positions
 * spelled out (slave s's local position j is the global position positions[s][j], so its
 * indicator j·L + t is the global one positions[s][j]·L + t), how many slaves cover each
 * position, and the constraint rows.
 */
export interface CompiledProblem {
  readonly n: number;
  readonly L: number;
  readonly slaves: readonly Slave[];
  readonly positions: readonly Int32Array[];
  /** Slaves covering each position. */
  readonly cover: Int32Array;
  /** One slave labelling positions 0..n−1 in order: no agreement multipliers, no averaging. */
  readonly single: boolean;
  /** The slaves' positions laid end to end: slave s's start at localOffset[s] (S + 1 entries). */
  readonly localOffset: Int32Array;
  /** The constraint rows; null when there are none. */
  readonly A: ConstraintMatrix | null;
  /** Slack allowed when checking a constraint (coefficients need not be integers). */
  readonly eps: number;
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

/**
 * Checks that the bindings fit (n, L) and cover every position at least once, then compiles the
 * constraint rows (`rows`: after the slaves, whose errors come first); `identity` (0..n−1)
 * stands for the positions of a slave given none.
 */
export function compileProblem(
  n: number,
  L: number,
  bindings: readonly SlaveBinding[],
  identity: Int32Array,
  rows: () => ConstraintMatrix | null,
  eps: number,
): CompiledProblem {
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
  const localOffset = new Int32Array(slaves.length + 1);
  slaves.forEach((slave, s) => {
    localOffset[s + 1] = localOffset[s]! + slave.n;
  });
  const cover = countCover(n, positions);
  return { n, L, slaves, positions, cover, single, localOffset, A: rows(), eps };
}

/** Slave s's indicators as global ones: local j·L + t is positions[s][j]·L + t. */
export function slaveIndicators(problem: CompiledProblem, s: number): Int32Array {
  const { L } = problem;
  const map = problem.positions[s]!;
  const variables = new Int32Array(map.length * L);
  for (let j = 0; j < map.length; j++) {
    for (let t = 0; t < L; t++) variables[j * L + t] = map[j]! * L + t;
  }
  return variables;
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
