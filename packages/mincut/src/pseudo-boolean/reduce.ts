import { ProblemValidationError } from "@lagrange/core";
import { NonRepresentableTermError } from "./errors.js";
import { defaultName, type PseudoBooleanFunction, termStore } from "./function.js";
import {
  describe,
  forEachPiece,
  mergeHigherOrder,
  offending,
  pairError,
} from "./higher-order-terms.js";
import type { QuadraticPseudoBoolean } from "./quadratic.js";
import { QuadraticBuilder } from "./quadratic-builder.js";

export interface ReduceOptions {
  /**
   * One-hot groups for the ψ reparameterisation (qian-liu2014 §3.1–3.2): `oneHotGroups[v]` is
   * the group of original variable v (an integer ≥ 0, e.g. the token of a label indicator), or
   * −1 for none. Pass it only when the function is used on assignments where **every group has
   * exactly one variable at 1**: where a pair of variables in groups g ≠ h keeps a positive
   * coefficient, ψ_gh·(1 − Σ_{s∈g} x_s · Σ_{t∈h} x_t) is added (zero on one-hot assignments), with
   * ψ_gh the smallest value that makes every pair of g × h non-positive; a positive pair inside
   * one group is dropped (x_s·x_t = 0 there).
   */
  readonly oneHotGroups?: ArrayLike<number>;
  /**
   * A pair coefficient that stays positive but within `tolerance` × (the sum of the magnitudes
   * that made it) is rounding noise and set to 0; it changes no energy by more than itself.
   * Default 1e-9.
   */
  readonly tolerance?: number;
  /** Names variables in error messages (default `x7`). */
  readonly variableName?: (variable: number) => string;
}

/** One ψ of the reparameterisation: `value·(1 − Σ_{s∈groupA} x_s · Σ_{t∈groupB} x_t)` was added. */
export interface PsiEntry {
  readonly groupA: number;
  readonly groupB: number;
  readonly value: number;
}

/** What {@link reduceToQuadratic} returns. */
export interface QuadraticReduction {
  /**
   * The reduced function over `numOriginal + numAuxiliary` variables: the original variables
   * first (same indices), then the auxiliaries. Every pair coefficient is ≤ 0 (submodular).
   */
  readonly quadratic: QuadraticPseudoBoolean;
  readonly numOriginal: number;
  readonly numAuxiliary: number;
  /**
   * True when `f(x) = min_aux Q(x, aux)` for every x ∈ {0,1}^numOriginal. False when ψ or a
   * dropped same-group pair was needed: the equality then holds on one-hot assignments only, and
   * min Q over all assignments is a lower bound on the one-hot minimum of f.
   */
  readonly exact: boolean;
  /** The ψ values added, one per pair of groups that needed one (empty when exact). */
  readonly psi: readonly PsiEntry[];
  /** Positive same-group pairs set to 0 under the one-hot assumption. */
  readonly droppedSameGroupPairs: number;
}

/**
 * Reduces a pseudo-Boolean energy (minimisation) to a submodular quadratic one, the form a
 * minimum s-t cut minimises exactly. Terms over the same variables and values are merged first;
 * then each term `a·Π ℓ_v` of order k ≥ 3 whose literals ℓ_v (x_v for value 1, 1 − x_v for 0)
 * all have one polarity is reduced:
 *
 * - **a < 0: Freedman–Drineas**, one auxiliary u:
 *   `a·Π ℓ = min_u a·u·(Σ ℓ − k + 1)`; its pairs a·ℓ_v·u are ≤ 0. Exact on its own.
 * - **a > 0: Živný–Jeavons** (qian-liu2014 Prop. 1, eq. 8–9), k − 3 auxiliaries (one for k = 3):
 *   `a·Π ℓ = a·Σ_{v<w} ℓ_v·ℓ_w − a·p(ℓ)` with `−a·p` a minimum over auxiliaries of non-positive
 *   pairs. The leftover `+a·ℓ_v·ℓ_w` on every pair of the term must be cancelled by negative pair
 *   coefficients elsewhere (or by ψ): a positive term of order ≥ 2 is never submodular alone.
 *
 * A complemented polarity uses complemented auxiliaries, so the same holds for all-zero patterns.
 * A mixed pattern of order ≥ 3 is expanded exactly on its smaller side into uniform pieces.
 * Quadratic terms go straight to their pair. Every pair of original variables must end with a
 * coefficient ≤ 0, after the ψ reparameterisation when `oneHotGroups` is given; otherwise a
 * {@link NonRepresentableTermError} names the term that pushed the pair above 0. For functions of
 * monomials of order ≤ 3 this accepts exactly the submodular ones.
 */
