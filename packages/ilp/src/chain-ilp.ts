import {
  type ChainScores,
  type LinearConstraint,
  ProblemValidationError,
  scoreLabelling,
  validateChainScores,
  validateConstraint,
} from "@lagrange/core";
import { transitionOffset } from "@lagrange/core/chain";
import { constraintActivity } from "@lagrange/core/dual-decomposition";
import { type MaxMarginals, maxMarginals } from "./chain-tables.js";
import { MipBuilder, type MipLimits, MipSolver } from "./mip-builder.js";

/**
 * How a soft constraint's penalty is paid. `hinge` (the meaning of {@link LinearConstraint}, and
 * Soft-DD's objective): c · max(0, a·y − b), through a continuous violation variable. `indicator`
 * (fersini2014's σ_h): c once when the constraint is violated at all, through a binary σ with a
 * big-M of (largest possible a·y) − b — computed from the constraint's own coefficients, so that σ
 * = 1 always relaxes it. The paper's σ with coefficient 1 cannot relax a rule whose left side
 * exceeds 1 (state change reaches 2, presence-and-precedence reaches n), which would make phase 2
 * infeasible by construction.
 */
export type SoftPenaltyForm = "hinge" | "indicator";

export interface IlpOptions {
  /** Wall-clock limit per problem, in milliseconds (default: none). */
  readonly timeLimitMs?: number;
  /** Relative MIP gap at which HiGHS stops (default 1e-9: solve to optimality). */
  readonly mipGap?: number;
  readonly softForm?: SoftPenaltyForm;
  /**
   * Remove, before the solve, every node and edge whose max-marginal is below the score any
   * optimum must reach (see {@link ChainIlpDecoding.kept}); exact, and the reason the ILP is fast.
   * Default true; false solves the full (n−1)·L² edge formulation.
   */
  readonly prune?: boolean;
}

export type IlpStatus = "optimal" | "time-limit" | "infeasible";

/** The outcome of one chain ILP. */
export interface ChainIlpResult {
  readonly status: IlpStatus;
  /** The best labelling found; null when the problem is infeasible or the limit hit before any. */
  readonly labels: Int32Array | null;
  /** Objective of `labels` recomputed from the scores and constraints (not HiGHS's float). */
  readonly objective: number;
  /** HiGHS's best proven bound on the objective (= objective when optimal). */
  readonly bound: number;
  /** Size of the ILP handed to HiGHS (0 columns: answered without it). */
  readonly columns: number;
  readonly rows: number;
  /** Share of nodes and edges the max-marginal bound left in the model, in [0, 1]. */
  readonly kept: number;
  readonly solveMs: number;
}

/** A row of the score bound `s(y) ≥ minScore` (two-phase ILP) and how to weigh the objective. */
export interface ChainObjective {
  /** Weight of the chain score s(y) in the objective (1 = maximise the score, 0 = ignore it). */
  readonly scoreWeight: number;
  /** Sign of soft penalties: −1 subtracts them from a maximised objective. */
  readonly penaltyWeight: number;
  /** Require s(y) ≥ minScore (−∞: no bound). */
  readonly minScore: number;
  /** Require Σ penalties ≤ maxPenalty (+∞: no bound); the tie-break of the two-phase ILP. */
  readonly maxPenalty: number;
  /** Keep only nodes and edges whose max-marginal reaches this (−∞: keep every feasible one). */
  readonly pruneBelow: number;
}

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * Chain MAP with linear constraints as an ILP over node indicators x[i,t] (binary) and edge
 * indicators e[i,a,b] (continuous: integral x force them). Rows: one label at position 0, and at
 * every i ≥ 1 flow conservation into and out of each node — the shortest-path polytope of
 * fersini2014 Eqs. 12–16 written on nodes, so that constraints over `i*L + t` are rows over x.
 */
export class ChainIlp {
  readonly #builder = new MipBuilder();
  readonly #solver = new MipSolver();

  /** Releases the native HiGHS instance now (it is released on garbage collection otherwise). */
  dispose(): void {
    this.#solver.dispose();
  }

