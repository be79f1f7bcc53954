import {
  type ChainScores,
  constraintViolation,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  type Decoding,
  type LinearConstraint,
  ProblemValidationError,
  scoreLabelling,
  throwIfAborted,
} from "@lagrange/core";
import {
  ChainIlp,
  type ChainIlpResult,
  type ChainObjective,
  type IlpOptions,
  type SoftPenaltyForm,
  softPenalty,
  validateIlpProblem,
} from "./chain-ilp.js";
import { type MaxMarginals, maxMarginals } from "./chain-tables.js";
import { FactorGraphIlp } from "./factor-graph-ilp.js";
import { prepareIlp } from "./highs-runtime.js";
import { decodeWithPatterns } from "./pattern-decoder.js";

/** Per-call options of the ILP decoders (they also read `signal` from {@link DecodeOptions}). */
export interface IlpDecodeOptions extends DecodeOptions {
  /** Per-sentence wall-clock limit in milliseconds; the decoding then has status `time-limit`. */
  readonly timeLimitMs?: number;
  /** Relative MIP gap at which HiGHS stops (default 1e-9: optimal). */
  readonly mipGap?: number;
  /**
   * Two-phase ILP: a labelling qualifies when its probability is within a factor τ of the best,
   * i.e. s(y) ≥ Z* + log τ (0 < τ ≤ 1; default 0.1).
   */
  readonly tau?: number;
  /** How soft penalties are paid: `hinge` (exact decoder default) or `indicator` (two-phase default). */
  readonly softForm?: SoftPenaltyForm;
}

/** A decoding of an ILP decoder: the core statistics plus the solver's own. */
export interface IlpDecoding extends Decoding {
  /** ILPs handed to HiGHS for this problem (0: the unconstrained optimum already met the rules). */
  readonly solves: number;
  readonly solveMs: number;
  /** Columns of the largest ILP solved. */
  readonly columns: number;
  /** Share of nodes and edges the max-marginal bound kept, in [0, 1] (1 when no ILP was needed). */
  readonly kept: number;
  /**
   * When `status` is `infeasible`: a minimal set of hard constraints that cannot hold together
   * (their names, or `constraint #k`), found by a deletion filter over ILP feasibility checks.
   * Empty when the transition mask alone forbids every labelling. `labels` is then all −1: no
   * labelling is returned that breaks a hard constraint.
   */
  readonly conflict: readonly string[];
  /** Two-phase: Σ c_h over the rules `labels` violates (indicator costs). */
  readonly violationCost: number;
}

/** Whether a decoding came from an ILP decoder (and carries its solver statistics). */
export function isIlpDecoding(decoding: Decoding): decoding is IlpDecoding {
  return "solveMs" in decoding && "conflict" in decoding;
}

/** An ILP decoder: reads {@link IlpDecodeOptions}, returns {@link IlpDecoding}s. */
export interface IlpDecoder extends Decoder {
  decode(problem: DecodeProblem, options?: IlpDecodeOptions): IlpDecoding;
  /** Releases its HiGHS instance now (otherwise on garbage collection). */
  dispose(): void;
}

const NEG_INF = Number.NEGATIVE_INFINITY;

function countViolations(
  constraints: readonly LinearConstraint[],
  labels: ArrayLike<number>,
  L: number,
): { violated: number; hardViolated: number } {
  let violated = 0;
  let hardViolated = 0;
  for (const c of constraints) {
    if (constraintViolation(c, labels, L) <= 1e-9 * Math.max(1, Math.abs(c.rhs))) continue;
    violated++;
    if (c.penalty === undefined) hardViolated++;
  }
  return { violated, hardViolated };
}

/** What an ILP decoding found, before the statistics against its first labelling. */
export interface Outcome {
  readonly status: Decoding["status"];
  readonly labels: Int32Array;
  readonly primal: number;
  readonly dual: number;
  readonly solves: number;
  readonly solveMs: number;
  readonly columns: number;
  readonly kept: number;
  readonly conflict?: readonly string[];
  readonly violationCost?: number;
}

export function decoding(
  outcome: Outcome,
  first: Int32Array,
  constraints: readonly LinearConstraint[],
  L: number,
): IlpDecoding {
  const infeasible = outcome.status === "infeasible";
  const counts = infeasible
    ? { violated: 0, hardViolated: 0 }
    : countViolations(constraints, outcome.labels, L);
  return {
    labels: outcome.labels,
    primal: outcome.primal,
    dual: outcome.dual,
    status: outcome.status,
    iterations: Math.max(1, outcome.solves),
    certified: outcome.status === "optimal",
    gap: outcome.primal > NEG_INF ? Math.max(0, outcome.dual - outcome.primal) : Infinity,
    multipliers: new Float64Array(0),
    firstLabels: first,
    firstViolated: countViolations(constraints, first, L).violated,
    violated: counts.violated,
    hardViolated: counts.hardViolated,
    solves: outcome.solves,
    solveMs: outcome.solveMs,
    columns: outcome.columns,
    kept: outcome.kept,
    conflict: outcome.conflict ?? [],
    violationCost: outcome.violationCost ?? 0,
  };
}

