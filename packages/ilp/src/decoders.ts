import {
  checkOptionBounds,
  type DecodeProblem,
  type DecoderDefinition,
  type DecoderOptionSpec,
  ProblemValidationError,
  scoreLabelling,
} from "@lagrange/core";
import { TIME_LIMIT_OPTION } from "@lagrange/core/dual-decomposition";
import { ChainIlp, type ChainIlpResult, softPenalty } from "./chain-ilp.js";
import { FactorGraphIlp } from "./factor-graph-ilp.js";
import { prepareIlp } from "./highs-runtime.js";
import { begin, cutShort, expired, finish, report, solveIn } from "./ilp-call.js";
import {
  DEFAULT_TAU,
  ILP_OPTION_BOUNDS,
  ILP_OPTION_RANGES,
  type IlpDecodeOptions,
  type IlpDecoder,
  type IlpDecoding,
  NEG_INF,
} from "./ilp-decoding.js";
import { decodeWithPatterns } from "./pattern-decoder.js";

/** `tau`: the two-phase bound s(y) ≥ Z* + log τ. */
const TAU_OPTION: DecoderOptionSpec = {
  name: "tau",
  key: "tau",
  type: "number",
  help: "labellings qualify when their probability is within a factor τ of the best, s(y) ≥ Z* + log τ",
  default: DEFAULT_TAU,
  min: ILP_OPTION_RANGES.minTau,
  max: 1,
};

/**
 * `exact`: the MAP labelling under hard and soft constraints, solved exactly by HiGHS — the referee
 * every relaxation is checked against. Two exact shortcuts keep it fast: when the Viterbi labelling
 * already meets every constraint it is optimal (no ILP); otherwise the Viterbi labelling's
 * objective is a lower bound on the optimum, and every node and edge whose max-marginal (the best
 * score through it) falls below it is left out of the ILP, since penalties only lower a score.
 */
export function exactIlpDecoder(name = "exact"): IlpDecoder {
  const ilp = new ChainIlp();
  let patternIlp: FactorGraphIlp | null = null;
  return {
    name,
    dispose: () => {
      ilp.dispose();
      patternIlp?.dispose();
    },
    decode(problem: DecodeProblem, options?: IlpDecodeOptions): IlpDecoding {
      if ((problem.patterns?.length ?? 0) > 0) {
        checkOptionBounds(ILP_OPTION_BOUNDS, options);
        patternIlp ??= new FactorGraphIlp();
        return decodeWithPatterns(patternIlp, problem, options);
      }
      const call = begin(ilp, problem, options, "hinge");
      if (!("tables" in call)) return call;
      const { constraints, L, tables, first, form, started } = call;
      const firstPenalty = softPenalty(constraints, first, L, form);
      if (firstPenalty === 0) {
        return report(call, {
          status: "optimal",
          labels: first.slice(),
          primal: tables.best,
          dual: tables.best,
          solves: 0,
          solveMs: performance.now() - started,
          columns: 0,
          kept: 1,
        });
      }
      // Widening: solve first over the labellings that score within δ of Viterbi. Its optimum O is
      // feasible, so it bounds the optimum from below; every labelling beating O scores above O,
      // so when O ≥ Z* − δ nothing outside the restricted ILP can beat it: O is optimal. Otherwise
      // widen (δ × 4), pruning by the better bound. Most sentences stop after one small ILP.
      let lowerBound = tables.best - firstPenalty;
      let delta = Math.min(tables.best - lowerBound, 1);
      let solves = 0;
      let result: ChainIlpResult;
      // The best labelling a restricted ILP found: what a widening cut short by the limit keeps.
      let incumbent: ChainIlpResult | null = null;
      for (;;) {
        // After a few widenings (or with no feasible labelling known), solve the whole problem.
        const threshold = solves >= 4 ? lowerBound : Math.max(lowerBound, tables.best - delta);
        result = solveIn(call, {
          scoreWeight: 1,
          penaltyWeight: -1,
          minScore: NEG_INF,
          maxPenalty: Number.POSITIVE_INFINITY,
          pruneBelow: threshold,
        });
        solves++;
        if (result.status === "time-limit") {
          const better = incumbent !== null && !(result.objective >= incumbent.objective);
          if (better) result = cutShort(call, incumbent!);
          break;
        }
        const whole = threshold <= lowerBound || !(threshold > NEG_INF);
        if (result.status === "optimal" && result.labels !== null) {
          lowerBound = Math.max(lowerBound, result.objective);
          if (whole || result.objective >= threshold - 1e-9 * Math.max(1, Math.abs(threshold)))
            break;
          incumbent = result;
        } else if (whole) {
          break; // infeasible over every labelling that could be optimal: a proof
        }
        if (expired(call)) {
          // Out of time before the widening proved anything: the best labelling so far.
          if (incumbent !== null) result = cutShort(call, incumbent);
          else result = { ...result, status: "time-limit", labels: null, bound: tables.best };
          break;
        }
        delta *= 4;
      }
      return finish(call, result, solves, NEG_INF);
    },
  };
}

