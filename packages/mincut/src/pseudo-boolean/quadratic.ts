import { ProblemValidationError } from "@lagrange/core";

/** The parts of a quadratic pseudo-Boolean function, in flat typed arrays. */
export interface QuadraticParts {
  readonly numVariables: number;
  readonly constant: number;
  /** `linear[i]` is the coefficient of x_i; length numVariables. */
  readonly linear: Float64Array;
  /** Pair p is `pairCoefficient[p]·x_{pairFirst[p]}·x_{pairSecond[p]}`, first ≠ second. */
  readonly pairFirst: Int32Array;
  readonly pairSecond: Int32Array;
  readonly pairCoefficient: Float64Array;
}

/**
 * `Q(x) = constant + Σ_i linear[i]·x_i + Σ_p pairCoefficient[p]·x_{pairFirst[p]}·x_{pairSecond[p]}`
 * over x ∈ {0, 1}^numVariables, an energy to minimise. It is submodular, hence minimised exactly
 * by one minimum s-t cut, when every pair coefficient is ≤ 0 (`reduceToQuadratic` guarantees it).
 * The arrays are the caller's to read; changing `linear` (a Lagrange multiplier step) keeps the
 * function valid.
 */
export class QuadraticPseudoBoolean implements QuadraticParts {
  readonly numVariables: number;
  readonly constant: number;
  readonly linear: Float64Array;
  readonly pairFirst: Int32Array;
  readonly pairSecond: Int32Array;
  readonly pairCoefficient: Float64Array;

  constructor(parts: QuadraticParts) {
    const { numVariables: n, linear, pairFirst, pairSecond, pairCoefficient } = parts;
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new ProblemValidationError("numVariables", `must be a non-negative integer, got ${n}`);
    }
    if (!Number.isFinite(parts.constant)) {
      throw new ProblemValidationError("constant", `must be finite, got ${parts.constant}`);
    }
    if (linear.length !== n) {
      throw new ProblemValidationError(
        "linear",
        `has ${linear.length} entries, expected numVariables = ${n}`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(linear[i]!)) {
        throw new ProblemValidationError(`linear[${i}]`, `must be finite, got ${linear[i]}`);
      }
    }
    const m = pairCoefficient.length;
    if (pairFirst.length !== m || pairSecond.length !== m) {
      throw new ProblemValidationError(
        "pairFirst",
        `pairFirst, pairSecond and pairCoefficient must have one length (${pairFirst.length}, ${pairSecond.length}, ${m})`,
      );
    }
    for (let p = 0; p < m; p++) {
      const i = pairFirst[p]!;
      const j = pairSecond[p]!;
      if (i < 0 || i >= n || j < 0 || j >= n || i === j) {
        throw new ProblemValidationError(
          `pair ${p}`,
          `(x${i}, x${j}) must be two different variables in 0 … ${n - 1}`,
        );
      }
      if (!Number.isFinite(pairCoefficient[p]!)) {
        throw new ProblemValidationError(
          `pairCoefficient[${p}]`,
          `must be finite, got ${pairCoefficient[p]}`,
        );
      }
    }
    this.numVariables = n;
    this.constant = parts.constant;
    this.linear = linear;
    this.pairFirst = pairFirst;
    this.pairSecond = pairSecond;
    this.pairCoefficient = pairCoefficient;
  }

  get numPairs(): number {
    return this.pairCoefficient.length;
  }

  /** Q(x); an entry of `x` counts as 1 when it is non-zero. */
  evaluate(x: ArrayLike<number>): number {
    if (x.length < this.numVariables) {
      throw new ProblemValidationError(
        "evaluate",
        `the assignment has ${x.length} entries, the function ${this.numVariables} variables`,
      );
    }
    let total = this.constant;
    for (let i = 0; i < this.numVariables; i++) if (x[i] !== 0) total += this.linear[i]!;
    for (let p = 0; p < this.pairCoefficient.length; p++) {
      if (x[this.pairFirst[p]!] !== 0 && x[this.pairSecond[p]!] !== 0) {
        total += this.pairCoefficient[p]!;
      }
    }
    return total;
  }

  /** Whether every pair coefficient is ≤ 0, i.e. Q is submodular and graph-representable. */
  isSubmodular(): boolean {
    for (let p = 0; p < this.pairCoefficient.length; p++) {
      if (this.pairCoefficient[p]! > 0) return false;
    }
    return true;
  }
}
