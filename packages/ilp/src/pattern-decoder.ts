import {
  type DecodeProblem,
  ProblemValidationError,
  scoreLabelling,
  throwIfAborted,
} from "@lagrange/core";
import { deadlineOf } from "@lagrange/core/dual-decomposition";
import { chainToFactorGraph, type Factor, factorScore } from "@lagrange/core/factor-graph";
import { maxMarginals } from "./chain-tables.js";
import type { FactorGraphIlp } from "./factor-graph-ilp.js";
import { decoding, type IlpDecodeOptions, type IlpDecoding } from "./ilp-decoding.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * Exact MAP of a chain plus higher-order pattern factors (a general CRF, qian-liu2014) by HiGHS:
 * the referee of the two-slave and naive-DD decoders. The Viterbi labelling scored with the
 * patterns is a lower bound B on the optimum; no pattern adds more than its best entry, so an
 * optimal labelling's chain score is at least B − Σ_c max(0, max_s φ_c[s], default_c). Every chain
 * node and edge whose max-marginal falls below that is left out (exact, as in the chain ILP), and
 * the rest goes to {@link FactorGraphIlp}. Without a pattern that can raise the score above the
 * Viterbi labelling's, Viterbi is optimal and no ILP runs.
 */
export function decodeWithPatterns(
  ilp: FactorGraphIlp,
  problem: DecodeProblem,
  options: IlpDecodeOptions | undefined,
): IlpDecoding {
  throwIfAborted(options?.signal);
  if ((problem.constraints?.length ?? 0) > 0) {
    throw new ProblemValidationError(
      "problem.constraints",
      "the exact decoder takes constraints or higher-order patterns, not both in one problem",
    );
  }
  const started = performance.now();
  const deadline = deadlineOf(options);
  const { scores } = problem;
  const { n, L } = scores;
  const patterns = problem.patterns ?? [];
  const tables = maxMarginals(scores);
  const viterbi = tables.labels;
  if (viterbi === null) return outcome("infeasible", new Int32Array(n).fill(-1), NEG_INF, NEG_INF);
  const domains = new Int32Array(n).fill(L);
  const objective = (y: ArrayLike<number>) => {
    let total = scoreLabelling(scores, y);
    for (const f of patterns) total += factorScore(f, y, domains);
    return total;
  };
  const lower = objective(viterbi);
  let headroom = 0;
  for (const f of patterns) {
    let best = f.defaultScore;
    for (let p = 0; p < f.scores.length; p++) best = Math.max(best, f.scores[p]!);
    if (best === NEG_INF) {
      return outcome("infeasible", new Int32Array(n).fill(-1), NEG_INF, NEG_INF);
    }
    headroom += best;
  }
  // Chain score + Σ patterns ≤ Viterbi score + headroom: nothing can beat the Viterbi labelling.
  if (tables.best + headroom <= lower) return outcome("optimal", viterbi.slice(), lower, lower);

  const threshold = lower - headroom - 1e-9 * Math.max(1, Math.abs(lower));
  const graph = chainToFactorGraph(scores);
  let kept = 0;
  const factors: Factor[] = graph.factors.map((factor) => {
    if (factor.kind === "unary") {
      const i = factor.variable;
      const row = factor.scores;
      for (let t = 0; t < L; t++) {
        if (tables.alpha[i * L + t]! + tables.beta[i * L + t]! < threshold) row[t] = NEG_INF;
        else kept++;
      }
      return factor;
    }
    if (factor.kind === "pairwise") {
      const i = factor.variables[1];
      const table = factor.scores;
      for (let a = 0; a < L; a++) {
        for (let b = 0; b < L; b++) {
          const through =
            tables.alpha[(i - 1) * L + a]! +
            table[a * L + b]! +
            scores.unary[i * L + b]! +
            tables.beta[i * L + b]!;
          if (through < threshold) table[a * L + b] = NEG_INF;
        }
      }
    }
    return factor;
  });
  const result = ilp.solve(
    { domainSizes: graph.domainSizes, factors: [...factors, ...patterns] },
    {
      // What is left of the sentence's deadline (n-best's earlier decodes may have used some).
      ...(deadline.limited ? { timeLimitMs: Math.max(1, deadline.remainingMs()) } : {}),
      ...(options?.mipGap === undefined ? {} : { mipGap: options.mipGap }),
    },
  );
  if (result.assignment === null) {
    // The pruned ILP always holds the Viterbi labelling; no assignment means the limit hit first.
    return outcome("time-limit", viterbi.slice(), lower, result.bound, 1, result.columns, kept);
  }
  const value = objective(result.assignment);
  const labels = value >= lower ? result.assignment : viterbi.slice();
  const primal = Math.max(value, lower);
  const dual = result.status === "optimal" ? primal : Math.max(primal, result.bound);
  return outcome(result.status, labels, primal, dual, 1, result.columns, kept);

  function outcome(
    status: IlpDecoding["status"],
    labels: Int32Array,
    primal: number,
    dual: number,
    solves = 0,
    columns = 0,
    keptNodes = n * L,
  ): IlpDecoding {
    const first = viterbi === null ? new Int32Array(n).fill(-1) : viterbi.slice();
    const solveMs = performance.now() - started;
    const kept = keptNodes / (n * L);
    return decoding({ status, labels, primal, dual, solves, solveMs, columns, kept }, first, [], L);
  }
}
