import { NonRepresentableTermError, type OffendingTerm } from "./errors.js";
import {
  formatNumber,
  formatTerm,
  type PseudoBooleanFunction,
  type TermKind,
  termStore,
} from "./function.js";
import type { QuadraticBuilder } from "./quadratic-builder.js";

/**
 * A mixed pattern (some values 1, some 0) of order ≥ 3 is expanded on its smaller side into
 * 2^min(ones, zeros) uniform pieces; beyond this many, it is refused.
 */
export const MAX_MIXED_EXPANSION_SIDE = 12;

interface MergedTerm {
  readonly kind: TermKind;
  readonly variables: number[];
  readonly values: number[];
  coefficient: number;
  readonly termIndices: number[];
}

/** The stored terms of order ≥ 3, merged when they have the same variables and values. */
export function mergeHigherOrder(f: PseudoBooleanFunction): MergedTerm[] {
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
export function forEachPiece(
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

export function pairError(
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

export function offending(term: MergedTerm): OffendingTerm {
  return {
    kind: term.kind,
    variables: [...term.variables],
    values: [...term.values],
    coefficient: term.coefficient,
    termIndices: [...term.termIndices],
  };
}

export function describe(term: OffendingTerm, name: (v: number) => string): string {
  const indices = term.termIndices;
  const which =
    indices.length === 0
      ? "pair"
      : indices.length === 1
        ? `term #${indices[0]}`
        : `terms #${indices.join(", #")} (merged)`;
  return `${which} ${formatTerm(term, name)}`;
}
