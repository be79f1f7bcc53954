/**
 * Random binary factor graphs for refereeing core's AD3 engine with HiGHS: each instance is built
 * once as a plain description, then both as core's `BinaryProblem` (AD3's logic, pair, dense and
 * linear-constraint factors) and as a MIP over the local polytope (each factor's own linear
 * description), solved by HiGHS as an LP (continuous: the relaxation AD3 solves) and as an ILP
 * (integer variables: the MAP). Test support only (not built, not published).
 */
import type { Random } from "@lagrange/core";
import {
  andOutFactor,
  atMostOneFactor,
  type BinaryFactor,
  type BinaryProblem,
  budgetFactor,
  denseFactor,
  implyFactor,
  knapsackFactor,
  linearConstraintFactor,
  orFactor,
  orOutFactor,
  pairFactor,
  xorFactor,
} from "@lagrange/core/dual-decomposition";
import { MipBuilder, MipSolver } from "../mip-builder.js";

export const LOGIC_KINDS = [
  "xor",
  "atMostOne",
  "or",
  "orOut",
  "andOut",
  "imply",
  "budget",
] as const;
export type LogicKind = (typeof LOGIC_KINDS)[number];

/** One factor of an instance, over global binary variables. */
export type FactorSpec =
  | {
      readonly kind: LogicKind;
      readonly variables: Int32Array;
      readonly negated: Uint8Array;
      /** budget only. */
      readonly budget?: number;
    }
  | {
      readonly kind: "knapsack";
      readonly variables: Int32Array;
      readonly negated: Uint8Array;
      readonly costs: Float64Array;
      readonly budget: number;
    }
  | { readonly kind: "pair"; readonly variables: Int32Array; readonly score: number }
  | {
      /** Over the concatenated one-hot blocks of some multi-valued variables. */
      readonly kind: "dense";
      readonly variables: Int32Array;
      readonly cardinalities: Int32Array;
      readonly scores: Float64Array;
    }
  | {
      /** a·z ≤ rhs: hard without penalty, else the score −penalty·max(0, a·z − rhs). */
      readonly kind: "linear";
      readonly variables: Int32Array;
      readonly coefficients: Float64Array;
      readonly rhs: number;
      readonly penalty?: number;
    };

export interface BinaryInstance {
  readonly variables: number;
  readonly unary: Float64Array;
  /** One-hot blocks of the multi-valued variables (each also carries an XOR factor). */
  readonly oneHot: readonly Int32Array[];
  readonly factors: readonly FactorSpec[];
}

export interface InstanceShape {
  /** Plain binary variables (besides the one-hot blocks). Default 3..8. */
  readonly binaries?: readonly [number, number];
  /** Multi-valued variables. Default 0..3. */
  readonly multi?: readonly [number, number];
  /** Their cardinalities. Default 2..3. */
  readonly cardinality?: readonly [number, number];
  /** Random factors besides the one-hot XORs. Default 2..7. */
  readonly factors?: readonly [number, number];
  /** Largest arity of a logic factor. Default 4. */
  readonly maxArity?: number;
  /** The kinds random factors are drawn from (repeat one to weigh it). Default: every kind. */
  readonly kinds?: readonly FactorSpec["kind"][];
}

const ALL_KINDS: readonly FactorSpec["kind"][] = [
  ...LOGIC_KINDS,
  "knapsack",
  "pair",
  "pair",
  "dense",
  "dense",
  "linear",
];

const literal = (z: ArrayLike<number>, variable: number, negated: number): number =>
  negated === 1 ? 1 - z[variable]! : z[variable]!;

/**
 * A random instance with a planted feasible assignment: every hard factor's negations (or budget,
 * or right side) are drawn and then adjusted so that the planted assignment meets it, so the ILP is
 * always feasible and AD3's relaxation has a finite value.
 */
