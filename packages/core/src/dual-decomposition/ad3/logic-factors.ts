/**
 * AD3's logic factors (Martins et al., JMLR 16, 2015, §5 and AD3's `Factor.h`) as
 * {@link BinaryFactor}s with exact quadratic projections, plus the pairwise (PAIR), dense and
 * linear-constraint factors.
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
// Validation

function checkSize(where: string, size: number, min: number): void {
  if (!Number.isInteger(size) || size < min) {
    throw new ProblemValidationError(`${where}.size`, `expected an integer ≥ ${min}, got ${size}`);
  }
}

/** Literal signs: 1 where the variable is negated, XOR-ed with `flip(i)` (AD3's derived types). */
function literalSigns(
  where: string,
  size: number,
  negated: Uint8Array | undefined,
  flip: (i: number) => boolean,
): Uint8Array {
  if (negated !== undefined && negated.length !== size) {
    throw new ProblemValidationError(
      `${where}.negated`,
      `expected ${size} entries (one per variable), got ${negated.length}`,
    );
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const given = negated !== undefined && negated[i] !== 0;
    out[i] = given !== flip(i) ? 1 : 0;
  }
  return out;
}

const noFlip = (): boolean => false;

function checkFinite(path: string, x: number): void {
  if (!Number.isFinite(x))
    throw new ProblemValidationError(path, `expected a finite number, got ${x}`);
}

// ---------------------------------------------------------------------------------------------
// Kernels shared by the single-constraint factors

function clip01(x: number): number {
  return x <= 0 ? 0 : Math.min(x, 1);
}

/** clip(v − μ a): a zero coefficient ignores μ, so μ = ±∞ stays well defined. */
function stepped(v: number, a: number, mu: number): number {
  return a === 0 ? clip01(v) : clip01(v - mu * a);
}

/** a·clip(v − μ a, 0, 1): nonincreasing in μ. */
function constraintAt(v: Float64Array, a: Float64Array, n: number, mu: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    if (ai !== 0) s += ai * stepped(v[i]!, ai, mu);
  }
  return s;
}

/**
 * The μ ∈ [lo, hi] of the projection of v onto box ∩ {a·z ≤ rhs} (lo = 0) or {a·z = rhs}
 * (lo = −∞), with hi = ∞ for a hard constraint and the penalty for a soft one: μ = lo when
 * h(lo) ≤ rhs, hi when h(hi) ≥ rhs, else the root of h(μ) = rhs, where h(μ) = a·clip(v − μa).
 * h is piecewise linear with breakpoints v_i/a_i and (v_i − 1)/a_i; a binary search over the sorted
 * breakpoints brackets the root on one linear piece, where it is solved in closed form from the set
 * of unclipped coordinates. `points` has length ≥ 2n + 2.
 */
function boxMultiplier(
  v: Float64Array,
  a: Float64Array,
  n: number,
  rhs: number,
  lo: number,
  hi: number,
  points: Float64Array,
): number {
  if (constraintAt(v, a, n, lo) <= rhs) return lo;
  if (constraintAt(v, a, n, hi) >= rhs) return hi;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    if (ai === 0) continue;
    const b0 = v[i]! / ai;
    const b1 = (v[i]! - 1) / ai;
    if (b0 > lo && b0 < hi) points[m++] = b0;
    if (b1 > lo && b1 < hi) points[m++] = b1;
  }
  if (Number.isFinite(lo)) points[m++] = lo;
  if (Number.isFinite(hi)) points[m++] = hi;
  // Only the m points found are sorted (a view: no padding to sort past).
  points.subarray(0, m).sort();
  // Below the first point h equals h(lo) > rhs, above the last h(hi) < rhs: the root is inside.
  let i0 = 0;
  let i1 = m - 1;
  while (i1 - i0 > 1) {
    const mid = (i0 + i1) >> 1;
    if (constraintAt(v, a, n, points[mid]!) > rhs) i0 = mid;
    else i1 = mid;
  }
  const p0 = points[i0]!;
  const p1 = points[i1]!;
  const pm = 0.5 * (p0 + p1);
  let numerator = -rhs;
  let denominator = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    if (ai === 0) continue;
    const x = v[i]! - pm * ai;
    if (x >= 1) numerator += ai;
    else if (x > 0) {
      numerator += ai * v[i]!;
      denominator += ai * ai;
    }
  }
  if (!(denominator > 0)) return p1;
  const mu = numerator / denominator;
  return mu < p0 ? p0 : Math.min(mu, p1);
}

