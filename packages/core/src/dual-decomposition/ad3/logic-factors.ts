/**
 * AD3's logic factors (Martins et al., JMLR 16, 2015, §5 and AD3's `Factor.h`) as
 * {@link BinaryFactor}s with exact quadratic projections, plus the linear-constraint factor (the
 * pairwise PAIR and the DENSE factor are in dense-factors.ts).
 *
 * A negated variable enters as its literal 1 − z_i. Every single-constraint factor (XOR,
 * AtMostOne, OR, IMPLY, BUDGET, KNAPSACK, linear constraint) folds its negations into signed
 * coefficients once, so its polytope is box ∩ {a·z ≤ r} (XOR: = r) and its projection is
 * z(μ) = clip(v − μ·a, 0, 1) with the one multiplier μ found exactly from the sorted breakpoints of
 * the piecewise-linear, nonincreasing a·z(μ). OR-with-output (and AND-with-output, its De Morgan
 * dual) projects onto {u_i ≤ w} first and, when that violates w ≤ Σ u, onto that face, which is a
 * simplex.
 *
 * Every factory preallocates its scratch: `map`, `project` and `score` allocate nothing per call.
 */

import { ProblemValidationError } from "../../errors.js";
import type { BinaryFactor } from "./binary-factor.js";
import {
  BoxScratch,
  boxLpMax,
  checkFinite,
  checkSize,
  clip01,
  literalSigns,
  mapUnitBox,
  noFlip,
  projectBoxConstraint,
  projectUnitBox,
  sortPairs,
  unitCoefficients,
} from "./box-kernels.js";
import { carve } from "./typed-arena.js";

/** A linear-constraint factor: {@link BinaryFactor} plus the multiplier of its last `map`. */
export type LinearConstraintFactor = BinaryFactor & {
  /**
   * The optimal μ ≥ 0 of the last `map` call's Lagrangian dual (the constraint's λ; ∞ when the
   * hard constraint cannot be met in the box, 0 before any call).
   */
  multiplier(): number;
};

/** Options of {@link linearConstraintFactor}. */
export interface LinearConstraintOptions {
  /** a, one per variable, any sign. */
  readonly coefficients: Float64Array;
  /** The bound r of a·z ≤ r. */
  readonly rhs: number;
  /** Absent (or ∞): hard constraint. Otherwise the score is −penalty·max(0, a·z − r). */
  readonly penalty?: number | undefined;
}

// ---------------------------------------------------------------------------------------------
// Single-constraint factors: box ∩ {a·z ≤ r} or {a·z = r} after folding the negations

interface Folded {
  readonly a: Float64Array;
  readonly rhs: number;
}

/** Σ_i w_i·lit_i ≤ r with lit_i = 1 − z_i when negated → a·z ≤ r'. */
function fold(weights: Float64Array, signs: Uint8Array, rhs: number): Folded {
  const a = new Float64Array(weights.length);
  let r = rhs;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (signs[i] !== 0) {
      a[i] = -w;
      r -= w;
    } else a[i] = w;
  }
  return { a, rhs: r };
}

function literal(z: ArrayLike<number>, signs: Uint8Array, i: number): number {
  const on = (z[i] ?? 0) > 0.5 ? 1 : 0;
  return signs[i] !== 0 ? 1 - on : on;
}

/**
 * MAP, projection and declared kernel of a factor over box ∩ {a·z ≤ rhs} (= rhs when `equality`),
 * hard: the unit kernels where every coefficient is ±1 (the run batches the same ones), else the
 * general ones.
 */
function boxMethods(
  folded: Folded,
  equality: boolean,
): Pick<BinaryFactor, "map" | "project" | "kernel"> {
  const { a, rhs } = folded;
  const n = a.length;
  const scratch = new BoxScratch(n);
  const lo = equality ? Number.NEGATIVE_INFINITY : 0;
  const unit = unitCoefficients(a);
  const setBounds = (): void => {
    scratch.bounds[0] = rhs;
    scratch.bounds[1] = lo;
    scratch.bounds[2] = Number.POSITIVE_INFINITY;
  };
  const ratio = new Float64Array(n);
  const points = new Float64Array(n + 2);
  return {
    map(adjustment, out) {
      if (unit) {
        setBounds();
        mapUnitBox(adjustment, a, out, 0, n, scratch);
        return scratch.bounds[3]!;
      }
      const mu = boxLpMax(adjustment, a, n, rhs, Number.POSITIVE_INFINITY, ratio, points, out);
      if (mu === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
      let value = 0;
      for (let i = 0; i < n; i++) value += adjustment[i]! * out[i]!;
      return value;
    },
    project(v, _scale, out) {
      setBounds();
      if (unit) projectUnitBox(v, a, out, 0, n, scratch);
      else projectBoxConstraint(v, a, out, 0, n, scratch);
    },
    kernel: { kind: "box", coefficients: a, rhs, equality, penalty: Number.POSITIVE_INFINITY },
  };
}

function ones(n: number): Float64Array {
  return new Float64Array(n).fill(1);
}

/**
 * XOR (AD3's one-of): exactly one literal is on. Polytope: the (reflected) simplex; projection:
 * sort-based simplex projection, i.e. clip(v − μa) with Σ literals = 1.
 */
export function xorFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("xorFactor", size, 1);
  const signs = literalSigns("xorFactor", size, negated, noFlip);
  const folded = fold(ones(size), signs, 1);
  return {
    name: "xor",
    size,
    ...boxMethods(folded, true),
    score(z) {
      let on = 0;
      for (let i = 0; i < size; i++) on += literal(z, signs, i);
      return on === 1 ? 0 : Number.NEGATIVE_INFINITY;
    },
  };
}

