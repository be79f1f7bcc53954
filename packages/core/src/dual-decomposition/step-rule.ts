import { ProblemValidationError } from "../errors.js";

/**
 * Step sizes α_t of the projected subgradient step (t = 1, 2, … counts iterations). `initial`
 * absent: set at the first iteration to (dual − best primal) / ‖g‖² (a Polyak step), or
 * max(1, |dual|/n) / ‖g‖² while no feasible labelling is known, so no tuning to the score scale
 * is needed.
 * - `constant`: α_t = size.
 * - `one-over-t`: α_t = initial / t.
 * - `polyak`: α_t = scale · (dual_t − best primal) / ‖g_t‖² (scale in (0, 2), default 1), g_t
 *   restricted to the multipliers the projection lets move; `shrink-on-dual-increase` until a
 *   feasible labelling is known.
 * - `shrink-on-dual-increase` (default; Rush & Collins 2012, the schedule of anzaroot2014):
 *   α_t = initial / (1 + number of iterations whose dual rose above the previous one).
 */
export type StepRule =
  | { readonly kind: "constant"; readonly size: number }
  | { readonly kind: "one-over-t"; readonly initial?: number }
  | { readonly kind: "polyak"; readonly scale?: number; readonly initial?: number }
  | { readonly kind: "shrink-on-dual-increase"; readonly initial?: number };

export const STEP_RULE_KINDS = [
  "shrink-on-dual-increase",
  "one-over-t",
  "polyak",
  "constant",
] as const satisfies readonly StepRule["kind"][];

export const DEFAULT_STEP_RULE: StepRule = { kind: "shrink-on-dual-increase" };

export function validateStepRule(rule: StepRule, path = "options.stepRule"): void {
  const positive = (value: number | undefined, field: string) => {
    if (value !== undefined && !(value > 0 && Number.isFinite(value))) {
      throw new ProblemValidationError(
        `${path}.${field}`,
        `expected a finite number > 0, got ${value}`,
      );
    }
  };
  switch (rule.kind) {
    case "constant":
      if (rule.size === undefined) {
        throw new ProblemValidationError(`${path}.size`, "a constant step needs a size");
      }
      positive(rule.size, "size");
      return;
    case "polyak":
      positive(rule.scale, "scale");
      positive(rule.initial, "initial");
      return;
    case "one-over-t":
    case "shrink-on-dual-increase":
      positive(rule.initial, "initial");
      return;
    default:
      throw new ProblemValidationError(
        `${path}.kind`,
        `expected one of ${STEP_RULE_KINDS.join(", ")}, got ${JSON.stringify((rule as { kind: unknown }).kind)}`,
      );
  }
}

/** `initial` as the rule gives it, or 0 when it is to be set from the first iteration. */
export function givenInitial(rule: StepRule): number {
  return rule.kind === "constant" ? rule.size : (rule.initial ?? 0);
}

/** The automatic `initial` from the first iteration (see {@link StepRule}). */
export function automaticInitial(
  dual: number,
  bestPrimal: number,
  normSquared: number,
  n: number,
): number {
  const spread =
    bestPrimal > Number.NEGATIVE_INFINITY && dual - bestPrimal > 0
      ? dual - bestPrimal
      : Math.max(1, Math.abs(dual) / n);
  return spread / (normSquared > 0 ? normSquared : 1);
}

/**
 * α_t for iteration t (1-based) from the iteration's dual, the best primal so far, ‖g‖² over the
 * multipliers that may move, the number of dual increases so far and the rule's resolved `initial`.
 * Positional, so that the master's loop allocates nothing.
 */
export function stepSize(
  rule: StepRule,
  iteration: number,
  dual: number,
  bestPrimal: number,
  normSquared: number,
  dualIncreases: number,
  initial: number,
): number {
  switch (rule.kind) {
    case "constant":
      return rule.size;
    case "one-over-t":
      return initial / iteration;
    case "polyak":
      return bestPrimal > Number.NEGATIVE_INFINITY && normSquared > 0
        ? ((rule.scale ?? 1) * Math.max(0, dual - bestPrimal)) / normSquared
        : initial / (1 + dualIncreases);
    case "shrink-on-dual-increase":
      return initial / (1 + dualIncreases);
  }
}
