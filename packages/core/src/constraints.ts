import { ProblemValidationError } from "./errors.js";

/**
 * A linear constraint `Σ_k coefficients[k] · y[indices[k]] ≤ rhs` over the unary indicator vector
 * y ∈ {0,1}^(n·L), where y[i*L + t] = 1 iff token i takes label t.
 *
 * `penalty` absent: a hard constraint (a labelling that violates it is infeasible).
 * `penalty` = c ≥ 0: a soft constraint; a labelling pays c · max(0, a·y − rhs).
 * Equalities are two constraints (see `equalityConstraints`). Count constraints ("B-author at most
 * once") put coefficient 1 on one label at every position; per-position rules use other terms.
 * The index and coefficient arrays are read-only once built: instantiators share them between
 * sentences of one length and decoders cache what they compiled from them by the arrays.
 */
export interface LinearConstraint {
  readonly indices: Int32Array;
  readonly coefficients: Float64Array;
  readonly rhs: number;
  readonly penalty?: number;
  /** Human-readable, e.g. "at most one author segment". */
  readonly name?: string;
}

export interface ConstraintSpec {
  readonly terms: ReadonlyArray<readonly [index: number, coefficient: number]>;
  readonly rhs: number;
  readonly penalty?: number;
  readonly name?: string;
}

/** Builds a constraint from (index, coefficient) terms; repeated indices are summed. */
export function linearConstraint(spec: ConstraintSpec): LinearConstraint {
  const merged = new Map<number, number>();
  for (const [index, coefficient] of spec.terms) {
    merged.set(index, (merged.get(index) ?? 0) + coefficient);
  }
  const entries = [...merged].filter(([, c]) => c !== 0).sort((a, b) => a[0] - b[0]);
  const c: {
    indices: Int32Array;
    coefficients: Float64Array;
    rhs: number;
    penalty?: number;
    name?: string;
  } = {
    indices: Int32Array.from(entries, (e) => e[0]),
    coefficients: Float64Array.from(entries, (e) => e[1]),
    rhs: spec.rhs,
  };
  if (spec.penalty !== undefined) c.penalty = spec.penalty;
  if (spec.name !== undefined) c.name = spec.name;
  return c;
}

/** `a·y = b` as the pair `a·y ≤ b` and `−a·y ≤ −b` (each with the given penalty). */
export function equalityConstraints(spec: ConstraintSpec): [LinearConstraint, LinearConstraint] {
  const name = spec.name;
  const upper = linearConstraint({
    ...spec,
    ...(name === undefined ? {} : { name: `${name} (≤)` }),
  });
  const lower = linearConstraint({
    ...spec,
    terms: spec.terms.map(([i, c]) => [i, -c] as const),
    rhs: -spec.rhs,
    ...(name === undefined ? {} : { name: `${name} (≥)` }),
  });
  return [upper, lower];
}

export function isHard(constraint: LinearConstraint): boolean {
  return constraint.penalty === undefined;
}

/** Throws when an index falls outside 0..n·L−1, arrays differ in length, or numbers are not finite. */
export function validateConstraint(
  constraint: LinearConstraint,
  n: number,
  L: number,
  path = "constraint",
): void {
  const { indices, coefficients, rhs, penalty } = constraint;
  if (indices.length !== coefficients.length) {
    throw new ProblemValidationError(
      path,
      `indices (${indices.length}) and coefficients (${coefficients.length}) differ in length`,
    );
  }
  const size = n * L;
  for (let k = 0; k < indices.length; k++) {
    const index = indices[k]!;
    if (!Number.isInteger(index) || index < 0 || index >= size) {
      throw new ProblemValidationError(
        `${path}.indices[${k}]`,
        `expected an indicator index in 0..${size - 1}, got ${index}`,
      );
    }
    if (!Number.isFinite(coefficients[k]!)) {
      throw new ProblemValidationError(
        `${path}.coefficients[${k}]`,
        `expected a finite number, got ${coefficients[k]}`,
      );
    }
  }
  if (!Number.isFinite(rhs))
    throw new ProblemValidationError(`${path}.rhs`, `expected a finite number, got ${rhs}`);
  validatePenalty(penalty, path);
}

/** A constraint's penalty: absent (hard) or a finite number ≥ 0. */
export function validatePenalty(penalty: number | undefined, path = "constraint"): void {
  if (penalty !== undefined && !(penalty >= 0 && Number.isFinite(penalty))) {
    throw new ProblemValidationError(
      `${path}.penalty`,
      `expected a finite number ≥ 0, got ${penalty}`,
    );
  }
}

/** a·y for a labelling (y is the indicator vector of `labels`). */
export function constraintActivity(
  constraint: LinearConstraint,
  labels: ArrayLike<number>,
  L: number,
): number {
  const { indices, coefficients } = constraint;
  let sum = 0;
  for (let k = 0; k < indices.length; k++) {
    const index = indices[k]!;
    const i = (index / L) | 0;
    if (labels[i] === index - i * L) sum += coefficients[k]!;
  }
  return sum;
}

/** max(0, a·y − rhs): how far a labelling is over the bound. */
export function constraintViolation(
  constraint: LinearConstraint,
  labels: ArrayLike<number>,
  L: number,
): number {
  return Math.max(0, constraintActivity(constraint, labels, L) - constraint.rhs);
}

/**
 * The penalty a labelling pays: Σ over soft constraints of c·violation; +∞ when a hard constraint
 * is violated (beyond `tolerance`, for coefficients that are not integers).
 */
export function constraintPenalty(
  constraints: readonly LinearConstraint[],
  labels: ArrayLike<number>,
  L: number,
  tolerance = 1e-9,
): number {
  let total = 0;
  for (const c of constraints) {
    const v = constraintViolation(c, labels, L);
    if (v <= tolerance) continue;
    if (c.penalty === undefined) return Number.POSITIVE_INFINITY;
    total += c.penalty * v;
  }
  return total;
}
