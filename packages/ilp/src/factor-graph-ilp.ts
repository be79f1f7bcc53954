import {
  type FactorGraph,
  scoreAssignment,
  validateFactorGraph,
} from "@lagrange/core/factor-graph";
import type { IlpOptions, IlpStatus } from "./chain-ilp.js";
import { MipBuilder, MipSolver } from "./mip-builder.js";

/** The MAP assignment of a factor graph, solved exactly by HiGHS. */
export interface FactorGraphIlpResult {
  readonly status: IlpStatus;
  /** One value per variable; null when infeasible or the limit hit before any assignment. */
  readonly assignment: Int32Array | null;
  /** `scoreAssignment(graph, assignment)` (−∞ when there is none). */
  readonly value: number;
  /** HiGHS's best proven upper bound on the optimum (= value when optimal). */
  readonly bound: number;
  readonly columns: number;
  readonly rows: number;
  readonly solveMs: number;
}

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * Exact MAP of a factor graph (unary, pairwise and pattern factors — qian-liu2014's sparse
 * higher-order form) as an ILP: one binary x[v,s] per variable value with Σ_s x[v,s] = 1; a pairwise
 * table through continuous z[a,b] marginalising onto both variables (integral x force z); a pattern
 * p through a continuous w_p squeezed between "every variable takes its value" (w_p ≤ x[v_j, s_j])
 * and "all of them do" (w_p ≥ Σ_j x[v_j, s_j] − (k−1)), so w_p = 1 exactly when the pattern occurs.
 * A pattern factor scores `defaultScore + Σ_p (φ_p − defaultScore)·w_p`; −∞ entries fix their
 * indicator to 0, and a −∞ default requires one listed pattern (Σ_p w_p = 1). The min-cut package's
 * referee.
 */
export class FactorGraphIlp {
  readonly #builder = new MipBuilder();
  readonly #solver = new MipSolver();

  /** Releases the native HiGHS instance now (it is released on garbage collection otherwise). */
  dispose(): void {
    this.#solver.dispose();
  }

  solve(graph: FactorGraph, options: IlpOptions = {}): FactorGraphIlpResult {
    validateFactorGraph(graph);
    const started = performance.now();
    const { domainSizes, factors } = graph;
    const V = domainSizes.length;
    const builder = this.#builder.reset();
    const first = new Int32Array(V + 1);
    for (let v = 0; v < V; v++) first[v + 1] = first[v]! + domainSizes[v]!;
    const unaryScore = new Float64Array(first[V]!);
    let offset = 0;
    for (const f of factors) {
      if (f.kind !== "unary") continue;
      for (let s = 0; s < f.scores.length; s++) unaryScore[first[f.variable]! + s]! += f.scores[s]!;
    }
    for (let v = 0; v < V; v++) {
      const one = builder.row(1, 1);
      for (let s = 0; s < domainSizes[v]!; s++) {
        const score = unaryScore[first[v]! + s]!;
        const forbidden = score === NEG_INF;
        const column = builder.column(forbidden ? 0 : score, 0, forbidden ? 0 : 1, true);
        builder.entry(one, column, 1);
      }
    }
    const x = (v: number, s: number) => first[v]! + s;
    for (const f of factors) {
      if (f.kind === "pairwise") {
        const [u, w] = f.variables;
        const du = domainSizes[u]!;
        const dw = domainSizes[w]!;
        const rowOfU = Int32Array.from({ length: du }, (_, a) => {
          const r = builder.row(0, 0);
          builder.entry(r, x(u, a), -1);
          return r;
        });
        const rowOfW = Int32Array.from({ length: dw }, (_, b) => {
          const r = builder.row(0, 0);
          builder.entry(r, x(w, b), -1);
          return r;
        });
        for (let a = 0; a < du; a++) {
          for (let b = 0; b < dw; b++) {
            const score = f.scores[a * dw + b]!;
            // A forbidden pair is simply absent: its rows then keep the pair's values apart.
            if (score === NEG_INF) continue;
            const z = builder.column(score, 0, 1, false);
            builder.entry(rowOfU[a]!, z, 1);
            builder.entry(rowOfW[b]!, z, 1);
          }
        }
      } else if (f.kind === "pattern") {
        const k = f.variables.length;
        const count = f.scores.length;
        const defaultForbidden = f.defaultScore === NEG_INF;
        if (!defaultForbidden) offset += f.defaultScore;
        const exactlyOne = defaultForbidden ? builder.row(1, 1) : -1;
        for (let p = 0; p < count; p++) {
          const score = f.scores[p]!;
          const forbidden = score === NEG_INF;
          const gain = forbidden ? 0 : defaultForbidden ? score : score - f.defaultScore;
          const indicator = builder.column(gain, 0, forbidden ? 0 : 1, false);
          if (exactlyOne >= 0) builder.entry(exactlyOne, indicator, 1);
          const all = builder.row(-Infinity, k - 1);
          builder.entry(all, indicator, -1);
          for (let j = 0; j < k; j++) {
            const column = x(f.variables[j]!, f.patterns[p * k + j]!);
            const each = builder.row(-Infinity, 0);
            builder.entry(each, indicator, 1);
            builder.entry(each, column, -1);
            builder.entry(all, column, 1);
          }
        }
      }
    }

    const outcome = this.#solver.run(builder, options);
    const size = { columns: builder.columns, rows: builder.rows };
    const solveMs = performance.now() - started;
    if (outcome.status === "infeasible") {
      return {
        status: "infeasible",
        assignment: null,
        value: NEG_INF,
        bound: NEG_INF,
        ...size,
        solveMs,
      };
    }
    let assignment: Int32Array | null = null;
    if (outcome.values !== null) {
      const values = outcome.values;
      assignment = new Int32Array(V);
      for (let v = 0; v < V; v++) {
        for (let s = 0; s < domainSizes[v]!; s++) if (values[x(v, s)]! > 0.5) assignment[v] = s;
      }
    }
    const value = assignment === null ? NEG_INF : scoreAssignment(graph, assignment);
    // The pattern defaults are a constant the ILP leaves out of its objective.
    const bound = outcome.status === "optimal" ? value : outcome.bound + offset;
    return { status: outcome.status, assignment, value, bound, ...size, solveMs };
  }
}