export function reduceToQuadratic(
  f: PseudoBooleanFunction,
  options: ReduceOptions = {},
): QuadraticReduction {
  const store = termStore(f);
  const n = store.numVariables;
  const tolerance = options.tolerance ?? 1e-9;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new ProblemValidationError("tolerance", `must be finite and ≥ 0, got ${tolerance}`);
  }
  const groups = options.oneHotGroups;
  if (groups !== undefined) validateGroups(groups, n);
  const name = options.variableName ?? defaultName;

  const builder = new QuadraticBuilder(n, store.constant, store.linear);

  // Quadratic terms go to their pair; higher-order terms are merged by (variables, values).
  const merged = mergeHigherOrder(f);
  for (let t = 0; t < store.numTerms; t++) {
    const from = store.start[t]!;
    if (store.start[t + 1]! - from !== 2) continue;
    builder.product(
      store.coefficients[t]!,
      store.vars[from]!,
      store.values[from]!,
      store.vars[from + 1]!,
      store.values[from + 1]!,
    );
  }
  for (const term of merged) {
    if (term.coefficient === 0) continue;
    const failure = forEachPiece(term.coefficient, term.variables, term.values, (a, vs, vals) =>
      builder.piece(a, vs, vals),
    );
    if (failure !== undefined) {
      throw new NonRepresentableTermError(
        offending(term),
        undefined,
        undefined,
        `${describe(term, name)} cannot be made graph-representable: ${failure}`,
      );
    }
  }

  // Every pair of original variables must be ≤ 0.
  const positive: number[] = [];
  for (let slot = 0; slot < builder.numPairs; slot++) {
    if (builder.isAuxiliaryPair(slot)) continue;
    const q = builder.coefficient(slot);
    if (q <= 0) continue;
    if (q <= tolerance * builder.magnitude(slot)) builder.setCoefficient(slot, 0);
    else positive.push(slot);
  }

  const psi: PsiEntry[] = [];
  let dropped = 0;
  if (positive.length > 0) {
    if (groups === undefined) {
      throw pairError(f, merged, builder, largest(builder, positive), name, "");
    }
    const psiByGroups = new Map<string, PsiEntry>();
    for (const slot of positive) {
      const i = builder.first(slot);
      const j = builder.second(slot);
      const gi = groups[i]!;
      const gj = groups[j]!;
      if (gi < 0 || gj < 0) {
        const loose = gi < 0 ? i : j;
        throw pairError(
          f,
          merged,
          builder,
          slot,
          name,
          ` ${name(loose)} is in no one-hot group, so ψ cannot cancel it.`,
        );
      }
      if (gi === gj) {
        builder.setCoefficient(slot, 0);
        dropped++;
        continue;
      }
      const groupA = Math.min(gi, gj);
      const groupB = Math.max(gi, gj);
      const key = `${groupA},${groupB}`;
      const q = builder.coefficient(slot);
      const entry = psiByGroups.get(key);
      if (entry === undefined || entry.value < q)
        psiByGroups.set(key, { groupA, groupB, value: q });
    }
    if (psiByGroups.size > 0) {
      const members = groupMembers(groups, n);
      for (const entry of psiByGroups.values()) {
        psi.push(entry);
        for (const s of members.get(entry.groupA)!) {
          for (const t of members.get(entry.groupB)!) builder.addPair(s, t, -entry.value);
        }
        builder.constant += entry.value;
      }
      // ψ_gh is the largest positive coefficient of g × h, so that one is now exactly 0.
      for (const slot of positive) {
        if (builder.coefficient(slot) > 0) builder.setCoefficient(slot, 0);
      }
    }
  }

  return {
    quadratic: builder.finish(),
    numOriginal: n,
    numAuxiliary: builder.numAuxiliary,
    exact: psi.length === 0 && dropped === 0,
    psi,
    droppedSameGroupPairs: dropped,
  };
}

/** The one-hot groups of a token × label layout: variable `i·numLabels + s` is in group i. */
export function labelGroups(numTokens: number, numLabels: number): Int32Array {
  if (!Number.isSafeInteger(numTokens) || numTokens < 0) {
    throw new ProblemValidationError(
      "numTokens",
      `must be a non-negative integer, got ${numTokens}`,
    );
  }
  if (!Number.isSafeInteger(numLabels) || numLabels < 1) {
    throw new ProblemValidationError("numLabels", `must be a positive integer, got ${numLabels}`);
  }
  const groups = new Int32Array(numTokens * numLabels);
  for (let v = 0; v < groups.length; v++) groups[v] = Math.floor(v / numLabels);
  return groups;
}

function validateGroups(groups: ArrayLike<number>, n: number): void {
  if (groups.length !== n) {
    throw new ProblemValidationError(
      "oneHotGroups",
      `has ${groups.length} entries, the function ${n} variables (one group, or −1, per variable)`,
    );
  }
  for (let v = 0; v < n; v++) {
    const g = groups[v]!;
    if (!Number.isSafeInteger(g) || g < -1) {
      throw new ProblemValidationError(
        `oneHotGroups[${v}]`,
        `must be a group index ≥ 0 or −1 (no group), got ${g}`,
      );
    }
  }
}

function groupMembers(groups: ArrayLike<number>, n: number): Map<number, number[]> {
  const members = new Map<number, number[]>();
  for (let v = 0; v < n; v++) {
    const g = groups[v]!;
    if (g < 0) continue;
    const list = members.get(g);
    if (list === undefined) members.set(g, [v]);
    else list.push(v);
  }
  return members;
}

function largest(builder: QuadraticBuilder, slots: readonly number[]): number {
  let best = slots[0]!;
  for (const slot of slots) if (builder.coefficient(slot) > builder.coefficient(best)) best = slot;
  return best;
}
