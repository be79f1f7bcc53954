/**
 * The validation and the box kernels AD3's logic factors share: for a single constraint over the
 * box [0,1]^n, clip(v − μ·a) and the exact multiplier μ from the sorted breakpoints of the
 * piecewise-linear, nonincreasing a·z(μ) (the quadratic projection), and the box LP's maximiser
 * through its one-dimensional Lagrangian dual (the MAP).
 */

import { ProblemValidationError } from "../../errors.js";

// ---------------------------------------------------------------------------------------------
// Validation

export function checkSize(where: string, size: number, min: number): void {
  if (!Number.isInteger(size) || size < min) {
    throw new ProblemValidationError(`${where}.size`, `expected an integer ≥ ${min}, got ${size}`);
  }
}

/** Literal signs: 1 where the variable is negated, XOR-ed with `flip(i)` (AD3's derived types). */
export function literalSigns(
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

export const noFlip = (): boolean => false;

export function checkFinite(path: string, x: number): void {
  if (!Number.isFinite(x))
    throw new ProblemValidationError(path, `expected a finite number, got ${x}`);
}

// ---------------------------------------------------------------------------------------------
// Kernels shared by the single-constraint factors

export function clip01(x: number): number {
  return x <= 0 ? 0 : Math.min(x, 1);
}

/** clip(v − μ a): a zero coefficient ignores μ, so μ = ±∞ stays well defined. */
export function stepped(v: number, a: number, mu: number): number {
  return a === 0 ? clip01(v) : clip01(v - mu * a);
}

/** a·clip(v − μ a, 0, 1): nonincreasing in μ. */
export function constraintAt(v: Float64Array, a: Float64Array, n: number, mu: number): number {
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
export function boxMultiplier(
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
export function writeStepped(
  v: Float64Array,
  a: Float64Array,
  n: number,
  mu: number,
  out: Float64Array,
) {
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
export function boxLpMax(
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
export function rightSlope(
  a: Float64Array,
  ratio: Float64Array,
  n: number,
  rhs: number,
  mu: number,
) {
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