export function randomBinaryInstance(random: Random, shape: InstanceShape = {}): BinaryInstance {
  const [bLo, bHi] = shape.binaries ?? [3, 8];
  const [mLo, mHi] = shape.multi ?? [0, 3];
  const [cLo, cHi] = shape.cardinality ?? [2, 3];
  const [fLo, fHi] = shape.factors ?? [2, 7];
  const maxArity = shape.maxArity ?? 4;
  const binaries = random.int(bLo, bHi);
  const multi = random.int(mLo, mHi);
  const oneHot: Int32Array[] = [];
  let variables = binaries;
  for (let m = 0; m < multi; m++) {
    const card = random.int(cLo, cHi);
    oneHot.push(Int32Array.from({ length: card }, (_, s) => variables + s));
    variables += card;
  }
  const planted = new Uint8Array(variables);
  for (let i = 0; i < binaries; i++) planted[i] = random.bool() ? 1 : 0;
  for (const block of oneHot) planted[block[random.int(0, block.length - 1)]!] = 1;
  const unary = new Float64Array(variables);
  for (let i = 0; i < variables; i++) unary[i] = random.float(-2, 2);

  const factors: FactorSpec[] = oneHot.map((block) => ({
    kind: "xor",
    variables: block,
    negated: new Uint8Array(block.length),
  }));
  const distinct = (k: number): Int32Array => {
    const pool = Int32Array.from({ length: variables }, (_, i) => i);
    for (let j = 0; j < k; j++) {
      const r = random.int(j, variables - 1);
      const t = pool[j]!;
      pool[j] = pool[r]!;
      pool[r] = t;
    }
    return pool.slice(0, k);
  };
  const lit = (vars: Int32Array, negated: Uint8Array, j: number) =>
    literal(planted, vars[j]!, negated[j]!);
  const count = random.int(fLo, fHi);
  for (let f = 0; f < count; f++) {
    const kind = random.pick(shape.kinds ?? ALL_KINDS);
    if (kind === "pair") {
      factors.push({ kind, variables: distinct(2), score: random.float(-3, 3) });
      continue;
    }
    if (kind === "dense") {
      if (oneHot.length < 2) {
        factors.push({ kind: "pair", variables: distinct(2), score: random.float(-3, 3) });
        continue;
      }
      const a = random.int(0, oneHot.length - 1);
      let b = random.int(0, oneHot.length - 2);
      if (b >= a) b++;
      const blocks = [oneHot[a]!, oneHot[b]!];
      const cardinalities = Int32Array.from(blocks, (block) => block.length);
      const scores = new Float64Array(cardinalities[0]! * cardinalities[1]!);
      for (let c = 0; c < scores.length; c++) scores[c] = random.float(-3, 3);
      const vars = new Int32Array(cardinalities[0]! + cardinalities[1]!);
      vars.set(blocks[0]!, 0);
      vars.set(blocks[1]!, cardinalities[0]!);
      factors.push({ kind, variables: vars, cardinalities, scores });
      continue;
    }
    const k = random.int(
      kind === "orOut" || kind === "andOut" || kind === "imply" ? 2 : 1,
      Math.min(maxArity, variables),
    );
    const vars = distinct(k);
    if (kind === "linear") {
      const coefficients = Float64Array.from({ length: k }, () =>
        random.pick([-2, -1, 1, 1, 2, 0.5]),
      );
      let activity = 0;
      for (let j = 0; j < k; j++) activity += coefficients[j]! * planted[vars[j]!]!;
      const hard = random.bool();
      const rhs = hard ? activity + random.pick([0, 0, 0.5, 1]) : activity + random.int(-2, 1);
      factors.push(
        hard
          ? { kind, variables: vars, coefficients, rhs }
          : { kind, variables: vars, coefficients, rhs, penalty: random.float(0.1, 3) },
      );
      continue;
    }
    const negated = Uint8Array.from({ length: k }, () => (random.bool() ? 1 : 0));
    const flipTo = (j: number, value: number) => {
      if (lit(vars, negated, j) !== value) negated[j] = 1 - negated[j]!;
    };
    let on = 0;
    for (let j = 0; j < k; j++) on += lit(vars, negated, j);
    switch (kind) {
      case "xor": {
        const one = random.int(0, k - 1);
        for (let j = 0; j < k; j++) flipTo(j, j === one ? 1 : 0);
        break;
      }
      case "atMostOne":
        for (let j = 0, seen = 0; j < k; j++) {
          if (lit(vars, negated, j) === 1 && seen++ > 0) flipTo(j, 0);
        }
        break;
      case "or":
        if (on === 0) flipTo(random.int(0, k - 1), 1);
        break;
      case "orOut":
      case "andOut": {
        let out = kind === "orOut" ? 0 : 1;
        for (let j = 0; j < k - 1; j++) {
          const v = lit(vars, negated, j);
          out = kind === "orOut" ? Math.max(out, v) : Math.min(out, v);
        }
        flipTo(k - 1, out);
        break;
      }
      case "imply": {
        let premises = 1;
        for (let j = 0; j < k - 1; j++) premises = Math.min(premises, lit(vars, negated, j));
        if (premises === 1) flipTo(k - 1, 1);
        break;
      }
      case "budget":
        factors.push({
          kind,
          variables: vars,
          negated,
          budget: Math.min(k, on + random.int(0, 1)),
        });
        continue;
      case "knapsack": {
        const costs = Float64Array.from({ length: k }, () => random.float(0.1, 2));
        let used = 0;
        for (let j = 0; j < k; j++) used += costs[j]! * lit(vars, negated, j);
        factors.push({ kind, variables: vars, negated, costs, budget: used + random.float(0, 1) });
        continue;
      }
    }
    factors.push({ kind, variables: vars, negated });
  }
  return { variables, unary, oneHot, factors };
}

