import { ProblemValidationError } from "@lagrange/core";
import { NonRepresentableTermError, type OffendingTerm } from "./errors.js";
import {
  defaultName,
  formatNumber,
  formatTerm,
  type PseudoBooleanFunction,
  type TermKind,
  termStore,
} from "./function.js";
import { GrowableFloat64, GrowableInt32 } from "./growable.js";
import { QuadraticPseudoBoolean } from "./quadratic.js";

/**
 * A mixed pattern (some values 1, some 0) of order ≥ 3 is expanded on its smaller side into
 * 2^min(ones, zeros) uniform pieces; beyond this many, it is refused.
 */
export const MAX_MIXED_EXPANSION_SIDE = 12;

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

// ---------------------------------------------------------------------------------------------

interface MergedTerm {
  readonly kind: TermKind;
  readonly variables: number[];
  readonly values: number[];
  coefficient: number;
  readonly termIndices: number[];
}

/** The stored terms of order ≥ 3, merged when they have the same variables and values. */
function mergeHigherOrder(f: PseudoBooleanFunction): MergedTerm[] {
  const store = termStore(f);
  const byKey = new Map<string, MergedTerm>();
  const out: MergedTerm[] = [];
  for (let t = 0; t < store.numTerms; t++) {
    const from = store.start[t]!;
    const to = store.start[t + 1]!;
    if (to - from < 3) continue;
    const order: number[] = [];
    for (let p = from; p < to; p++) order.push(p);
    order.sort((p, q) => store.vars[p]! - store.vars[q]!);
    const key = order.map((p) => `${store.vars[p]}${store.values[p] === 1 ? "+" : "-"}`).join(",");
    const existing = byKey.get(key);
    if (existing !== undefined) {
      existing.coefficient += store.coefficients[t]!;
      existing.termIndices.push(t);
      continue;
    }
    const term = f.term(t);
    const merged: MergedTerm = {
      kind: term.kind,
      variables: [...term.variables],
      values: [...term.values],
      coefficient: term.coefficient,
      termIndices: [t],
    };
    byKey.set(key, merged);
    out.push(merged);
  }
  return out;
}

/**
 * Splits `a·Π ℓ` into pieces the reductions take: of order ≤ 2, or of order ≥ 3 with one polarity.
 * A mixed term of order ≥ 3 is expanded exactly on its smaller side (zeros: 1 − x_v = Σ over
 * subsets with signs; ones: x_v = 1 − (1 − x_v)). Returns a reason when it refuses.
 */
function forEachPiece(
  a: number,
  variables: readonly number[],
  values: readonly number[],
  piece: (a: number, variables: readonly number[], values: readonly number[]) => void,
): string | undefined {
  const k = variables.length;
  let ones = 0;
  for (const b of values) ones += b;
  const zeros = k - ones;
  if (k <= 2 || ones === 0 || zeros === 0) {
    piece(a, variables, values);
    return undefined;
  }
  // Expand the literals of the smaller side: keep the other side's polarity in every piece.
  const expandValue = zeros <= ones ? 0 : 1;
  const side = Math.min(ones, zeros);
  if (side > MAX_MIXED_EXPANSION_SIDE) {
    return `a mixed pattern (${ones} ones, ${zeros} zeros) of order ≥ 3 is not submodular on its own; it is reduced by expanding its smaller side into 2^${side} pieces, more than the limit 2^${MAX_MIXED_EXPANSION_SIDE}`;
  }
  const kept: number[] = [];
  const expanded: number[] = [];
  for (let r = 0; r < k; r++) (values[r] === expandValue ? expanded : kept).push(variables[r]!);
  const keptValue = 1 - expandValue;
  for (let mask = 0; mask < 1 << side; mask++) {
    const vs = [...kept];
    let sign = 1;
    for (let r = 0; r < side; r++) {
      if ((mask >> r) & 1) {
        vs.push(expanded[r]!);
        sign = -sign;
      }
    }
    piece(sign * a, vs, new Array<number>(vs.length).fill(keptValue));
  }
  return undefined;
}

/** Accumulates the reduced quadratic function; pairs of original variables are merged. */
class QuadraticBuilder {
  constant: number;
  readonly #n: number;
  readonly #linear: GrowableFloat64;
  readonly #first = new GrowableInt32();
  readonly #second = new GrowableInt32();
  readonly #coefficient = new GrowableFloat64();
  readonly #magnitude = new GrowableFloat64();
  readonly #slotOf = new Map<number, number>();
  numAuxiliary = 0;

  constructor(n: number, constant: number, linear: Float64Array) {
    this.#n = n;
    this.constant = constant;
    this.#linear = new GrowableFloat64(n + 16);
    this.#linear.resize(n);
    this.#linear.view().set(linear.subarray(0, n));
  }