/** Writes clip(v − μ a) to out. */
function writeStepped(v: Float64Array, a: Float64Array, n: number, mu: number, out: Float64Array) {
  for (let i = 0; i < n; i++) out[i] = stepped(v[i]!, a[i]!, mu);
}

/**
 * max over z ∈ [0,1]^n of adj·z − c·max(0, a·z − rhs) (c = ∞: subject to a·z ≤ rhs), through its
 * Lagrangian dual min over μ ∈ [0, c] of g(μ) = μ·rhs + Σ max(0, adj_i − μ a_i): convex piecewise
 * linear with breakpoints adj_i/a_i; the smallest point whose right slope is ≥ 0 is a minimiser.
 * The primal: z_i = 1 where adj_i − μa_i > 0, 0 where < 0, and the ties filled to a·z = rhs.
 * Returns μ (∞ when the hard constraint is infeasible in the box, z then the least-violating
 * vertex). Ratios and ties are compared as the stored ratio values, so a tie is exact.
 */
function boxLpMax(
  adj: Float64Array,
  a: Float64Array,
  n: number,
  rhs: number,
  c: number,
  ratio: Float64Array,
  points: Float64Array,
  out: Float64Array,
): number {
  let minimum = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    ratio[i] = ai === 0 ? 0 : adj[i]! / ai;
    if (ai < 0) minimum += ai;
  }
  if (c === Number.POSITIVE_INFINITY && minimum > rhs) {
    for (let i = 0; i < n; i++) {
      const ai = a[i]!;
      out[i] = ai > 0 ? 0 : ai < 0 ? 1 : adj[i]! > 0 ? 1 : 0;
    }
    return Number.POSITIVE_INFINITY;
  }
  let m = 0;
  points[m++] = 0;
  for (let i = 0; i < n; i++) {
    const r = ratio[i]!;
    // A ratio that overflowed to ∞ stays a point of a hard constraint: its minimiser may be there.
    if (a[i] !== 0 && r > 0 && (r < c || r === Number.POSITIVE_INFINITY)) points[m++] = r;
  }
  if (Number.isFinite(c)) points[m++] = c;
  // Only the m points found are sorted (a view: no padding to sort past).
  points.subarray(0, m).sort();
  let mu: number;
  if (rightSlope(a, ratio, n, rhs, points[m - 1]!) < 0) mu = points[m - 1]!;
  else {
    // Smallest point with slope ≥ 0: invariant slope(points[i1]) ≥ 0, slope(points[i0]) < 0.
    let i0 = -1;
    let i1 = m - 1;
    while (i1 - i0 > 1) {
      const mid = (i0 + i1) >> 1;
      if (rightSlope(a, ratio, n, rhs, points[mid]!) >= 0) i1 = mid;
      else i0 = mid;
    }
    mu = points[i1]!;
  }
  let used = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    const r = ratio[i]!;
    let z: number;
    if (ai === 0) z = adj[i]! > 0 ? 1 : 0;
    else if (ai > 0) z = r > mu ? 1 : 0;
    else z = r < mu ? 1 : r > mu ? 0 : 1; // a tie starts at the smallest a·z (z = 1 when a < 0)
    out[i] = z;
    used += ai * z;
  }
  let remaining = rhs - used;
  for (let i = 0; i < n && remaining > 0; i++) {
    const ai = a[i]!;
    if (ai === 0 || ratio[i] !== mu) continue;
    const width = Math.abs(ai);
    const fraction = remaining >= width ? 1 : remaining / width;
    out[i] = ai > 0 ? fraction : 1 - fraction;
    remaining -= fraction * width;
  }
  return mu;
}