/** The factor a spec stands for in core's AD3. */
export function ad3Factor(spec: FactorSpec): BinaryFactor {
  switch (spec.kind) {
    case "xor":
      return xorFactor(spec.variables.length, spec.negated);
    case "atMostOne":
      return atMostOneFactor(spec.variables.length, spec.negated);
    case "or":
      return orFactor(spec.variables.length, spec.negated);
    case "orOut":
      return orOutFactor(spec.variables.length, spec.negated);
    case "andOut":
      return andOutFactor(spec.variables.length, spec.negated);
    case "imply":
      return implyFactor(spec.variables.length, spec.negated);
    case "budget":
      return budgetFactor(spec.variables.length, spec.budget!, spec.negated);
    case "knapsack":
      return knapsackFactor(spec.costs, spec.budget, spec.negated);
    case "pair":
      return pairFactor(spec.score);
    case "dense":
      return denseFactor(spec.cardinalities, spec.scores);
    case "linear":
      return linearConstraintFactor({
        coefficients: spec.coefficients,
        rhs: spec.rhs,
        ...(spec.penalty === undefined ? {} : { penalty: spec.penalty }),
      });
  }
}

export function binaryProblem(instance: BinaryInstance): BinaryProblem {
  return {
    variables: instance.variables,
    unary: instance.unary,
    oneHot: instance.oneHot,
    factors: instance.factors.map((spec) => ({
      factor: ad3Factor(spec),
      variables: spec.variables,
    })),
  };
}

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * The objective of a 0/1 assignment from the specs alone (not from core's factors): −∞ when a hard
 * factor is violated.
 */
export function scoreAssignment(instance: BinaryInstance, z: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < instance.variables; i++) total += instance.unary[i]! * z[i]!;
  for (const spec of instance.factors) {
    const v = spec.variables;
    const k = v.length;
    if (spec.kind === "pair") {
      total += spec.score * z[v[0]!]! * z[v[1]!]!;
      continue;
    }
    if (spec.kind === "dense") {
      let index = 0;
      let at = 0;
      for (const card of spec.cardinalities) {
        let state = -1;
        for (let s = 0; s < card; s++) {
          if (z[v[at + s]!] === 1) state = state === -1 ? s : -2;
        }
        if (state < 0) return NEG_INF;
        index = index * card + state;
        at += card;
      }
      total += spec.scores[index]!;
      continue;
    }
    if (spec.kind === "linear") {
      let activity = 0;
      for (let j = 0; j < k; j++) activity += spec.coefficients[j]! * z[v[j]!]!;
      if (spec.penalty === undefined) {
        if (activity > spec.rhs + 1e-9) return NEG_INF;
      } else total -= spec.penalty * Math.max(0, activity - spec.rhs);
      continue;
    }
    const lits = Array.from({ length: k }, (_, j) => literal(z, v[j]!, spec.negated[j]!));
    const on = lits.reduce((a, b) => a + b, 0);
    const inputs = lits.slice(0, k - 1);
    const last = lits[k - 1]!;
    let ok: boolean;
    switch (spec.kind) {
      case "xor":
        ok = on === 1;
        break;
      case "atMostOne":
        ok = on <= 1;
        break;
      case "or":
        ok = on >= 1;
        break;
      case "orOut":
        ok = last === (inputs.some((x) => x === 1) ? 1 : 0);
        break;
      case "andOut":
        ok = last === (inputs.every((x) => x === 1) ? 1 : 0);
        break;
      case "imply":
        ok = !inputs.every((x) => x === 1) || last === 1;
        break;
      case "budget":
        ok = on <= spec.budget!;
        break;
      case "knapsack": {
        let used = 0;
        for (let j = 0; j < k; j++) used += spec.costs[j]! * lits[j]!;
        ok = used <= spec.budget + 1e-9;
        break;
      }
    }
    if (!ok) return NEG_INF;
  }
  return total;
}