/** AtMostOne: at most one literal on. Projection: clip, then the simplex when Σ > 1. */
export function atMostOneFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("atMostOneFactor", size, 1);
  const signs = literalSigns("atMostOneFactor", size, negated, noFlip);
  const folded = fold(ones(size), signs, 1);
  return {
    name: "at-most-one",
    size,
    ...boxMethods(folded, false),
    score(z) {
      let on = 0;
      for (let i = 0; i < size; i++) on += literal(z, signs, i);
      return on <= 1 ? 0 : Number.NEGATIVE_INFINITY;
    },
  };
}

function orLike(name: string, where: string, size: number, signs: Uint8Array): BinaryFactor {
  checkSize(where, size, 1);
  // Σ lit ≥ 1  ⇔  −Σ lit ≤ −1.
  const folded = fold(new Float64Array(size).fill(-1), signs, -1);
  return {
    name,
    size,
    ...boxMethods(folded, false),
    score(z) {
      for (let i = 0; i < size; i++) if (literal(z, signs, i) === 1) return 0;
      return Number.NEGATIVE_INFINITY;
    },
  };
}

/** OR: at least one literal on. Projection: clip, then box ∩ {Σ = 1} when Σ < 1. */
export function orFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("orFactor", size, 1);
  return orLike("or", "orFactor", size, literalSigns("orFactor", size, negated, noFlip));
}

/**
 * AD3's IMPLY: lit_1 ∧ … ∧ lit_{size−1} ⇒ lit_size, i.e. the OR of ¬lit_1, …, ¬lit_{size−1},
 * lit_size (size 1: the single literal is on).
 */
export function implyFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("implyFactor", size, 1);
  const signs = literalSigns("implyFactor", size, negated, (i) => i < size - 1);
  return orLike("imply", "implyFactor", size, signs);
}

/**
 * BUDGET: at most `budget` literals on (an integer; the polytope box ∩ {Σ ≤ budget} is integral).
 * Projection: clip(v − μ), μ ≥ 0 from the sorted breakpoints.
 */
export function budgetFactor(size: number, budget: number, negated?: Uint8Array): BinaryFactor {
  checkSize("budgetFactor", size, 1);
  if (!Number.isInteger(budget) || budget < 0) {
    throw new ProblemValidationError(
      "budgetFactor.budget",
      `expected an integer ≥ 0, got ${budget}`,
    );
  }
  const signs = literalSigns("budgetFactor", size, negated, noFlip);
  return singleConstraint("budget", fold(ones(size), signs, budget), (z) => {
    let on = 0;
    for (let i = 0; i < size; i++) on += literal(z, signs, i);
    return on <= budget;
  });
}

/**
 * KNAPSACK: Σ cost_i·lit_i ≤ budget. As in AD3 its polytope is the continuous relaxation
 * box ∩ {Σ cost_i·lit_i ≤ budget}, not the hull of the feasible 0/1 vectors: `map` may return a
 * fractional z (one fractional coordinate), and the projection is onto that box ∩ halfspace.
 * Costs of any sign are accepted.
 */
export function knapsackFactor(
  costs: Float64Array,
  budget: number,
  negated?: Uint8Array,
): BinaryFactor {
  const size = costs.length;
  checkSize("knapsackFactor", size, 1);
  for (let i = 0; i < size; i++) checkFinite(`knapsackFactor.costs[${i}]`, costs[i]!);
  checkFinite("knapsackFactor.budget", budget);
  const signs = literalSigns("knapsackFactor", size, negated, noFlip);
  const weights = Float64Array.from(costs);
  return singleConstraint("knapsack", fold(weights, signs, budget), (z) => {
    let s = 0;
    for (let i = 0; i < size; i++) s += weights[i]! * literal(z, signs, i);
    return s <= budget;
  });
}