  get numPairs(): number {
    return this.#coefficient.length;
  }
  first(slot: number): number {
    return this.#first.get(slot);
  }
  second(slot: number): number {
    return this.#second.get(slot);
  }
  coefficient(slot: number): number {
    return this.#coefficient.get(slot);
  }
  setCoefficient(slot: number, q: number): void {
    this.#coefficient.set(slot, q);
  }
  magnitude(slot: number): number {
    return this.#magnitude.get(slot);
  }
  isAuxiliaryPair(slot: number): boolean {
    return this.#second.get(slot) >= this.#n;
  }

  newAuxiliary(): number {
    this.#linear.push(0);
    return this.#n + this.numAuxiliary++;
  }

  /** c·x_i·x_j for original i ≠ j (merged per unordered pair). */
  addPair(i: number, j: number, c: number): void {
    if (i > j) [i, j] = [j, i];
    const key = i * this.#n + j;
    let slot = this.#slotOf.get(key);
    if (slot === undefined) {
      slot = this.#coefficient.length;
      this.#slotOf.set(key, slot);
      this.#first.push(i);
      this.#second.push(j);
      this.#coefficient.push(0);
      this.#magnitude.push(0);
    }
    this.#coefficient.add(slot, c);
    this.#magnitude.add(slot, Math.abs(c));
  }

  /** c·ℓ for the literal ℓ = x_v (value 1) or 1 − x_v (value 0). */
  literal(c: number, v: number, value: number): void {
    if (value === 1) this.#linear.add(v, c);
    else {
      this.constant += c;
      this.#linear.add(v, -c);
    }
  }

  /** c·ℓ_i·ℓ_j in x coordinates; j may be an auxiliary (its pairs are never merged). */
  product(c: number, i: number, vi: number, j: number, vj: number): void {
    if (vi === 1 && vj === 0) this.#linear.add(i, c);
    else if (vi === 0 && vj === 1) this.#linear.add(j, c);
    else if (vi === 0 && vj === 0) {
      this.constant += c;
      this.#linear.add(i, -c);
      this.#linear.add(j, -c);
    }
    const q = vi === vj ? c : -c;
    if (j >= this.#n) {
      this.#first.push(i);
      this.#second.push(j);
      this.#coefficient.push(q);
      this.#magnitude.push(Math.abs(q));
    } else this.addPair(i, j, q);
  }

  /** One piece from `forEachPiece`: order ≤ 2, or order ≥ 3 with one polarity. */
  piece(a: number, vs: readonly number[], vals: readonly number[]): void {
    const k = vs.length;
    if (a === 0) return;
    if (k === 0) {
      this.constant += a;
      return;
    }
    if (k === 1) {
      this.literal(a, vs[0]!, vals[0]!);
      return;
    }
    if (k === 2) {
      this.product(a, vs[0]!, vals[0]!, vs[1]!, vals[1]!);
      return;
    }
    const p = vals[0]!; // one polarity; auxiliaries take it too, so their pairs stay ≤ 0
    if (a < 0) {
      // Freedman–Drineas: a·Π ℓ = min_u a·u·(Σ ℓ − k + 1).
      const u = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(a, vs[r]!, p, u, p);
      this.literal(a * (1 - k), u, p);
      return;
    }
    // Živný–Jeavons: a·Π ℓ = a·Σ_{r<s} ℓ_r·ℓ_s − a·p(ℓ), with S = Σ ℓ and
    // p = max_y (S − 1)·y (k = 3), p = max_{y0} y0·(2S − 3) + Σ_{j=1}^{k−4} max_{yj} yj·(S − j − 2).
    for (let r = 0; r < k; r++) {
      for (let s = r + 1; s < k; s++) this.product(a, vs[r]!, p, vs[s]!, p);
    }
    if (k === 3) {
      const y = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(-a, vs[r]!, p, y, p);
      this.literal(a, y, p);
      return;
    }
    const y0 = this.newAuxiliary();
    for (let r = 0; r < k; r++) this.product(-2 * a, vs[r]!, p, y0, p);
    this.literal(3 * a, y0, p);
    for (let j = 1; j <= k - 4; j++) {
      const y = this.newAuxiliary();
      for (let r = 0; r < k; r++) this.product(-a, vs[r]!, p, y, p);
      this.literal(a * (j + 2), y, p);
    }
  }

