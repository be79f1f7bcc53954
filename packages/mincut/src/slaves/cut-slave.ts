import {
  ProblemValidationError,
  type Slave,
  type SlaveBinding,
  type SlaveResult,
} from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { MaxflowGraph, type MaxflowKernel } from "../maxflow/graph.js";
import { PseudoBooleanFunction } from "../pseudo-boolean/function.js";
import { labelGroups, reduceToQuadratic } from "../pseudo-boolean/reduce.js";
import { CutProjection } from "./cut-projection.js";
import { checkLabelCount, checkPatternFactor } from "./pattern-checks.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

export interface MinCutSlaveOptions {
  readonly name?: string;
  /** Max-flow kernel (default: WebAssembly where available). */
  readonly kernel?: MaxflowKernel;
  /**
   * Keep the search trees and flow between calls (default true): a dual-decomposition step only
   * changes terminal capacities, the case Boykov–Kolmogorov's reuse is made for.
   */
  readonly reuse?: boolean;
  /**
   * A linear term added to g: `linear[p*L + s]` times Z_{p,s} for global position p (length ≥
   * (max position + 1)·L). A decoder that gives the chain the opposite term starts the dual from
   * a reparameterisation instead of λ = 0 (see twoSlaveDecoder).
   */
  readonly linear?: Float64Array;
}

/** What the construction of a min-cut slave produced (for reports and tests). */
export interface MinCutSlaveStats {
  /** Positions the slave covers and its binary variables Z_{v,s} (positions × L). */
  readonly positions: number;
  readonly labelVariables: number;
  /** Auxiliary variables of the higher-order reductions. */
  readonly auxiliaries: number;
  readonly edges: number;
  /** Pairs of positions that needed ψ > 0 (§3.1): 0 means the relaxation has no ψ slack. */
  readonly psiPairs: number;
  /** Max-flow calls so far, by `maximize` and by `project` together. */
  readonly maxflowCalls: number;
  /** `project` calls so far. */
  readonly projections: number;
}

/** A min-cut slave: a relaxed core {@link Slave} (its results carry `indicators`) plus its stats. */
export interface MinCutSlave extends Slave {
  readonly stats: MinCutSlaveStats;
}

/** A min-cut slave and the global positions it covers (a core SlaveBinding). */
export interface MinCutSlaveBinding extends SlaveBinding {
  readonly slave: MinCutSlave;
  readonly positions: Int32Array;
}

/**
 * qian-liu2014's second slave (§3.2–3.3): max over Z ∈ {0,1}^{n×L} of
 *   g_λ(Z) = Σ_c Σ_{s∈c[·]} φ_c[s]·Π_{v∈c} Z_{v,s_v} + Σ_{v,s} λ_{v,s}·Z_{v,s}
 * for sparse pattern factors c over positions (their unlisted assignments score `defaultScore`).
 * Z is **not** one-hot, so the slave is relaxed: its result carries the indicator vector Z and the
 * master compares Z, not a labelling, with the chain (agreement then proves optimality).
 *
 * The energy −g is reduced once per problem to a submodular quadratic one (Freedman–Drineas for
 * positive patterns, Živný–Jeavons plus the ψ reparameterisation for negative ones; ψ only on pair
 * terms, so patterns stay sparse), and its s-t graph is built once. Each `maximize` only rewrites
 * the terminal capacities of the label variables (the multipliers enter linearly) and re-solves
 * with search-tree reuse. Ties go to the smallest Z (a variable is 1 only if every minimum cut puts
 * it on the sink side), so a label is switched on only when it strictly pays.
 * Its `project` (the master's AD3 step) is exact, by parametric minimum cuts on the same graph
 * (see CutProjection); `maximize` answers as before after it.
 *
 * `positions` of the returned binding are the sorted distinct variables of the factors; local
 * position j of the slave is global position `positions[j]`.
 */