/**
 * fersini2014's two-phase soft-constrained ILP. Phase 1: the Viterbi value Z* (the shortest-path
 * ILP of Eqs. 12–16 is Viterbi; footnote 3). Phase 2: among valid labellings whose score reaches
 * Z* + log τ — probability within a factor τ of the best — minimise the total cost Σ c_h σ_h of the
 * rules they break (σ_h binary, with a big-M from the rule's coefficients), then, among those of
 * least cost, take the highest score (the paper leaves ties open).
 *
 * Why not the paper's bound s(y) ≥ τ·Z*: the scores are unnormalised log-potentials of either sign.
 * When Z* < 0, τ·Z* > Z* for τ < 1 and nothing, not even the Viterbi labelling, qualifies; the
 * additive bound in log space means the same thing as a multiplicative bound on probabilities and
 * holds for any sign.
 */
export function twoPhaseIlpDecoder(name = "two-phase"): IlpDecoder {
  const ilp = new ChainIlp();
  return {
    name,
    dispose: () => ilp.dispose(),
    decode(problem: DecodeProblem, options?: IlpDecodeOptions): IlpDecoding {
      const tau = options?.tau ?? DEFAULT_TAU;
      const least = ILP_OPTION_RANGES.minTau;
      if (!(typeof tau === "number" && tau >= least && tau <= 1)) {
        throw new ProblemValidationError("options.tau", `expected ${least} ≤ τ ≤ 1, got ${tau}`);
      }
      const call = begin(ilp, problem, options, "indicator");
      if (!("tables" in call)) return call;
      const { scores, constraints, L, tables, first, form, started } = call;
      const firstCost = softPenalty(constraints, first, L, form);
      const best = tables.best;
      const minScore = best + Math.log(tau);
      const viterbi = (solves: number, size: { columns: number; kept: number }) =>
        report(call, {
          status: "optimal",
          labels: first.slice(),
          primal: best,
          dual: best,
          solves,
          solveMs: performance.now() - started,
          ...size,
          violationCost: firstCost,
        });
      if (firstCost === 0) return viterbi(0, { columns: 0, kept: 1 });
      const phase2 = solveIn(call, {
        scoreWeight: 0,
        penaltyWeight: -1,
        minScore,
        maxPenalty: Number.POSITIVE_INFINITY,
        pruneBelow: minScore,
      });
      if (phase2.status === "infeasible") return finish(call, phase2, 1, minScore);
      if (phase2.status !== "optimal" || phase2.labels === null) {
        // Stopped at the time limit: the best labelling so far (or Viterbi's when there is none),
        // reported like an optimal one — its score and its own violation cost — but uncertified.
        const labels = phase2.labels ?? first.slice();
        const score = scoreLabelling(scores, labels);
        return report(call, {
          status: "time-limit",
          labels,
          primal: score,
          dual: Number.POSITIVE_INFINITY,
          solves: 1,
          solveMs: performance.now() - started,
          columns: phase2.columns,
          kept: phase2.kept,
          violationCost: softPenalty(constraints, labels, L, form),
        });
      }
      const leastCost = softPenalty(constraints, phase2.labels, L, form);
      // The Viterbi labelling costs no more than the least cost: it is also the best-scoring one.
      if (firstCost <= leastCost + 1e-9 * Math.max(1, leastCost)) {
        return viterbi(1, { columns: phase2.columns, kept: phase2.kept });
      }
      // Out of time after phase 2: its labelling has the least cost, the tie-break is not done.
      const tieBreak = expired(call)
        ? null
        : solveIn(call, {
            scoreWeight: 1,
            penaltyWeight: 0,
            minScore,
            maxPenalty: leastCost + 1e-9 * Math.max(1, leastCost),
            pruneBelow: minScore,
          });
      const chosen = tieBreak?.labels ?? phase2.labels;
      const status =
        tieBreak === null
          ? "time-limit"
          : tieBreak.status === "infeasible"
            ? "optimal"
            : tieBreak.status;
      const score = scoreLabelling(scores, chosen);
      return report(call, {
        status,
        labels: chosen,
        primal: score,
        dual:
          status === "optimal"
            ? score
            : Math.max(score, tieBreak?.bound ?? Number.POSITIVE_INFINITY),
        solves: tieBreak === null ? 1 : 2,
        solveMs: performance.now() - started,
        columns: Math.max(phase2.columns, tieBreak?.columns ?? 0),
        kept: phase2.kept,
        violationCost: softPenalty(constraints, chosen, L, form),
      });
    },
  };
}

/** `exact`: HiGHS on the soft objective (score − Σ c·violation) with hard constraints. */
export const exactDefinition: DecoderDefinition = {
  name: "exact",
  description:
    "exact MAP under hard and soft constraints, or with higher-order patterns, by integer programming (HiGHS): the referee",
  accepts: { constraints: true, slaves: false, patterns: true },
  capabilities: { nbest: "no-good-cuts", certificate: "optimum" },
  options: [TIME_LIMIT_OPTION],
  prepare: prepareIlp,
  create: () => exactIlpDecoder("exact"),
};

/** `two-phase`: fersini2014's two-phase soft-constrained ILP (`tau` in the decode options). */
export const twoPhaseDefinition: DecoderDefinition = {
  name: "two-phase",
  description:
    "fersini2014: least total rule-violation cost among labellings within a factor τ of the best (HiGHS)",
  accepts: { constraints: true, slaves: false },
  // The least rule cost within τ of the Viterbi score: not the chain score it reports as primal.
  capabilities: { certificate: "other-objective" },
  options: [TIME_LIMIT_OPTION, TAU_OPTION],
  prepare: prepareIlp,
  create: () => twoPhaseIlpDecoder("two-phase"),
};