/** Best assignment by enumeration (small instances: the referee's own referee). */
export function bruteForce(instance: BinaryInstance): number {
  const V = instance.variables;
  const z = new Uint8Array(V);
  let best = NEG_INF;
  for (let code = 0; code < 2 ** V; code++) {
    for (let i = 0; i < V; i++) z[i] = (code >>> i) & 1;
    const value = scoreAssignment(instance, z);
    if (value > best) best = value;
  }
  return best;
}

export interface LocalPolytopeOutcome {
  readonly status: "optimal" | "infeasible";
  readonly value: number;
  /** The binary variables' values (0/1 when integer). */
  readonly z: Float64Array | null;
}

/**
 * The instance as a MIP over the local polytope: one column per binary variable (integer when
 * `integer`), each factor by its linear description — a logic factor by the inequalities of its
 * polytope over literals (tight: those polytopes are integral), a knapsack and a linear constraint
 * by their single row over the box (their AD3 polytope), PAIR by the standard linearisation
 * y ≤ z_a, y ≤ z_b, y ≥ z_a + z_b − 1, DENSE by joint marginals μ summing to the blocks'
 * indicators, a soft constraint by a slack s ≥ a·z − rhs priced −penalty.
 */
export class LocalPolytopeReferee {
  readonly #builder = new MipBuilder();
  readonly #solver = new MipSolver();

  dispose(): void {
    this.#solver.dispose();
  }

