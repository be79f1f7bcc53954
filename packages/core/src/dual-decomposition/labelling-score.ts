import type { Slave } from "../solver.js";
import { type ConstraintMatrix, labellingActivities } from "./constraint-matrix.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/** Where {@link scoreGlobalLabelling} leaves how far its labelling breaks the hard constraints. */
export interface HardViolation {
  hardViolation: number;
}

/**
 * The master's objective of a global labelling y: Σ_s score_s(y on s's positions) − soft
 * penalties; −∞ when a slave forbids it (hardViolation = ∞) or it breaks a hard constraint
 * (hardViolation = the total excess). `views[s]` is scratch of slave s's length; `activity` of the
 * constraints' count. Both master steps (subgradient and AD3) score their candidates with it.
 */
export function scoreGlobalLabelling(
  slaves: readonly Slave[],
  positions: readonly Int32Array[],
  views: readonly Int32Array[],
  A: ConstraintMatrix | null,
  activity: Float64Array,
  eps: number,
  y: Int32Array,
  out: HardViolation,
): number {
  let total = 0;
  for (let s = 0; s < slaves.length; s++) {
    const map = positions[s]!;
    const own = views[s]!;
    for (let j = 0; j < map.length; j++) own[j] = y[map[j]!]!;
    const value = slaves[s]!.score(own);
    if (Number.isNaN(value)) {
      throw new Error(`slave "${slaves[s]!.name}" scored a labelling as NaN`);
    }
    if (value === NEG_INF) {
      // A labelling a slave forbids is no fallback answer either.
      out.hardViolation = Number.POSITIVE_INFINITY;
      return NEG_INF;
    }
    total += value;
  }
  let hardViolation = 0;
  if (A !== null) {
    labellingActivities(A, y, activity);
    for (let k = 0; k < A.m; k++) {
      const excess = activity[k]! - A.rhs[k]!;
      if (excess <= eps) continue;
      if (A.hard[k] === 1) hardViolation += excess;
      else total -= A.upper[k]! * excess;
    }
  }
  out.hardViolation = hardViolation;
  return hardViolation > 0 ? NEG_INF : total;
}