  /**
   * Maximises scoreWeight·s(y) + penaltyWeight·Σ penalty(y) over valid labellings meeting every hard
   * constraint and the objective's bounds.
   */
  solve(
    scores: ChainScores,
    constraints: readonly LinearConstraint[],
    objective: ChainObjective,
    options: IlpOptions = {},
    /** The scores' max-marginals, when the caller has them (they depend on the scores alone). */
    tables: MaxMarginals = maxMarginals(scores),
  ): ChainIlpResult {
    const started = performance.now();
    const model = this.#build(scores, constraints, objective, options, tables);
    if (model === null) return infeasibleResult(performance.now() - started);
    // The limit covers the whole call: building the model counts too.
    const outcome = this.#solver.run(this.#builder, runLimits(options, started, model));
    const solveMs = performance.now() - started;
    const size = { columns: model.columns, rows: model.rows, kept: model.kept };
    if (outcome.status === "infeasible") return { ...infeasibleResult(solveMs), ...size };
    const labels = outcome.values === null ? null : labelsOf(outcome.values, model, scores);
    const form = options.softForm ?? "hinge";
    // The objective recomputed from the labels, not HiGHS's floating-point sum.
    const value =
      labels === null
        ? NEG_INF
        : objective.scoreWeight * scoreLabelling(scores, labels) +
          objective.penaltyWeight * softPenalty(constraints, labels, scores.L, form);
    const bound = outcome.status === "optimal" ? value : outcome.bound;
    return { status: outcome.status, labels, objective: value, bound, solveMs, ...size };
  }

  /**
   * Feasibility of subsets of `constraints` (hard ones: their penalties are ignored) together with
   * the transition mask and the score bound `s(y) ≥ minScore`: the model is built and handed to
   * HiGHS once, and each question relaxes the rows it leaves out. What a conflict search asks, many
   * times over one sentence. The answer holds the solver's model: ask it before this ChainIlp
   * solves anything else.
   */
  subsets(
    scores: ChainScores,
    constraints: readonly LinearConstraint[],
    minScore: number,
    tables: MaxMarginals = maxMarginals(scores),
  ): ConstraintSubsets {
    const hard = constraints.map(({ penalty: _, ...c }): LinearConstraint => c);
    const objective: ChainObjective = {
      scoreWeight: 0,
      penaltyWeight: 0,
      minScore,
      maxPenalty: Number.POSITIVE_INFINITY,
      pruneBelow: minScore,
    };
    const model = this.#build(scores, hard, objective, {}, tables);
    const rowOf = model?.constraintRow ?? new Int32Array(constraints.length).fill(-1);
    const relevant: number[] = [];
    // The place of constraint k's row among `rows` (−1: it has none).
    const slot = new Int32Array(constraints.length).fill(-1);
    for (let k = 0; k < constraints.length; k++) {
      if (rowOf[k]! >= 0) slot[k] = relevant.push(k) - 1;
    }
    const rows = Int32Array.from(relevant, (k) => rowOf[k]!);
    const upper = new Float64Array(rows.length);
    if (model !== null) this.#solver.load(this.#builder);
    return {
      relevant,
      feasible: (enabled, options = {}) => {
        const started = performance.now();
        if (model === null) return { status: "infeasible", labels: null };
        upper.fill(Number.POSITIVE_INFINITY);
        for (const k of enabled) {
          const at = slot[k] ?? -1;
          if (at >= 0) upper[at] = constraints[k]!.rhs;
        }
        const outcome = this.#solver.rerun(rows, upper, runLimits(options, started, model));
        if (outcome.status === "infeasible") return { status: "infeasible", labels: null };
        const labels = outcome.values === null ? null : labelsOf(outcome.values, model, scores);
        return { status: labels === null ? "time-limit" : "optimal", labels };
      },
    };
  }

