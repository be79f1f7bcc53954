import { type LinearConstraint, validateConstraint } from "../constraints.js";

/** How the master reads penalties: `as-given` (soft where a penalty is set) or every one `hard`. */
export type ConstraintMode = "as-given" | "hard";

/**
 * The constraint matrix A twice: by rows (CSR) for the λ step, which touches only the terms of
 * the constraints whose λ moved, and by columns (CSC) for activities A·y, which then cost only the
 * terms on the n indicators a labelling switches on instead of every term of every constraint.
 */
export interface ConstraintMatrix {
  /** The constraint objects compiled, in order (a snapshot of the array). */
  readonly source: readonly LinearConstraint[];
  readonly n: number;
  readonly L: number;
  readonly mode: ConstraintMode;
  /** The slack `impossible` was decided with. */
  readonly feasibilityTolerance: number;
  readonly m: number;
  readonly rowStart: Int32Array;
  readonly index: Int32Array;
  readonly coefficient: Float64Array;
  readonly colStart: Int32Array;
  readonly colRow: Int32Array;
  readonly colCoefficient: Float64Array;
  readonly rhs: Float64Array;
  /** λ's upper bound: the penalty c, or +∞ for a hard constraint. */
  readonly upper: Float64Array;
  readonly hard: Uint8Array;
  /** A hard constraint that no one-hot labelling meets on its own, or −1. */
  readonly impossible: number;
}

/** Validates and compiles `constraints` for a problem of n positions and L labels. */
export function compileConstraints(
  constraints: readonly LinearConstraint[],
  n: number,
  L: number,
  mode: ConstraintMode,
  feasibilityTolerance: number,
  path = "problem.constraints",
): ConstraintMatrix {
  const m = constraints.length;
  const size = n * L;
  let nnz = 0;
  for (let k = 0; k < m; k++) {
    const c = constraints[k]!;
    validateConstraint(c, n, L, `${path}[${k}]`);
    nnz += c.indices.length;
  }
  const rowStart = new Int32Array(m + 1);
  const index = new Int32Array(nnz);
  const coefficient = new Float64Array(nnz);
  const colStart = new Int32Array(size + 1);
  const rhs = new Float64Array(m);
  const upper = new Float64Array(m);
  const hard = new Uint8Array(m);
  let q = 0;
  for (let k = 0; k < m; k++) {
    const c = constraints[k]!;
    rowStart[k] = q;
    for (let e = 0; e < c.indices.length; e++, q++) {
      const g = c.indices[e]!;
      index[q] = g;
      coefficient[q] = c.coefficients[e]!;
      colStart[g + 1]!++;
    }
    rhs[k] = c.rhs;
    const isHard = mode === "hard" || c.penalty === undefined;
    hard[k] = isHard ? 1 : 0;
    upper[k] = isHard ? Number.POSITIVE_INFINITY : c.penalty!;
  }
  rowStart[m] = q;
  for (let g = 0; g < size; g++) colStart[g + 1]! += colStart[g]!;
  const colRow = new Int32Array(nnz);
  const colCoefficient = new Float64Array(nnz);
  const fill = colStart.slice(0, size);
  for (let k = 0; k < m; k++) {
    for (let e = rowStart[k]!; e < rowStart[k + 1]!; e++) {
      const at = fill[index[e]!]!++;
      colRow[at] = k;
      colCoefficient[at] = coefficient[e]!;
    }
  }
  const matrix = {
    source: constraints.slice(),
    n,
    L,
    mode,
    feasibilityTolerance,
    m,
    rowStart,
    index,
    coefficient,
    colStart,
    colRow,
    colCoefficient,
    rhs,
    upper,
    hard,
    impossible: -1,
  };
  matrix.impossible = firstImpossible(matrix, feasibilityTolerance);
  return matrix;
}

/**
 * A hard constraint that no labelling can meet: its least activity over one-hot y (per position,
 * the smallest summed coefficient among the labels, 0 for a label it does not mention) exceeds b.
 */
function firstImpossible(a: Omit<ConstraintMatrix, "impossible">, tolerance: number): number {
  const { L, m, rowStart, index, coefficient, rhs, hard } = a;
  const perLabel = new Float64Array(a.n * L);
  const touched = new Uint8Array(a.n);
  for (let k = 0; k < m; k++) {
    if (hard[k] === 0) continue;
    for (let e = rowStart[k]!; e < rowStart[k + 1]!; e++) {
      perLabel[index[e]!]! += coefficient[e]!;
      touched[(index[e]! / L) | 0] = 1;
    }
    let least = 0;
    for (let e = rowStart[k]!; e < rowStart[k + 1]!; e++) {
      const i = (index[e]! / L) | 0;
      if (touched[i] === 0) continue;
      touched[i] = 0;
      let smallest = Number.POSITIVE_INFINITY;
      for (let t = 0; t < L; t++) smallest = Math.min(smallest, perLabel[i * L + t]!);
      least += smallest;
    }
    for (let e = rowStart[k]!; e < rowStart[k + 1]!; e++) perLabel[index[e]!] = 0;
    if (least > rhs[k]! + tolerance) return k;
  }
  return -1;
}

/**
 * Compiled matrices by constraint array. Compiling costs O(nnz), more than one Viterbi pass for a
 * few hundred count constraints, and a decoder that reuses one array per sentence length pays it
 * once per length. A hit is checked constraint by constraint (m pointer comparisons), so an array
 * a caller refills between solves is recompiled rather than silently reused.
 */
export class ConstraintMatrixCache {
  readonly #byArray = new WeakMap<readonly LinearConstraint[], ConstraintMatrix>();

  get(
    constraints: readonly LinearConstraint[],
    n: number,
    L: number,
    mode: ConstraintMode,
    feasibilityTolerance: number,
  ): ConstraintMatrix {
    const hit = this.#byArray.get(constraints);
    if (
      hit !== undefined &&
      hit.n === n &&
      hit.L === L &&
      hit.mode === mode &&
      hit.feasibilityTolerance === feasibilityTolerance &&
      sameConstraints(hit.source, constraints)
    ) {
      return hit;
    }
    const fresh = compileConstraints(constraints, n, L, mode, feasibilityTolerance);
    this.#byArray.set(constraints, fresh);
    return fresh;
  }
}

function sameConstraints(a: readonly LinearConstraint[], b: readonly LinearConstraint[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** activity[k] = a_k·y for a labelling y (global positions), by columns. */
export function labellingActivities(
  a: ConstraintMatrix,
  labels: ArrayLike<number>,
  activity: Float64Array,
): void {
  activity.fill(0, 0, a.m);
  const { L, colStart, colRow, colCoefficient } = a;
  for (let i = 0; i < labels.length; i++) {
    const g = i * L + labels[i]!;
    for (let e = colStart[g]!; e < colStart[g + 1]!; e++)
      activity[colRow[e]!]! += colCoefficient[e]!;
  }
}

/** How many constraints `labels` violates (beyond `tolerance`), and how many of them are hard. */
export function countViolations(
  a: ConstraintMatrix,
  labels: ArrayLike<number>,
  activity: Float64Array,
  tolerance: number,
): { violated: number; hardViolated: number } {
  labellingActivities(a, labels, activity);
  let violated = 0;
  let hardViolated = 0;
  for (let k = 0; k < a.m; k++) {
    if (activity[k]! - a.rhs[k]! > tolerance) {
      violated++;
      if (a.hard[k] === 1) hardViolated++;
    }
  }
  return { violated, hardViolated };
}