function constraintName(constraints: readonly LinearConstraint[], k: number): string {
  return constraints[k]!.name ?? `constraint #${k}`;
}

/** One decode call: the problem, its max-marginals and Viterbi labelling, and the options. */
interface Call {
  readonly ilp: ChainIlp;
  readonly scores: ChainScores;
  readonly constraints: readonly LinearConstraint[];
  readonly n: number;
  readonly L: number;
  readonly tables: MaxMarginals;
  /** The Viterbi labelling (the unconstrained first iterate). */
  readonly first: Int32Array;
  readonly form: SoftPenaltyForm;
  readonly options: IlpDecodeOptions | undefined;
  readonly started: number;
}

/**
 * Checks the options and the problem and computes the max-marginals once for every ILP of the
 * call; when the mask forbids every labelling, the (infeasible) decoding itself.
 */
function begin(
  ilp: ChainIlp,
  problem: DecodeProblem,
  options: IlpDecodeOptions | undefined,
  defaultForm: SoftPenaltyForm,
): Call | IlpDecoding {
  throwIfAborted(options?.signal);
  checkTimeLimit(options);
  const { scores } = problem;
  const constraints = problem.constraints ?? [];
  validateIlpProblem(scores, constraints);
  const { n, L } = scores;
  const started = performance.now();
  const tables = maxMarginals(scores);
  if (tables.labels === null) return maskForbidsAll(n, L, started);
  const form = options?.softForm ?? defaultForm;
  return { ilp, scores, constraints, n, L, tables, first: tables.labels, form, options, started };
}

function solveIn(
  call: Call,
  objective: ChainObjective,
  options: IlpOptions,
  constraints: readonly LinearConstraint[] = call.constraints,
): ChainIlpResult {
  return call.ilp.solve(call.scores, constraints, objective, options, call.tables);
}

/** The decoding of an outcome, with the statistics against the call's first labelling. */
function report(call: Call, outcome: Outcome): IlpDecoding {
  return decoding(outcome, call.first, call.constraints, call.L);
}

/**
 * A minimal set of hard constraints that cannot all hold (with the score bound kept on): drop one
 * constraint at a time and keep it out while the rest stays infeasible.
 */
function minimalConflict(call: Call, minScore: number): number[] {
  const { constraints } = call;
  let kept = constraints.flatMap((c, k) => (c.penalty === undefined ? [k] : []));
  const feasibility: ChainObjective = {
    scoreWeight: 0,
    penaltyWeight: 0,
    minScore,
    maxPenalty: Number.POSITIVE_INFINITY,
    pruneBelow: minScore,
  };
  const options = limits(call.options, call.form);
  for (const k of [...kept]) {
    const without = kept.filter((j) => j !== k);
    const subset = without.map((j) => constraints[j]!);
    if (solveIn(call, feasibility, options, subset).status === "infeasible") kept = without;
  }
  return kept;
}

function noLabels(n: number): Int32Array {
  return new Int32Array(n).fill(-1);
}

/** The transition mask (or a −∞ start/end score) forbids every labelling: no ILP can help. */
function maskForbidsAll(n: number, L: number, started: number): IlpDecoding {
  return decoding(
    {
      status: "infeasible",
      labels: noLabels(n),
      primal: NEG_INF,
      dual: NEG_INF,
      solves: 0,
      solveMs: performance.now() - started,
      columns: 0,
      kept: 0,
    },
    noLabels(n),
    [],
    L,
  );
}