/** Right derivative at μ of μ·rhs + Σ max(0, adj_i − μ a_i). */
function rightSlope(a: Float64Array, ratio: Float64Array, n: number, rhs: number, mu: number) {
  let s = rhs;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    if (ai > 0) {
      if (ratio[i]! > mu) s -= ai;
    } else if (ai < 0) {
      if (ratio[i]! <= mu) s -= ai;
    }
  }
  return s;
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
 * The literal-space adjustment (adj_i negated → −adj_i) and the constant Σ_{negated} adj_i it
 * drops: adj·z = constant + adj'·lit.
 */
function literalAdjustment(adj: Float64Array, signs: Uint8Array, n: number, into: Float64Array) {
  let constant = 0;
  for (let i = 0; i < n; i++) {
    const x = adj[i]!;
    if (signs[i] !== 0) {
      into[i] = -x;
      constant += x;
    } else into[i] = x;
  }
  return constant;
}

function writeLiterals(lit: Float64Array, signs: Uint8Array, n: number, out: Float64Array) {
  for (let i = 0; i < n; i++) out[i] = signs[i] !== 0 ? 1 - lit[i]! : lit[i]!;
}

/** A projection onto box ∩ {a·z ≤ rhs} (or = rhs) with preallocated breakpoints. */
function boxProjector(folded: Folded, equality: boolean) {
  const n = folded.a.length;
  const points = new Float64Array(2 * n + 2);
  const lo = equality ? Number.NEGATIVE_INFINITY : 0;
  return (v: Float64Array, _scale: number, out: Float64Array): void => {
    const mu = boxMultiplier(v, folded.a, n, folded.rhs, lo, Number.POSITIVE_INFINITY, points);
    writeStepped(v, folded.a, n, mu, out);
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
  const lit = new Float64Array(size);
  return {
    name: "xor",
    size,
    map(adjustment, out) {
      const constant = literalAdjustment(adjustment, signs, size, lit);
      let best = 0;
      for (let i = 1; i < size; i++) if (lit[i]! > lit[best]!) best = i;
      const value = constant + lit[best]!;
      lit.fill(0);
      lit[best] = 1;
      writeLiterals(lit, signs, size, out);
      return value;
    },
    project: boxProjector(folded, true),
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
  const lit = new Float64Array(size);
  return {
    name: "at-most-one",
    size,
    map(adjustment, out) {
      const constant = literalAdjustment(adjustment, signs, size, lit);
      let best = 0;
      for (let i = 1; i < size; i++) if (lit[i]! > lit[best]!) best = i;
      const gain = lit[best]!;
      lit.fill(0);
      if (gain > 0) lit[best] = 1;
      writeLiterals(lit, signs, size, out);
      return constant + Math.max(gain, 0);
    },
    project: boxProjector(folded, false),
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
  const lit = new Float64Array(size);
  return {
    name,
    size,
    map(adjustment, out) {
      const constant = literalAdjustment(adjustment, signs, size, lit);
      let best = 0;
      let sum = 0;
      let any = false;
      for (let i = 0; i < size; i++) {
        const x = lit[i]!;
        if (x > lit[best]!) best = i;
        if (x > 0) {
          sum += x;
          any = true;
        }
      }
      if (!any) sum = lit[best]!;
      for (let i = 0; i < size; i++) lit[i] = lit[i]! > 0 || (!any && i === best) ? 1 : 0;
      writeLiterals(lit, signs, size, out);
      return constant + sum;
    },
    project: boxProjector(folded, false),
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
  const n = folded.a.length;
  const ratio = new Float64Array(n);
  const points = new Float64Array(n + 2);
  return {
    name,
    size: n,
    map(adjustment, out) {
      const mu = boxLpMax(
        adjustment,
        folded.a,
        n,
        folded.rhs,
        Number.POSITIVE_INFINITY,
        ratio,
        points,
        out,
      );
      if (mu === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
      let value = 0;
      for (let i = 0; i < n; i++) value += adjustment[i]! * out[i]!;
      return value;
    },
    project: boxProjector(folded, false),
    score(z) {
      return allows(z) ? 0 : Number.NEGATIVE_INFINITY;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OR with output, AND with output

function orOutLike(name: string, size: number, signs: Uint8Array): BinaryFactor {
  const m = size - 1;
  const lit = new Float64Array(size);
  const x = new Float64Array(size);
  const sorted = new Float64Array(m);
  const simplexA = ones(size);
  const points = new Float64Array(2 * size + 2);
  return {
    name,
    size,
    map(adjustment, out) {
      // Literal space: all off (value 0), or the output on with every positive input and, when
      // none is positive, the best single input.
      const constant = literalAdjustment(adjustment, signs, size, lit);
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
      writeLiterals(lit, signs, size, out);
      return constant + (on ? onValue : 0);
    },
    project(v, _scale, out) {
      for (let i = 0; i < size; i++) lit[i] = signs[i] !== 0 ? 1 - v[i]! : v[i]!;
      // {0 ≤ u_i ≤ w ≤ 1}: u_i = clip(a_i, 0, w), w = clip to [0,1] of the root of
      // (w − b) − Σ max(0, a_i − w) (the minimiser of a convex function of w).
      const b = lit[m]!;
      for (let i = 0; i < m; i++) sorted[i] = lit[i]!;
      sorted.sort();
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
        // The projection lies on the face w = Σ u, where (u, 1 − w) is in the simplex.
        lit[m] = 1 - b;
        const mu = boxMultiplier(
          lit,
          simplexA,
          size,
          1,
          Number.NEGATIVE_INFINITY,
          Number.POSITIVE_INFINITY,
          points,
        );
        writeStepped(lit, simplexA, size, mu, x);
        x[m] = 1 - x[m]!;
      }
      writeLiterals(x, signs, size, out);
    },
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
// PAIR

/**
 * AD3's PAIR: two variables, `score` added when both are 1. Its score over [0,1]² is the concave
 * extension score·min(q1, q2) (score ≥ 0) or score·max(0, q1 + q2 − 1) (score < 0); the projection
 * tries the two linear pieces in closed form and otherwise lies on the line between them.
 */
export function pairFactor(score: number): BinaryFactor {
  checkFinite("pairFactor.score", score);
  return {
    name: "pair",
    size: 2,
    map(adjustment, out) {
      const a = adjustment[0]!;
      const b = adjustment[1]!;
      const both = a + b + score;
      let value = 0;
      let z0 = 0;
      let z1 = 0;
      if (a > value) {
        value = a;
        z0 = 1;
        z1 = 0;
      }
      if (b > value) {
        value = b;
        z0 = 0;
        z1 = 1;
      }
      if (both > value) {
        value = both;
        z0 = 1;
        z1 = 1;
      }
      out[0] = z0;
      out[1] = z1;
      return value;
    },
    project(v, scale, out) {
      const v0 = v[0]!;
      const v1 = v[1]!;
      const w = scale * score;
      // Each piece's objective bounds the true one from one side and equals it on the piece, so
      // a piece's maximiser that lies in its own piece is optimal.
      if (w >= 0) {
        let q0 = clip01(v0 + w);
        let q1 = clip01(v1);
        if (q0 <= q1) {
          out[0] = q0;
          out[1] = q1;
          return;
        }
        q0 = clip01(v0);
        q1 = clip01(v1 + w);
        if (q1 <= q0) {
          out[0] = q0;
          out[1] = q1;
          return;
        }
        const t = clip01(0.5 * (v0 + v1 + w));
        out[0] = t;
        out[1] = t;
        return;
      }
      let q0 = clip01(v0);
      let q1 = clip01(v1);
      if (q0 + q1 <= 1) {
        out[0] = q0;
        out[1] = q1;
        return;
      }
      q0 = clip01(v0 + w);
      q1 = clip01(v1 + w);
      if (q0 + q1 >= 1) {
        out[0] = q0;
        out[1] = q1;
        return;
      }
      const t = clip01(0.5 * (v0 - v1 + 1));
      out[0] = t;
      out[1] = 1 - t;
    },
    score(z) {
      return (z[0] ?? 0) > 0.5 && (z[1] ?? 0) > 0.5 ? score : 0;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Dense

/**
 * AD3's DENSE factor: several multi-valued variables, variable k with cardinalities[k] states, as
 * the concatenation of their one-hot indicator blocks (size Σ cardinalities). `scores` has one
 * entry per joint configuration (s_0, …, s_{K−1}), at index Σ_k s_k·Π_{j>k} cardinalities[j]: the
 * LAST variable varies fastest (AD3's order). `map` enumerates the joint configurations; there is no
 * `project` (the master's active-set method works through `map`). A 0/1 vector that is not one-hot
 * per block scores −∞.
 */
export function denseFactor(cardinalities: Int32Array, scores: Float64Array): BinaryFactor {
  const k = cardinalities.length;
  if (k === 0)
    throw new ProblemValidationError("denseFactor.cardinalities", "expected at least one variable");
  const offsets = new Int32Array(k + 1);
  const strides = new Int32Array(k);
  let total = 1;
  for (let j = 0; j < k; j++) {
    const c = cardinalities[j]!;
    if (!Number.isInteger(c) || c < 1) {
      throw new ProblemValidationError(
        `denseFactor.cardinalities[${j}]`,
        `expected an integer ≥ 1, got ${c}`,
      );
    }
    offsets[j + 1] = offsets[j]! + c;
  }
  for (let j = k - 1; j >= 0; j--) {
    strides[j] = total;
    total *= cardinalities[j]!;
  }
  if (scores.length !== total) {
    throw new ProblemValidationError(
      "denseFactor.scores",
      `expected ${total} entries (the product of the cardinalities), got ${scores.length}`,
    );
  }
  for (let i = 0; i < total; i++) {
    const s = scores[i]!;
    if (Number.isNaN(s) || s === Number.POSITIVE_INFINITY) {
      throw new ProblemValidationError(
        `denseFactor.scores[${i}]`,
        `expected a number < ∞, got ${s}`,
      );
    }
  }
  const size = offsets[k]!;
  const state = new Int32Array(k);
  // partial[j] = Σ_{i<j} adjustment of variable i's current state.
  const partial = new Float64Array(k + 1);
  return {
    name: "dense",
    size,
    map(adjustment, out) {
      state.fill(0);
      for (let j = 0; j < k; j++) partial[j + 1] = partial[j]! + adjustment[offsets[j]!]!;
      let best = Number.NEGATIVE_INFINITY;
      let bestIndex = 0;
      for (let index = 0; ; ) {
        const value = scores[index]! + partial[k]!;
        if (value > best) {
          best = value;
          bestIndex = index;
        }
        if (++index === total) break;
        let j = k - 1;
        while (state[j]! + 1 === cardinalities[j]!) state[j--] = 0;
        state[j] = state[j]! + 1;
        for (let i = j; i < k; i++)
          partial[i + 1] = partial[i]! + adjustment[offsets[i]! + state[i]!]!;
      }
      out.fill(0, 0, size);
      for (let j = 0; j < k; j++) {
        const s = Math.floor(bestIndex / strides[j]!) % cardinalities[j]!;
        out[offsets[j]! + s] = 1;
      }
      return best;
    },
    score(z) {
      let index = 0;
      for (let j = 0; j < k; j++) {
        let chosen = -1;
        for (let s = 0; s < cardinalities[j]!; s++) {
          if ((z[offsets[j]! + s] ?? 0) > 0.5) {
            if (chosen >= 0) return Number.NEGATIVE_INFINITY;
            chosen = s;
          }
        }
        if (chosen < 0) return Number.NEGATIVE_INFINITY;
        index += chosen * strides[j]!;
      }
      return scores[index]!;
    },
  };
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
  const points = new Float64Array(2 * n + 2);
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
      const mu = boxMultiplier(v, a, n, rhs, 0, hard ? penalty : scale * penalty, points);
      writeStepped(v, a, n, mu, out);
    },
    score(z) {
      const e = excess(z);
      if (e <= 0) return 0;
      return hard ? Number.NEGATIVE_INFINITY : -penalty * e;
    },
    multiplier() {
      return lastMultiplier;
    },
  };
}