export function minCutSlave(
  factors: readonly PatternFactor[],
  L: number,
  options: MinCutSlaveOptions = {},
): MinCutSlaveBinding {
  const name = options.name ?? "min-cut";
  checkLabelCount(L, name);
  if (factors.length === 0) {
    throw new ProblemValidationError(`${name}.factors`, "expected at least one pattern factor");
  }
  const positions = collectPositions(factors, L, name);
  const n = positions.length;
  const localOf = new Map<number, number>();
  for (const [j, p] of positions.entries()) localOf.set(p, j);

  // Flat copy of the factors over local label variables j*L + s, for scoring one-hot labellings.
  const scoring = flattenFactors(factors, localOf);

  // −g as an energy: constant −Σ default, and −(φ − default) on each listed pattern's monomial.
  const energy = new PseudoBooleanFunction(n * L);
  let defaults = 0;
  const monomial: number[] = [];
  for (const factor of factors) {
    const arity = factor.variables.length;
    defaults += factor.defaultScore;
    for (let p = 0; p < factor.scores.length; p++) {
      const a = factor.scores[p]! - factor.defaultScore;
      if (a === 0) continue;
      monomial.length = 0;
      for (let k = 0; k < arity; k++) {
        monomial.push(localOf.get(factor.variables[k]!)! * L + factor.patterns[p * arity + k]!);
      }
      energy.addMonomial(monomial, -a);
    }
  }
  energy.addConstant(-defaults);
  const linear = options.linear;
  if (linear !== undefined) {
    positions.forEach((p, j) => {
      for (let s = 0; s < L; s++) {
        const a = linear[p * L + s] ?? 0;
        if (a !== 0) energy.addLinear(j * L + s, -a);
      }
    });
  }
  const reduction = reduceToQuadratic(energy, {
    oneHotGroups: labelGroups(n, L),
    variableName: (v) =>
      v < n * L ? `Z[position ${positions[Math.floor(v / L)]}, label ${v % L}]` : `u${v - n * L}`,
  });
  const q = reduction.quadratic;
  const total = q.numVariables;

  // The graph of buildCutGraph, with the label variables' unary part kept apart so that each call
  // can rewrite their terminal capacities: x_i = 1 ⇔ node i on the sink side.
  const graph = new MaxflowGraph({
    nodes: total,
    edges: q.numPairs,
    ...(options.kernel === undefined ? {} : { kernel: options.kernel }),
  });
  graph.addNodes(total);
  const unary = Float64Array.from(q.linear);
  // Per label node, a terminal capacity above all its edges together: it forces the node's side.
  const big = new Float64Array(n * L).fill(1);
  let edges = 0;
  for (let p = 0; p < q.numPairs; p++) {
    const w = q.pairCoefficient[p]!;
    if (w === 0) continue;
    const i = q.pairFirst[p]!;
    const j = q.pairSecond[p]!;
    graph.addEdge(i, j, -w, 0);
    unary[j]! += w;
    if (i < n * L) big[i]! += 2 * Math.abs(w);
    if (j < n * L) big[j]! += 2 * Math.abs(w);
    edges++;
  }
  let fixedConstant = q.constant;
  for (let i = n * L; i < total; i++) {
    const c = unary[i]!;
    if (c > 0) graph.addTerminalWeights(i, c, 0);
    else if (c < 0) {
      graph.addTerminalWeights(i, 0, -c);
      fixedConstant += c;
    }
  }

  const reuse = options.reuse ?? true;
  const sourceSide = new Uint8Array(total);
  const indicators = new Uint8Array(n * L);
  const labels = new Int32Array(n);
  const result: { labels: Int32Array; value: number; indicators: Uint8Array } = {
    labels,
    value: NEG_INF,
    indicators,
  };
  let calls = 0;
  let projections = 0;
  // Built on the first projection: under the subgradient step a slave never projects.
  let projection: CutProjection | null = null;
  const stats = {
    positions: n,
    labelVariables: n * L,
    auxiliaries: reduction.numAuxiliary,
    edges,
    psiPairs: reduction.psi.length,
    get maxflowCalls() {
      return calls;
    },
    get projections() {
      return projections;
    },
  };

  const maximize = (adjustment: Float64Array): SlaveResult => {
    if (adjustment.length !== n * L) {
      throw new ProblemValidationError(
        `${name}.adjustment`,
        `expected length n·L = ${n * L}, got ${adjustment.length}`,
      );
    }
    let constant = fixedConstant;
    for (let i = 0; i < n * L; i++) {
      const c = unary[i]! - adjustment[i]!;
      if (c >= 0) graph.setTerminalWeights(i, c, 0);
      else {
        graph.setTerminalWeights(i, 0, -c);
        constant += c;
      }
    }
    const flow = graph.maxflow(reuse);
    calls++;
    graph.minCut("largest", sourceSide);
    for (let j = 0; j < n; j++) {
      labels[j] = -1;
      for (let s = 0; s < L; s++) {
        const on = sourceSide[j * L + s] === 0 ? 1 : 0;
        indicators[j * L + s] = on;
        if (on === 1 && labels[j] === -1) labels[j] = s;
      }
      if (labels[j] === -1) labels[j] = 0;
    }
    result.value = -(flow + constant);
    return result;
  };

  const slave: MinCutSlave = {
    name,
    n,
    L,
    maximize,
    project: (v, scale, out) => {
      if (v.length !== n * L || out.length !== n * L || !(scale > 0)) {
        throw new ProblemValidationError(
          `${name}.project`,
          `expected v and out of length n·L = ${n * L} and scale > 0, got ${v.length}, ${out.length}, ${scale}`,
        );
      }
      projection ??= new CutProjection({ graph, unary, fixedConstant, size: n * L, reuse }, big);
      projection.project(v, scale, out);
      calls += projection.calls;
      projections++;
    },
    score: (y) => {
      let total = scoreFlat(scoring, y, name, n);
      if (linear !== undefined) {
        for (let j = 0; j < n; j++) total += linear[positions[j]! * L + y[j]!] ?? 0;
      }
      return total;
    },
    stats,
  };
  return { slave, positions };
}

