import { constraintViolation, type LinearConstraint } from "@lagrange/core";
import type { SoftDDSolution } from "./soft-dd.ts";

/** How one constraint fared: before (the unconstrained labelling) and after constrained decoding. */
export interface ConstraintEffect {
  /** Index in the problem's constraint array. */
  readonly index: number;
  /** The constraint's name (its rule in words), or `constraint #i`. */
  readonly name: string;
  readonly violationBefore: number;
  readonly violationAfter: number;
  /** Final multiplier λ_i: > 0 means the constraint pushed on the slave's scores. */
  readonly multiplier: number;
}

/**
 * The constraints that shaped a Soft-DD answer: those whose violation changed between the
 * unconstrained labelling and the returned one, or whose multiplier ended above zero. Sorted
 * by how much violation was removed. For demos and reports ("labels changed because of: at most
 * one authors segment").
 */
export function constraintEffects(
  constraints: readonly LinearConstraint[],
  solution: SoftDDSolution,
  L: number,
): ConstraintEffect[] {
  const before = solution.stats.unconstrainedLabels;
  const out: ConstraintEffect[] = [];
  constraints.forEach((c, index) => {
    const violationBefore = constraintViolation(c, before, L);
    const violationAfter = constraintViolation(c, solution.labels, L);
    const multiplier = solution.stats.multipliers[index] ?? 0;
    if (violationBefore === violationAfter && multiplier === 0) return;
    out.push({
      index,
      name: c.name ?? `constraint #${index}`,
      violationBefore,
      violationAfter,
      multiplier,
    });
  });
  return out.sort(
    (a, b) =>
      b.violationBefore - b.violationAfter - (a.violationBefore - a.violationAfter) ||
      b.multiplier - a.multiplier,
  );
}