  /**
   * Builds the ILP in this solver's builder; null when the mask forbids every labelling. Rows of
   * constraints that nothing left in the model can violate are left out.
   */
  #build(
    scores: ChainScores,
    constraints: readonly LinearConstraint[],
    objective: ChainObjective,
    options: IlpOptions,
    tables: MaxMarginals,
  ): BuiltModel | null {
    const { n, L } = scores;
    const form = options.softForm ?? "hinge";
    const { alpha, beta } = tables;
    const threshold = options.prune === false ? NEG_INF : objective.pruneBelow;
    const slack = 1e-9 * Math.max(1, Math.abs(threshold));
    const cut = threshold - slack;
    const { unary, transition, start, end, allowed } = scores;

    const builder = this.#builder.reset();
    const nodeColumn = new Int32Array(n * L).fill(-1);
    let keptItems = 0;
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < L; t++) {
        const marginal = alpha[i * L + t]! + beta[i * L + t]!;
        if (marginal === NEG_INF || marginal < cut) continue;
        let score = unary[i * L + t]!;
        if (i === 0) score += start?.[t] ?? 0;
        if (i === n - 1) score += end?.[t] ?? 0;
        nodeColumn[i * L + t] = builder.column(objective.scoreWeight * score, 0, 1, true);
        keptItems++;
      }
    }
    const totalItems = n * L + (n - 1) * L * L;
    if (tables.labels === null) return null;

    // One label at position 0 (flow conservation carries it to every position).
    const first = builder.row(1, 1);
    for (let t = 0; t < L; t++) {
      if (nodeColumn[t]! >= 0) builder.entry(first, nodeColumn[t]!, 1);
    }
    const scoreRow = objective.minScore > NEG_INF ? builder.row(objective.minScore, Infinity) : -1;
    if (scoreRow >= 0) {
      for (let i = 0; i < n; i++) {
        for (let t = 0; t < L; t++) {
          const column = nodeColumn[i * L + t]!;
          if (column < 0) continue;
          let score = unary[i * L + t]!;
          if (i === 0) score += start?.[t] ?? 0;
          if (i === n - 1) score += end?.[t] ?? 0;
          builder.entry(scoreRow, column, score);
        }
      }
    }
    const inRow = new Int32Array(L);
    const outRow = new Int32Array(L);
    for (let i = 1; i < n; i++) {
      const offset = transitionOffset(scores, i);
      for (let t = 0; t < L; t++) {
        const into = nodeColumn[i * L + t]!;
        inRow[t] = into >= 0 ? builder.row(0, 0) : -1;
        if (into >= 0) builder.entry(inRow[t]!, into, -1);
        const from = nodeColumn[(i - 1) * L + t]!;
        outRow[t] = from >= 0 ? builder.row(0, 0) : -1;
        if (from >= 0) builder.entry(outRow[t]!, from, -1);
      }
      for (let a = 0; a < L; a++) {
        if (nodeColumn[(i - 1) * L + a]! < 0) continue;
        const prefix = alpha[(i - 1) * L + a]!;
        for (let b = 0; b < L; b++) {
          if (nodeColumn[i * L + b]! < 0) continue;
          if (allowed !== undefined && allowed[a * L + b] === 0) continue;
          const trans = transition[offset + a * L + b]!;
          const marginal = prefix + trans + unary[i * L + b]! + beta[i * L + b]!;
          if (marginal < cut) continue;
          const edge = builder.column(objective.scoreWeight * trans, 0, 1, false);
          builder.entry(outRow[a]!, edge, 1);
          builder.entry(inRow[b]!, edge, 1);
          if (scoreRow >= 0) builder.entry(scoreRow, edge, trans);
          keptItems++;
        }
      }
    }

    const penaltyRow =
      objective.maxPenalty < Number.POSITIVE_INFINITY
        ? builder.row(-Infinity, objective.maxPenalty)
        : -1;
    const constraintRow = new Int32Array(constraints.length).fill(-1);
    for (let k = 0; k < constraints.length; k++) {
      const c = constraints[k]!;
      let most = 0;
      for (let j = 0; j < c.indices.length; j++) {
        if (nodeColumn[c.indices[j]!]! >= 0) most += Math.max(0, c.coefficients[j]!);
      }
      // Never violated by anything left in the model: no row needed.
      if (most <= c.rhs + 1e-12 * Math.max(1, Math.abs(c.rhs))) continue;
      const row = builder.row(-Infinity, c.rhs);
      constraintRow[k] = row;
      for (let j = 0; j < c.indices.length; j++) {
        const column = nodeColumn[c.indices[j]!]!;
        if (column >= 0) builder.entry(row, column, c.coefficients[j]!);
      }
      if (c.penalty === undefined) continue;
      const excess = most - c.rhs;
      const weight = objective.penaltyWeight * c.penalty;
      const violation =
        form === "hinge"
          ? builder.column(weight, 0, excess, false)
          : builder.column(weight, 0, 1, true);
      builder.entry(row, violation, form === "hinge" ? -1 : -excess);
      if (penaltyRow >= 0) builder.entry(penaltyRow, violation, c.penalty);
    }
    return {
      nodeColumn,
      constraintRow,
      columns: builder.columns,
      rows: builder.rows,
      entries: builder.entries,
      kept: keptItems / totalItems,
      boundRow: scoreRow >= 0 || penaltyRow >= 0,
    };
  }
}