  finish(): QuadraticPseudoBoolean {
    let m = 0;
    for (let slot = 0; slot < this.numPairs; slot++) if (this.#coefficient.get(slot) !== 0) m++;
    const pairFirst = new Int32Array(m);
    const pairSecond = new Int32Array(m);
    const pairCoefficient = new Float64Array(m);
    let p = 0;
    for (let slot = 0; slot < this.numPairs; slot++) {
      const q = this.#coefficient.get(slot);
      if (q === 0) continue;
      if (q > 0) {
        throw new Error(
          `internal error: pair (x${this.first(slot)}, x${this.second(slot)}) kept coefficient ${q} > 0`,
        );
      }
      pairFirst[p] = this.#first.get(slot);
      pairSecond[p] = this.#second.get(slot);
      pairCoefficient[p++] = q;
    }
    return new QuadraticPseudoBoolean({
      numVariables: this.#n + this.numAuxiliary,
      constant: this.constant,
      linear: this.#linear.toArray(),
      pairFirst,
      pairSecond,
      pairCoefficient,
    });
  }
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

interface Contribution {
  readonly term: OffendingTerm;
  readonly amount: number;
  readonly how: string;
}

/** What each term adds to the coefficient of x_i·x_j, replaying the reductions for that pair. */
function contributions(
  f: PseudoBooleanFunction,
  merged: readonly MergedTerm[],
  i: number,
  j: number,
): Contribution[] {
  const store = termStore(f);
  const out: Contribution[] = [];
  for (let t = 0; t < store.numTerms; t++) {
    const from = store.start[t]!;
    if (store.start[t + 1]! - from !== 2) continue;
    const u = store.vars[from]!;
    const v = store.vars[from + 1]!;
    if (!((u === i && v === j) || (u === j && v === i))) continue;
    const a = store.coefficients[t]!;
    const same = store.values[from] === store.values[from + 1];
    const { index, ...term } = f.term(t);
    out.push({ term: { ...term, termIndices: [index] }, amount: same ? a : -a, how: "" });
  }
  for (const term of merged) {
    if (!term.variables.includes(i) || !term.variables.includes(j) || term.coefficient === 0) {
      continue;
    }
    let amount = 0;
    let zivny = 0;
    forEachPiece(term.coefficient, term.variables, term.values, (a, vs, vals) => {
      if (!vs.includes(i) || !vs.includes(j)) return;
      if (vs.length === 2) amount += vals[0] === vals[1] ? a : -a;
      else if (a > 0) {
        amount += a;
        zivny += a;
      }
    });
    if (amount === 0) continue;
    const expanded = term.values.includes(0) && term.values.includes(1);
    const how = expanded
      ? " (through its exact expansion into uniform pieces)"
      : zivny > 0
        ? " (the pairs Živný–Jeavons leaves behind)"
        : "";
    out.push({ term: offending(term), amount, how });
  }
  return out;
}

function pairError(
  f: PseudoBooleanFunction,
  merged: readonly MergedTerm[],
  builder: QuadraticBuilder,
  slot: number,
  name: (v: number) => string,
  extra: string,
): NonRepresentableTermError {
  const i = builder.first(slot);
  const j = builder.second(slot);
  const q = builder.coefficient(slot);
  const all = contributions(f, merged, i, j);
  const positive = all.filter((c) => c.amount > 0).sort((a, b) => b.amount - a.amount);
  const blamed = positive[0];
  const pair = `${name(i)}·${name(j)}`;
  const others = all
    .filter((c) => c !== blamed)
    .slice(0, 4)
    .map((c) => `${formatNumber(c.amount)} from ${describe(c.term, name)}`);
  const more = all.length - 1 > others.length ? `, and ${all.length - 1 - others.length} more` : "";
  const term: OffendingTerm = blamed?.term ?? {
    kind: "monomial",
    variables: [i, j],
    values: [1, 1],
    coefficient: q,
    termIndices: [],
  };
  const message =
    `${describe(term, name)} cannot be made graph-representable for minimisation: after every ` +
    `reduction the pair ${pair} keeps the coefficient ${formatNumber(q)} > 0 (not submodular; a ` +
    `minimum cut needs every pair ≤ 0). This term adds ${formatNumber(blamed?.amount ?? q)}` +
    `${blamed?.how ?? ""}${others.length > 0 ? `; other terms on the pair: ${others.join("; ")}${more}` : ""}.` +
    `${extra} Negative monomials (and one-polarity patterns) of any order are representable; a positive one of order ≥ 2 needs ` +
    `negative pair terms at least as large as its coefficient on each of its pairs${
      extra === "" ? ", or one-hot groups (oneHotGroups) for the ψ reparameterisation" : ""
    }.`;
  return new NonRepresentableTermError(term, [i, j], q, message);
}

function offending(term: MergedTerm): OffendingTerm {
  return {
    kind: term.kind,
    variables: [...term.variables],
    values: [...term.values],
    coefficient: term.coefficient,
    termIndices: [...term.termIndices],
  };
}

function describe(term: OffendingTerm, name: (v: number) => string): string {
  const indices = term.termIndices;
  const which =
    indices.length === 0
      ? "pair"
      : indices.length === 1
        ? `term #${indices[0]}`
        : `terms #${indices.join(", #")} (merged)`;
  return `${which} ${formatTerm(term, name)}`;
}