  solve(instance: BinaryInstance, integer: boolean): LocalPolytopeOutcome {
    const b = this.#builder.reset();
    const V = instance.variables;
    for (let i = 0; i < V; i++) b.column(instance.unary[i]!, 0, 1, integer);
    /** Σ_j w_j·lit_j within [lo, hi]. */
    const literalRow = (
      vars: Int32Array,
      negated: Uint8Array,
      weights: ArrayLike<number>,
      lo: number,
      hi: number,
    ) => {
      let constant = 0;
      for (let j = 0; j < vars.length; j++) if (negated[j] === 1) constant += weights[j]!;
      const row = b.row(lo - constant, hi - constant);
      for (let j = 0; j < vars.length; j++) {
        b.entry(row, vars[j]!, negated[j] === 1 ? -weights[j]! : weights[j]!);
      }
    };
    const INF = Number.POSITIVE_INFINITY;
    for (const spec of instance.factors) {
      const v = spec.variables;
      const k = v.length;
      switch (spec.kind) {
        case "pair": {
          const y = b.column(spec.score, 0, 1, false);
          const [za, zb] = [v[0]!, v[1]!];
          let r = b.row(-INF, 0);
          b.entry(r, y, 1);
          b.entry(r, za, -1);
          r = b.row(-INF, 0);
          b.entry(r, y, 1);
          b.entry(r, zb, -1);
          r = b.row(-1, INF);
          b.entry(r, y, 1);
          b.entry(r, za, -1);
          b.entry(r, zb, -1);
          break;
        }
        case "dense": {
          const cards = spec.cardinalities;
          const total = spec.scores.length;
          const sum = b.row(1, 1);
          const first = b.columns;
          for (let c = 0; c < total; c++) b.entry(sum, b.column(spec.scores[c]!, 0, 1, false), 1);
          let at = 0;
          let stride = total;
          for (const card of cards) {
            stride /= card;
            for (let s = 0; s < card; s++) {
              const r = b.row(0, 0);
              b.entry(r, v[at + s]!, -1);
              for (let c = 0; c < total; c++) {
                if (Math.floor(c / stride) % card === s) b.entry(r, first + c, 1);
              }
            }
            at += card;
          }
          break;
        }
        case "linear": {
          const row = b.row(-INF, spec.rhs);
          for (let j = 0; j < k; j++) b.entry(row, v[j]!, spec.coefficients[j]!);
          if (spec.penalty !== undefined) b.entry(row, b.column(-spec.penalty, 0, INF, false), -1);
          break;
        }
        case "knapsack":
          literalRow(v, spec.negated, spec.costs, -INF, spec.budget);
          break;
        case "xor":
          literalRow(v, spec.negated, ones(k), 1, 1);
          break;
        case "atMostOne":
          literalRow(v, spec.negated, ones(k), -INF, 1);
          break;
        case "or":
          literalRow(v, spec.negated, ones(k), 1, INF);
          break;
        case "budget":
          literalRow(v, spec.negated, ones(k), -INF, spec.budget!);
          break;
        case "imply": {
          // Σ_{j<k} (1 − lit_j) + lit_k ≥ 1, i.e. lit_k − Σ_{j<k} lit_j ≥ 2 − k.
          const w = ones(k).map((_, j) => (j < k - 1 ? -1 : 1));
          literalRow(v, spec.negated, w, 2 - k, INF);
          break;
        }
        case "orOut":
        case "andOut": {
          // OR: out ≥ each input, out ≤ Σ inputs. AND: out ≤ each input, out ≥ Σ inputs − (k − 2).
          const or = spec.kind === "orOut";
          for (let j = 0; j < k - 1; j++) {
            const pair = Int32Array.of(v[j]!, v[k - 1]!);
            const neg = Uint8Array.of(spec.negated[j]!, spec.negated[k - 1]!);
            literalRow(pair, neg, [-1, 1], or ? 0 : -INF, or ? INF : 0);
          }
          const w = ones(k).map((_, j) => (j < k - 1 ? -1 : 1));
          literalRow(v, spec.negated, w, or ? -INF : 2 - k, or ? 0 : INF);
          break;
        }
      }
    }
    const outcome = this.#solver.run(b, {});
    if (outcome.status !== "optimal") return { status: "infeasible", value: NEG_INF, z: null };
    return {
      status: "optimal",
      value: outcome.bound,
      z: outcome.values === null ? null : outcome.values.slice(0, V),
    };
  }

  /**
   * The LP value and the ILP optimum. HiGHS's LP answer is a vertex: when its binary variables are
   * all 0/1 it is the ILP's optimum too, and the (ten times dearer) ILP solve is skipped.
   */
  both(instance: BinaryInstance): { lp: number; ilp: number } {
    const lp = this.solve(instance, false);
    if (lp.status !== "optimal" || lp.z === null) return { lp: lp.value, ilp: NEG_INF };
    const integral = lp.z.every((x) => Math.abs(x - Math.round(x)) <= 1e-9);
    if (integral) {
      const value = scoreAssignment(instance, lp.z.map(Math.round));
      if (Math.abs(value - lp.value) <= 1e-7 * Math.max(1, Math.abs(value))) {
        return { lp: lp.value, ilp: value };
      }
    }
    return { lp: lp.value, ilp: this.solve(instance, true).value };
  }
}

function ones(k: number): Float64Array {
  return new Float64Array(k).fill(1);
}