function collectPositions(factors: readonly PatternFactor[], L: number, name: string): Int32Array {
  const seen = new Set<number>();
  factors.forEach((factor, f) => {
    const at = `${name}.factors[${f}]`;
    checkPatternFactor(factor, L, at);
    // A cut has no infinite capacities: −∞, which the other slaves take, is refused here.
    for (let p = 0; p < factor.scores.length; p++) {
      if (!Number.isFinite(factor.scores[p]!)) {
        throw new ProblemValidationError(
          `${at}.scores[${p}]`,
          `expected a finite score (a min-cut slave has no −∞), got ${factor.scores[p]}`,
        );
      }
    }
    if (!Number.isFinite(factor.defaultScore)) {
      throw new ProblemValidationError(
        `${at}.defaultScore`,
        `expected a finite score (a min-cut slave has no −∞), got ${factor.defaultScore}`,
      );
    }
    for (const v of factor.variables) seen.add(v);
  });
  return Int32Array.from([...seen].sort((a, b) => a - b));
}

interface FlatFactors {
  /** Factor f spans entries factorStart[f] .. factorStart[f+1] of `patternStart`. */
  readonly factorStart: Int32Array;
  readonly arity: Int32Array;
  readonly defaultScore: Float64Array;
  /** Local positions of factor f's variables, from `variableStart[f]`. */
  readonly variableStart: Int32Array;
  readonly variables: Int32Array;
  /** Pattern p's labels from `p * arity` within its factor's block, from `valueStart[f]`. */
  readonly valueStart: Int32Array;
  readonly values: Int32Array;
  readonly scores: Float64Array;
}

function flattenFactors(
  factors: readonly PatternFactor[],
  localOf: ReadonlyMap<number, number>,
): FlatFactors {
  const F = factors.length;
  const factorStart = new Int32Array(F + 1);
  const variableStart = new Int32Array(F + 1);
  const valueStart = new Int32Array(F + 1);
  const arity = new Int32Array(F);
  const defaultScore = new Float64Array(F);
  factors.forEach((factor, f) => {
    arity[f] = factor.variables.length;
    defaultScore[f] = factor.defaultScore;
    factorStart[f + 1] = factorStart[f]! + factor.scores.length;
    variableStart[f + 1] = variableStart[f]! + factor.variables.length;
    valueStart[f + 1] = valueStart[f]! + factor.patterns.length;
  });
  const variables = new Int32Array(variableStart[F]!);
  const values = new Int32Array(valueStart[F]!);
  const scores = new Float64Array(factorStart[F]!);
  factors.forEach((factor, f) => {
    for (let k = 0; k < factor.variables.length; k++) {
      variables[variableStart[f]! + k] = localOf.get(factor.variables[k]!)!;
    }
    values.set(factor.patterns, valueStart[f]!);
    scores.set(factor.scores, factorStart[f]!);
  });
  return { factorStart, arity, defaultScore, variableStart, variables, valueStart, values, scores };
}

function scoreFlat(flat: FlatFactors, y: ArrayLike<number>, name: string, n: number): number {
  if (y.length !== n) {
    throw new ProblemValidationError(`${name}.labels`, `expected ${n} labels, got ${y.length}`);
  }
  let total = 0;
  const F = flat.arity.length;
  for (let f = 0; f < F; f++) {
    const k = flat.arity[f]!;
    const vars = flat.variableStart[f]!;
    let score = flat.defaultScore[f]!;
    for (
      let p = flat.factorStart[f]!, at = flat.valueStart[f]!;
      p < flat.factorStart[f + 1]!;
      p++
    ) {
      let match = true;
      for (let j = 0; j < k && match; j++)
        match = flat.values[at + j] === y[flat.variables[vars + j]!];
      at += k;
      if (match) {
        score = flat.scores[p]!;
        break;
      }
    }
    total += score;
  }
  return total;
}
