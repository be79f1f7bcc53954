import { type LinearConstraint, validateConstraint, validatePenalty } from "../constraints.js";

/** How the master reads penalties: `as-given` (soft where a penalty is set) or every one `hard`. */
export type ConstraintMode = "as-given" | "hard";

/**
 * The constraint matrix A twice: by rows (CSR) for the λ step, which touches only the terms of
 * the constraints whose λ moved, and by columns (CSC) for activities A·y, which then cost only the
 * terms on the n indicators a labelling switches on instead of every term of every constraint.
 */
export interface ConstraintMatrix {
  /** The constraints the matrix stands for, in order (a snapshot of the array given last). */
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
  /**
   * Columns (indicators) with the same entries — the same constraints, the same coefficients, in
   * the same order — form a class: the λ step updates one value per class and copies it to the
   * members. Their −Aᵀλ entries undergo the very same floating-point operations, so they stay
   * equal to the bit, and the result is the per-entry update's. Count constraints repeat the same
   * labels at every position: at 131 labels a class stands for ~n columns. −1: in no constraint.
   */
  readonly columnClass: Int32Array;
  readonly classCount: number;
  /** Class c's columns are classMembers[classMemberStart[c] … classMemberStart[c+1]). */
  readonly classMemberStart: Int32Array;
  readonly classMembers: Int32Array;
  /** Row k by classes: each class it touches once, with the members' shared coefficient. */
  readonly classRowStart: Int32Array;
  readonly classIndex: Int32Array;
  readonly classCoefficient: Float64Array;
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
  }
  rowStart[m] = q;
  fillBounds(constraints, mode, upper, hard);
  for (let g = 0; g < size; g++) colStart[g + 1]! += colStart[g]!;
  const colRow = new Int32Array(nnz);
  const colCoefficient = new Float64Array(nnz);
  const fill = colStart.slice(0, size);
  for (let k = 0; k < m; k++) {
    for (let e = rowStart[k]!, end = rowStart[k + 1]!; e < end; e++) {
      const at = fill[index[e]!]!++;
      colRow[at] = k;
      colCoefficient[at] = coefficient[e]!;
    }
  }
  const classes = columnClasses(size, L, m, colStart, colRow, colCoefficient);
  const matrix = {
    ...classes,
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

/** λ's bounds: [0, c] for a constraint with a penalty c (as given), [0, ∞) for a hard one. */
function fillBounds(
  constraints: readonly LinearConstraint[],
  mode: ConstraintMode,
  upper: Float64Array,
  hard: Uint8Array,
): void {
  for (let k = 0; k < constraints.length; k++) {
    const penalty = constraints[k]!.penalty;
    const isHard = mode === "hard" || penalty === undefined;
    hard[k] = isHard ? 1 : 0;
    upper[k] = isHard ? Number.POSITIVE_INFINITY : penalty;
  }
}

/**
 * A compiled matrix for constraints with its terms and right-hand sides but other penalties (or
 * another mode): the terms' arrays shared, the bounds and `impossible` new.
 */
function withBounds(
  a: ConstraintMatrix,
  constraints: readonly LinearConstraint[],
  mode: ConstraintMode,
): ConstraintMatrix {
  // The path compileConstraints names by default: the master's problem.
  for (let k = 0; k < constraints.length; k++) {
    validatePenalty(constraints[k]!.penalty, `problem.constraints[${k}]`);
  }
  const upper = new Float64Array(a.m);
  const hard = new Uint8Array(a.m);
  fillBounds(constraints, mode, upper, hard);
  const matrix = { ...a, source: constraints.slice(), mode, upper, hard, impossible: -1 };
  matrix.impossible = firstImpossible(matrix, a.feasibilityTolerance);
  return matrix;
}

/** The column classes of a compiled matrix (see {@link ConstraintMatrix.columnClass}). */
function columnClasses(
  size: number,
  L: number,
  m: number,
  colStart: Int32Array,
  colRow: Int32Array,
  colCoefficient: Float64Array,
): Pick<
  ConstraintMatrix,
  | "columnClass"
  | "classCount"
  | "classMemberStart"
  | "classMembers"
  | "classRowStart"
  | "classIndex"
  | "classCoefficient"
> {
  const columnClass = new Int32Array(size).fill(-1);
  const representative: number[] = [];
  const byHash = new Map<number, number[]>();
  const bits = new Float64Array(1);
  const words = new Int32Array(bits.buffer);
  const same = (g: number, h: number): boolean => {
    const from = colStart[g]!;
    const other = colStart[h]!;
    const length = colStart[g + 1]! - from;
    if (colStart[h + 1]! - other !== length) return false;
    for (let e = 0; e < length; e++) {
      if (colRow[from + e] !== colRow[other + e]) return false;
      const a = colCoefficient[from + e]!;
      const b = colCoefficient[other + e]!;
      // −0 and +0 coefficients subtract differently from a zero entry: equal means the same bits.
      if (a !== b || (a === 0 && 1 / a !== 1 / b)) return false;
    }
    return true;
  };
  for (let g = 0; g < size; g++) {
    if (colStart[g + 1] === colStart[g]) continue;
    // Most often the same label one position back has the same entries: no hashing then.
    const above = g >= L ? columnClass[g - L]! : -1;
    if (above >= 0 && same(g, representative[above]!)) {
      columnClass[g] = above;
      continue;
    }
    let hash = 0;
    for (let e = colStart[g]!, end = colStart[g + 1]!; e < end; e++) {
      bits[0] = colCoefficient[e]!;
      hash = (Math.imul(hash, 31) + colRow[e]!) | 0;
      hash = (Math.imul(hash, 31) + (words[0]! ^ words[1]!)) | 0;
    }
    let bucket = byHash.get(hash);
    if (bucket === undefined) {
      bucket = [];
      byHash.set(hash, bucket);
    }
    let c = -1;
    for (const candidate of bucket) {
      if (same(g, representative[candidate]!)) {
        c = candidate;
        break;
      }
    }
    if (c < 0) {
      c = representative.length;
      representative.push(g);
      bucket.push(c);
    }
    columnClass[g] = c;
  }
  const classCount = representative.length;
  const classMemberStart = new Int32Array(classCount + 1);
  for (let g = 0; g < size; g++) if (columnClass[g]! >= 0) classMemberStart[columnClass[g]! + 1]!++;
  for (let c = 0; c < classCount; c++) classMemberStart[c + 1]! += classMemberStart[c]!;
  const classMembers = new Int32Array(classMemberStart[classCount]!);
  const fill = classMemberStart.slice(0, classCount);
  for (let g = 0; g < size; g++)
    if (columnClass[g]! >= 0) classMembers[fill[columnClass[g]!]!++] = g;
  // Row k by classes, from each class's first member: its entries for row k (several when a
  // constraint lists an indicator twice), in the order the per-entry update applies them.
  const classRowStart = new Int32Array(m + 1);
  for (let c = 0; c < classCount; c++) {
    const g = representative[c]!;
    for (let q = colStart[g]!, end = colStart[g + 1]!; q < end; q++)
      classRowStart[colRow[q]! + 1]!++;
  }
  for (let k = 0; k < m; k++) classRowStart[k + 1]! += classRowStart[k]!;
  const classIndex = new Int32Array(classRowStart[m]!);
  const classCoefficient = new Float64Array(classRowStart[m]!);
  const next = classRowStart.slice(0, m);
  for (let c = 0; c < classCount; c++) {
    const g = representative[c]!;
    for (let q = colStart[g]!, end = colStart[g + 1]!; q < end; q++) {
      const at = next[colRow[q]!]!++;
      classIndex[at] = c;
      classCoefficient[at] = colCoefficient[q]!;
    }
  }
  return {
    columnClass,
    classCount,
    classMemberStart,
    classMembers,
    classRowStart,
    classIndex,
    classCoefficient,
  };
}

/**
 * A hard constraint that no labelling can meet: its least activity over one-hot y (per position,
 * the smallest summed coefficient among the labels, 0 for a label it does not mention) exceeds b.
 */
function firstImpossible(a: Omit<ConstraintMatrix, "impossible">, tolerance: number): number {
  const { L, m, rowStart, index, coefficient, rhs, hard } = a;
  if (hard.indexOf(1) < 0) return -1;
  const perLabel = new Float64Array(a.n * L);
  const touched = new Uint8Array(a.n);
  for (let k = 0; k < m; k++) {
    if (hard[k] === 0) continue;
    for (let e = rowStart[k]!, end = rowStart[k + 1]!; e < end; e++) {
      perLabel[index[e]!]! += coefficient[e]!;
      touched[(index[e]! / L) | 0] = 1;
    }
    let least = 0;
    for (let e = rowStart[k]!, end = rowStart[k + 1]!; e < end; e++) {
      const i = (index[e]! / L) | 0;
      if (touched[i] === 0) continue;
      touched[i] = 0;
      let smallest = Number.POSITIVE_INFINITY;
      for (let t = 0; t < L; t++) smallest = Math.min(smallest, perLabel[i * L + t]!);
      least += smallest;
    }
    for (let e = rowStart[k]!, end = rowStart[k + 1]!; e < end; e++) perLabel[index[e]!] = 0;
    if (least > rhs[k]! + tolerance) return k;
  }
  return -1;
}

/**
 * Compiled matrices by terms. Compiling costs O(nnz), more than one Viterbi pass for a few hundred
 * count constraints: a decoder that reuses one array per sentence length pays it once per length,
 * and penalty learning, which hands the master the same terms with new penalties after each update,
 * pays only for the new bounds (O(m), and the hard rows' feasibility check). A hit needs every
 * constraint's index and coefficient arrays to be the very arrays compiled and the same
 * right-hand side (three comparisons a constraint). The arrays' contents are not compared: a
 * constraint's terms are read-only once it is built (see {@link LinearConstraint}), and a caller
 * that rewrote them in place would get the matrix of the old terms.
 */
export class ConstraintMatrixCache {
  /** By the first constraint's index array (one entry per sentence length in a decoded corpus). */
  readonly #byTerms = new WeakMap<Int32Array, ConstraintMatrix>();

  get(
    constraints: readonly LinearConstraint[],
    n: number,
    L: number,
    mode: ConstraintMode,
    feasibilityTolerance: number,
  ): ConstraintMatrix {
    const key = constraints[0]?.indices;
    if (key === undefined) return compileConstraints(constraints, n, L, mode, feasibilityTolerance);
    const hit = this.#byTerms.get(key);
    let matrix: ConstraintMatrix;
    if (
      hit !== undefined &&
      hit.n === n &&
      hit.L === L &&
      hit.feasibilityTolerance === feasibilityTolerance &&
      sameTerms(hit.source, constraints)
    ) {
      if (hit.mode === mode && samePenalties(hit.source, constraints)) return hit;
      matrix = withBounds(hit, constraints, mode);
    } else {
      matrix = compileConstraints(constraints, n, L, mode, feasibilityTolerance);
    }
    this.#byTerms.set(key, matrix);
    return matrix;
  }
}

function sameTerms(a: readonly LinearConstraint[], b: readonly LinearConstraint[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    if (x === y) continue;
    if (x.indices !== y.indices || x.coefficients !== y.coefficients || x.rhs !== y.rhs)
      return false;
  }
  return true;
}

function samePenalties(a: readonly LinearConstraint[], b: readonly LinearConstraint[]): boolean {
  for (let k = 0; k < a.length; k++) if (a[k]!.penalty !== b[k]!.penalty) return false;
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
    for (let e = colStart[g]!, end = colStart[g + 1]!; e < end; e++)
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