function limits(options: IlpDecodeOptions | undefined, form: SoftPenaltyForm): IlpOptions {
  return {
    ...(options?.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
    ...(options?.mipGap === undefined ? {} : { mipGap: options.mipGap }),
    softForm: form,
  };
}

function checkTimeLimit(options: IlpDecodeOptions | undefined): void {
  const limit = options?.timeLimitMs;
  if (limit !== undefined && !(limit > 0)) {
    throw new ProblemValidationError("options.timeLimitMs", `expected a number > 0, got ${limit}`);
  }
}

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
        checkTimeLimit(options);
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
      const deadline =
        options?.timeLimitMs === undefined ? undefined : started + options.timeLimitMs;
      const base = limits(options, form);
      for (;;) {
        // After a few widenings (or with no feasible labelling known), solve the whole problem.
        const threshold = solves >= 4 ? lowerBound : Math.max(lowerBound, tables.best - delta);
        const remaining =
          deadline === undefined ? undefined : Math.max(1, deadline - performance.now());
        result = solveIn(
          call,
          {
            scoreWeight: 1,
            penaltyWeight: -1,
            minScore: NEG_INF,
            maxPenalty: Number.POSITIVE_INFINITY,
            pruneBelow: threshold,
          },
          remaining === undefined ? base : { ...base, timeLimitMs: remaining },
        );
        solves++;
        if (result.status === "time-limit") break;
        const whole = threshold <= lowerBound || !(threshold > NEG_INF);
        if (result.status === "optimal" && result.labels !== null) {
          lowerBound = Math.max(lowerBound, result.objective);
          if (whole || result.objective >= threshold - 1e-9 * Math.max(1, Math.abs(threshold)))
            break;
        } else if (whole) {
          break; // infeasible over every labelling that could be optimal: a proof
        }
        delta *= 4;
      }
      return finish(call, result, solves, NEG_INF);
    },
  };
}

/** The decoding of an ILP's result (a conflict search first when it proved infeasibility). */
function finish(call: Call, result: ChainIlpResult, solves: number, minScore: number): IlpDecoding {
  const { scores, constraints, n, L, first, form, started } = call;
  const size = { columns: result.columns, kept: result.kept };
  if (result.status === "infeasible") {
    const conflict = minimalConflict(call, minScore).map((k) => constraintName(constraints, k));
    if (minScore > NEG_INF) conflict.push("the score bound s(y) ≥ Z* + log τ");
    return report(call, {
      status: "infeasible",
      labels: noLabels(n),
      primal: NEG_INF,
      dual: NEG_INF,
      solves: solves + conflict.length,
      solveMs: performance.now() - started,
      ...size,
      conflict,
    });
  }
  // Time limit before any labelling: keep the unconstrained one (hardViolated says what it breaks).
  const labels = result.labels ?? first.slice();
  const primal =
    result.labels === null
      ? scoreLabelling(scores, labels) - softPenalty(constraints, labels, L, form)
      : result.objective;
  return report(call, {
    status: result.status,
    labels,
    primal: Number.isFinite(primal) ? primal : NEG_INF,
    dual: result.status === "optimal" ? primal : result.bound,
    solves,
    solveMs: performance.now() - started,
    ...size,
  });
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
      const tau = options?.tau ?? 0.1;
      if (!(tau > 0 && tau <= 1)) {
        throw new ProblemValidationError("options.tau", `expected 0 < τ ≤ 1, got ${tau}`);
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
      const ilpOptions = limits(options, form);
      const phase2 = solveIn(
        call,
        {
          scoreWeight: 0,
          penaltyWeight: -1,
          minScore,
          maxPenalty: Number.POSITIVE_INFINITY,
          pruneBelow: minScore,
        },
        ilpOptions,
      );
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
      const remaining =
        options?.timeLimitMs === undefined
          ? ilpOptions
          : { ...ilpOptions, timeLimitMs: Math.max(1, options.timeLimitMs - phase2.solveMs) };
      const tieBreak = solveIn(
        call,
        {
          scoreWeight: 1,
          penaltyWeight: 0,
          minScore,
          maxPenalty: leastCost + 1e-9 * Math.max(1, leastCost),
          pruneBelow: minScore,
        },
        remaining,
      );
      const chosen = tieBreak.labels ?? phase2.labels;
      const status = tieBreak.status === "infeasible" ? "optimal" : tieBreak.status;
      const score = scoreLabelling(scores, chosen);
      return report(call, {
        status,
        labels: chosen,
        primal: score,
        dual: status === "optimal" ? score : Math.max(score, tieBreak.bound),
        solves: 2,
        solveMs: performance.now() - started,
        columns: Math.max(phase2.columns, tieBreak.columns),
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
  prepare: prepareIlp,
  create: () => exactIlpDecoder("exact"),
};

/** `two-phase`: fersini2014's two-phase soft-constrained ILP (`tau` in the decode options). */
export const twoPhaseDefinition: DecoderDefinition = {
  name: "two-phase",
  description:
    "fersini2014: least total rule-violation cost among labellings within a factor τ of the best (HiGHS)",
  accepts: { constraints: true, slaves: false },
  prepare: prepareIlp,
  create: () => twoPhaseIlpDecoder("two-phase"),
};