/** A factor over box ∩ {a·z ≤ rhs}; `allows` says whether a 0/1 vector meets the constraint. */
function singleConstraint(
  name: string,
  folded: Folded,
  allows: (z: ArrayLike<number>) => boolean,
): BinaryFactor {
  return {
    name,
    size: folded.a.length,
    ...boxMethods(folded, false),
    score(z) {
      return allows(z) ? 0 : Number.NEGATIVE_INFINITY;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OR with output, AND with output

/** Buffers for {@link projectOrOut} over factors of up to `size` variables. */
export class OrOutScratch {
  /** [0]: the last {@link mapOrOut}'s maximum. */
  readonly result: Float64Array = new Float64Array(1);
  readonly lit: Float64Array;
  readonly x: Float64Array;
  readonly sorted: Float64Array;
  readonly ones: Float64Array;
  readonly box: BoxScratch;
  constructor(size: number) {
    [this.lit, this.x, this.sorted, this.ones] = carve(Float64Array, [size, size, size, size]);
    this.ones.fill(1);
    this.box = new BoxScratch(size);
  }
}

/**
 * OR-with-output's MAP on adj[start … start+size) into out, the maximum into scratch.result[0]:
 * in literal space, all off (value 0), or the output on with every positive input and, when none
 * is positive, the best single input.
 */
export function mapOrOut(
  adj: Float64Array,
  signs: Uint8Array,
  out: Float64Array,
  start: number,
  size: number,
  scratch: OrOutScratch,
): void {
  const { lit } = scratch;
  const m = size - 1;
  let constant = 0;
  for (let i = 0; i < size; i++) {
    const x = adj[start + i]!;
    if (signs[start + i] !== 0) {
      lit[i] = -x;
      constant += x;
    } else lit[i] = x;
  }
  let sum = 0;
  let best = -1;
  let any = false;
  for (let i = 0; i < m; i++) {
    const y = lit[i]!;
    if (best < 0 || y > lit[best]!) best = i;
    if (y > 0) {
      sum += y;
      any = true;
    }
  }
  let onValue = Number.NEGATIVE_INFINITY;
  if (best >= 0) onValue = lit[m]! + (any ? sum : lit[best]!);
  const on = onValue > 0;
  for (let i = 0; i < m; i++) lit[i] = on && (lit[i]! > 0 || (!any && i === best)) ? 1 : 0;
  lit[m] = on ? 1 : 0;
  for (let i = 0; i < size; i++) out[start + i] = signs[start + i] !== 0 ? 1 - lit[i]! : lit[i]!;
  scratch.result[0] = constant + (on ? onValue : 0);
}

/**
 * OR-with-output's quadratic step on v[start … start+size) (literal signs at the same offsets),
 * into q: in literal space project onto {0 ≤ u_i ≤ w ≤ 1} first — u_i = clip(a_i, 0, w), w the
 * clipped root of (w − b) − Σ max(0, a_i − w) — and when that breaks w ≤ Σ u, onto that face,
 * where (u, 1 − w) lies in the simplex.
 */
export function projectOrOut(
  v: Float64Array,
  signs: Uint8Array,
  q: Float64Array,
  start: number,
  size: number,
  scratch: OrOutScratch,
): void {
  const { lit, x, sorted } = scratch;
  const m = size - 1;
  for (let i = 0; i < size; i++) {
    const vi = v[start + i]!;
    lit[i] = signs[start + i] !== 0 ? 1 - vi : vi;
  }
  const b = lit[m]!;
  for (let i = 0; i < m; i++) sorted[i] = lit[i]!;
  sortPairs(sorted, null, m);
  let w = b;
  let above = 0;
  for (let k = 0; k <= m; k++) {
    w = (b + above) / (1 + k);
    const next = k < m ? sorted[m - 1 - k]! : Number.NEGATIVE_INFINITY;
    if (w >= next) break;
    above += next;
  }
  w = clip01(w);
  let total = 0;
  for (let i = 0; i < m; i++) {
    const u = lit[i]! <= 0 ? 0 : Math.min(lit[i]!, w);
    x[i] = u;
    total += u;
  }
  if (w <= total) {
    x[m] = w;
  } else {
    lit[m] = 1 - b;
    const bounds = scratch.box.bounds;
    bounds[0] = 1;
    bounds[1] = Number.NEGATIVE_INFINITY;
    bounds[2] = Number.POSITIVE_INFINITY;
    projectUnitBox(lit, scratch.ones, x, 0, size, scratch.box);
    x[m] = 1 - x[m]!;
  }
  for (let i = 0; i < size; i++) q[start + i] = signs[start + i] !== 0 ? 1 - x[i]! : x[i]!;
}

function orOutLike(name: string, size: number, signs: Uint8Array): BinaryFactor {
  const m = size - 1;
  const scratch = new OrOutScratch(size);
  return {
    name,
    size,
    map(adjustment, out) {
      mapOrOut(adjustment, signs, out, 0, size, scratch);
      return scratch.result[0]!;
    },
    project(v, _scale, out) {
      projectOrOut(v, signs, out, 0, size, scratch);
    },
    kernel: { kind: "or-out", negated: signs },
    score(z) {
      let anyOn = 0;
      for (let i = 0; i < m; i++) if (literal(z, signs, i) === 1) anyOn = 1;
      return literal(z, signs, m) === anyOn ? 0 : Number.NEGATIVE_INFINITY;
    },
  };
}

/**
 * OR with output: the last literal equals the OR of the first size − 1 (size 1: it is off).
 * Polytope {u_i ≤ w, w ≤ Σ u_i} ∩ box; projection in two closed-form stages (see the file note).
 */
export function orOutFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("orOutFactor", size, 1);
  return orOutLike("or-out", size, literalSigns("orOutFactor", size, negated, noFlip));
}

/**
 * AND with output: the last literal equals the AND of the first size − 1 (size 1: it is on) —
 * AD3's OR-with-output with every literal negated (De Morgan).
 */
export function andOutFactor(size: number, negated?: Uint8Array): BinaryFactor {
  checkSize("andOutFactor", size, 1);
  return orOutLike(
    "and-out",
    size,
    literalSigns("andOutFactor", size, negated, () => true),
  );
}

// ---------------------------------------------------------------------------------------------
// Linear constraint

/**
 * a·z ≤ rhs over the box [0,1]^size (coefficients of any sign): hard without `penalty`, otherwise
 * the concave score −penalty·max(0, a·z − rhs). `map` maximises over the box (a continuous LP,
 * through the one-dimensional Lagrangian dual; `multiplier()` is its μ ∈ [0, penalty]); `project`
 * is clip(v − scale·μ·a) with μ ∈ [0, penalty] (hard: [0, ∞)) from the sorted breakpoints. A hard
 * constraint no point of the box meets has `map` −∞, and `project` returns the vertex minimising a·z.
 */
export function linearConstraintFactor(options: LinearConstraintOptions): LinearConstraintFactor {
  const { coefficients, rhs } = options;
  const penalty = options.penalty ?? Number.POSITIVE_INFINITY;
  const n = coefficients.length;
  checkSize("linearConstraintFactor", n, 1);
  for (let i = 0; i < n; i++)
    checkFinite(`linearConstraintFactor.coefficients[${i}]`, coefficients[i]!);
  checkFinite("linearConstraintFactor.rhs", rhs);
  if (Number.isNaN(penalty) || penalty < 0) {
    throw new ProblemValidationError(
      "linearConstraintFactor.penalty",
      `expected a number ≥ 0, got ${penalty}`,
    );
  }
  const a = Float64Array.from(coefficients);
  const hard = penalty === Number.POSITIVE_INFINITY;
  const ratio = new Float64Array(n);
  const lpPoints = new Float64Array(n + 2);
  const scratch = new BoxScratch(n);
  const unit = unitCoefficients(a);
  let lastMultiplier = 0;
  const excess = (z: ArrayLike<number>): number => {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[i]! * (z[i] ?? 0);
    return s - rhs;
  };
  return {
    name: hard ? "linear-constraint" : "soft-linear-constraint",
    size: n,
    map(adjustment, out) {
      const mu = boxLpMax(adjustment, a, n, rhs, penalty, ratio, lpPoints, out);
      lastMultiplier = mu;
      if (mu === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
      let value = 0;
      for (let i = 0; i < n; i++) value += adjustment[i]! * out[i]!;
      if (!hard) {
        const e = excess(out);
        if (e > 0) value -= penalty * e;
      }
      return value;
    },
    project(v, scale, out) {
      scratch.bounds.set([rhs, 0, hard ? penalty : scale * penalty]);
      if (unit) projectUnitBox(v, a, out, 0, n, scratch);
      else projectBoxConstraint(v, a, out, 0, n, scratch);
    },
    score(z) {
      const e = excess(z);
      if (e <= 0) return 0;
      return hard ? Number.NEGATIVE_INFINITY : -penalty * e;
    },
    multiplier() {
      return lastMultiplier;
    },
    kernel: { kind: "box", coefficients: a, rhs, equality: false, penalty },
  };
}