/** What {@link ChainIlp.subsets} answers. */
export interface ConstraintSubsets {
  /**
   * Indices of the constraints that some labelling left in the model violates: the others hold
   * whatever is asked, so no conflict needs them.
   */
  readonly relevant: readonly number[];
  /**
   * Whether some labelling meets the `enabled` constraints (indices) and the score bound: its
   * labels when one is found, `time-limit` when the limit ended the search first.
   */
  feasible(
    enabled: Iterable<number>,
    options?: Pick<IlpOptions, "timeLimitMs">,
  ): { readonly status: IlpStatus; readonly labels: Int32Array | null };
}

/** A model in the builder: where its columns and rows are. */
interface BuiltModel {
  /** Column of node (i, t), −1 when pruned. */
  readonly nodeColumn: Int32Array;
  /** Row of each constraint, −1 when it needs none. */
  readonly constraintRow: Int32Array;
  readonly columns: number;
  readonly rows: number;
  readonly entries: number;
  /** Share of nodes and edges kept. */
  readonly kept: number;
  /** A row over every column bounds the score or the total penalty. */
  readonly boundRow: boolean;
}

/**
 * Above this many matrix entries, a model with a bound row over every column is solved by the
 * steps of HiGHS that watch the clock only (no presolve, no feasibility jump). On such models
 * presolve costs more than it saves (two-phase over 300 generated citations at τ = 0.001: 21.5 s
 * of solves with it, 11.1 s without; models under ~1,000 entries are the other way round) and it
 * does not look at the clock inside its steps: on one 51-token citation (104,480 columns) it ran
 * 7 s past a 1 s time limit. The feasibility jump then took another second before the first
 * check (0.5 s limit: 2.5 s with it, 1.1 s without).
 */
const CLOCKED_ONLY_ENTRIES_WITH_BOUND_ROW = 1000;

/** The limits of one HiGHS run: what is left of the time limit, and which steps to run. */
function runLimits(options: IlpOptions, started: number, model: BuiltModel): MipLimits {
  const clockedOnly = model.boundRow && model.entries > CLOCKED_ONLY_ENTRIES_WITH_BOUND_ROW;
  return {
    ...(options.mipGap === undefined ? {} : { mipGap: options.mipGap }),
    ...(options.timeLimitMs === undefined
      ? {}
      : { timeLimitMs: Math.max(1, options.timeLimitMs - (performance.now() - started)) }),
    clockedOnly,
  };
}

/** The labelling of HiGHS's column values: the node of each position set to 1. */
function labelsOf(values: Float64Array, model: BuiltModel, scores: ChainScores): Int32Array {
  const { n, L } = scores;
  const labels = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < L; t++) {
      const column = model.nodeColumn[i * L + t]!;
      if (column >= 0 && values[column]! > 0.5) labels[i] = t;
    }
  }
  if (labels.some((y) => y < 0)) {
    throw new Error("HiGHS returned a solution with no label at some position");
  }
  return labels;
}

function infeasibleResult(solveMs: number): ChainIlpResult {
  return {
    status: "infeasible",
    labels: null,
    objective: NEG_INF,
    bound: NEG_INF,
    columns: 0,
    rows: 0,
    kept: 0,
    solveMs,
  };
}

/** Σ over soft constraints of the penalty `form` charges; +∞ when a hard constraint is broken. */
export function softPenalty(
  constraints: readonly LinearConstraint[],
  labels: ArrayLike<number>,
  L: number,
  form: SoftPenaltyForm,
): number {
  let total = 0;
  for (const c of constraints) {
    const over = constraintActivity(c, labels, L) - c.rhs;
    if (over <= 1e-9 * Math.max(1, Math.abs(c.rhs))) continue;
    if (c.penalty === undefined) return Number.POSITIVE_INFINITY;
    total += form === "hinge" ? c.penalty * over : c.penalty;
  }
  return total;
}

/** Throws a ProblemValidationError when the scores or a constraint do not fit (n, L). */
export function validateIlpProblem(
  scores: ChainScores,
  constraints: readonly LinearConstraint[],
): void {
  validateChainScores(scores);
  constraints.forEach((c, k) => {
    validateConstraint(c, scores.n, scores.L, `problem.constraints[${k}]`);
  });
  if (scores.n < 1) throw new ProblemValidationError("problem.scores.n", "expected n ≥ 1");
}
