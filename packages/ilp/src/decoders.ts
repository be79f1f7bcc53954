import {
  type ChainScores,
  checkOptionBounds,
  constraintViolation,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  type DecoderOptionSpec,
  type Decoding,
  type LinearConstraint,
  type OptionBounds,
  ProblemValidationError,
  scoreLabelling,
  throwIfAborted,
} from "@lagrange/core";
import {
  type ConstraintStats,
  type Deadline,
  deadlineOf,
  MAX_TIME_LIMIT_MS,
  TIME_LIMIT_OPTION,
} from "@lagrange/core/dual-decomposition";
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

/**
 * Per-call options of the ILP decoders (they also read `signal`, and `timeLimitMs` or `deadline`:
 * one limit for every solve of the sentence together, the conflict search of an infeasible one
 * included, at most {@link ILP_OPTION_RANGES}.maxTimeLimitMs, from {@link DecodeOptions}).
 */
export interface IlpDecodeOptions extends DecodeOptions {
  /** Relative MIP gap at which HiGHS stops (default 1e-9: optimal). */
  readonly mipGap?: number;
  /**
   * Two-phase ILP: a labelling qualifies when its probability is within a factor τ of the best,
   * i.e. s(y) ≥ Z* + log τ ({@link ILP_OPTION_RANGES}.minTau ≤ τ ≤ 1; default 0.1).
   */
  readonly tau?: number;
  /** How soft penalties are paid: `hinge` (exact decoder default) or `indicator` (two-phase default). */
  readonly softForm?: SoftPenaltyForm;
}

/** The ranges of the ILP decoders' options (the CLI checks the same ones). */
export const ILP_OPTION_RANGES = {
  /**
   * 2^31 − 1 ms, about 24.8 days: the longest delay a JavaScript timer takes, so a caller may arm
   * one with the same limit. HiGHS takes any finite number of seconds (not an infinite one).
   */
  maxTimeLimitMs: MAX_TIME_LIMIT_MS,
  /**
   * The smallest τ. The bound is on log-scores: τ = 1e-300 already admits labellings 690 below
   * the best, and a smaller τ (a subnormal such as 1e-320 keeps 3 digits) bounds nothing more.
   */
  minTau: 1e-300,
} as const;

/** The two-phase decoder's τ when none is given. */
export const DEFAULT_TAU = 0.1;
/**
 * The time limit apps give the ILP decoders when the user names none, in seconds (the decoders
 * themselves have none unless `timeLimitMs` is given): core's declared `time-limit` default.
 */
export const DEFAULT_TIME_LIMIT_SECONDS = TIME_LIMIT_OPTION.default as number;
/** Limits under a millisecond are not kept: the ILP decoders' clock works in milliseconds. */
export const MIN_TIME_LIMIT_SECONDS = TIME_LIMIT_OPTION.min!;
/** The ILP decoders' longest limit, 2^31 − 1 ms, in whole seconds (about 24.8 days). */
export const MAX_TIME_LIMIT_SECONDS = TIME_LIMIT_OPTION.max!;

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

/** A decoding of an ILP decoder: the core statistics plus the solver's own. */
export interface IlpDecoding extends Decoding {
  /** Always there: the unconstrained optimum as the first labels, and what each violates. */
  readonly constraintStats: ConstraintStats;
  /** ILPs handed to HiGHS for this problem (0: the unconstrained optimum already met the rules). */
  readonly solves: number;
  readonly solveMs: number;
  /** Columns of the largest ILP solved. */
  readonly columns: number;
  /** Share of nodes and edges the max-marginal bound kept, in [0, 1] (1 when no ILP was needed). */
  readonly kept: number;
  /**
   * When `status` is `infeasible`: a set of hard constraints that cannot hold together, minimal
   * (without any one of them the rest can) unless the time limit ended the search first
   * (`conflictMinimal`). Each named once (its name, or `constraint #k`): constraints that share a
   * name (one template's rows) appear as one. Empty when the transition mask alone forbids every
   * labelling. `labels` is then all −1: no labelling is returned that breaks a hard constraint.
   */
  readonly conflict: readonly string[];
  /** The same set as indices into the problem's constraints, each constraint once. */
  readonly conflictConstraints: readonly number[];
  /** False when the time limit stopped the conflict search: `conflict` holds but may not be minimal. */
  readonly conflictMinimal: boolean;
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
  readonly conflict?: Conflict;
  readonly violationCost?: number;
}

/** What a conflict search found. */
interface Conflict {
  readonly names: readonly string[];
  readonly constraints: readonly number[];
  readonly minimal: boolean;
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
    constraintStats: {
      multipliers: new Float64Array(0),
      firstLabels: first,
      firstViolated: countViolations(constraints, first, L).violated,
      violated: counts.violated,
      hardViolated: counts.hardViolated,
    },
    solves: outcome.solves,
    solveMs: outcome.solveMs,
    columns: outcome.columns,
    kept: outcome.kept,
    conflict: outcome.conflict?.names ?? [],
    conflictConstraints: outcome.conflict?.constraints ?? [],
    conflictMinimal: outcome.conflict?.minimal ?? true,
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
  /** The sentence's deadline, for every solve of the call (and of the caller's other calls). */
  readonly deadline: Deadline;
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
  checkOptionBounds(ILP_OPTION_BOUNDS, options);
  const { scores } = problem;
  const constraints = problem.constraints ?? [];
  validateIlpProblem(scores, constraints);
  const { n, L } = scores;
  const started = performance.now();
  const tables = maxMarginals(scores);
  if (tables.labels === null) return maskForbidsAll(n, L, started);
  const form = options?.softForm ?? defaultForm;
  const deadline = deadlineOf(options);
  const first = tables.labels;
  return { ilp, scores, constraints, n, L, tables, first, form, options, started, deadline };
}

/**
 * The options of one more solve: the call's gap and form, and what is left of its time limit (at
 * least 1 ms).
 */
function limitsNow(call: Call): IlpOptions {
  const gap = call.options?.mipGap;
  return {
    ...(gap === undefined ? {} : { mipGap: gap }),
    softForm: call.form,
    ...(call.deadline.limited ? { timeLimitMs: Math.max(1, call.deadline.remainingMs()) } : {}),
  };
}

/** Whether the call's time limit has run out. */
function expired(call: Call): boolean {
  return call.deadline.expired();
}

/** One more solve of the call's ILP, within what is left of its time limit. */
function solveIn(call: Call, objective: ChainObjective): ChainIlpResult {
  return call.ilp.solve(call.scores, call.constraints, objective, limitsNow(call), call.tables);
}

/**
 * The best labelling a restricted ILP found, kept when the time limit ends the widening: the
 * Viterbi score bounds every labelling, as penalties only lower a score.
 */
function cutShort(call: Call, incumbent: ChainIlpResult): ChainIlpResult {
  return { ...incumbent, status: "time-limit", bound: call.tables.best };
}

/** The decoding of an outcome, with the statistics against the call's first labelling. */
function report(call: Call, outcome: Outcome): IlpDecoding {
  return decoding(outcome, call.first, call.constraints, call.L);
}

/**
 * A minimal set of hard constraints that cannot all hold (with the score bound kept on), each
 * constraint once. One model serves every question (ChainIlp.subsets relaxes the rows left out).
 * A deletion filter by blocks: drop a block of the constraints not yet decided while the rest stays
 * infeasible; when the rest becomes feasible, halve the block, and a single constraint whose
 * removal makes the rest feasible is needed (so it is in every infeasible subset of what is kept:
 * the result is minimal). The kept set is infeasible at every step, so when the time limit ends
 * the search it is still a conflict, only maybe not a minimal one. About m·log₂(k/m) solves for m
 * members among k constraints, where dropping one at a time takes k; a labelling found by an
 * earlier solve that meets a whole subset answers for it without one.
 */
function conflictSearch(call: Call, minScore: number): Conflict & { solves: number } {
  const { constraints, L } = call;
  // The same constraint object given twice is one constraint.
  const seen = new Set<LinearConstraint>();
  const hard: number[] = [];
  constraints.forEach((c, k) => {
    if (c.penalty === undefined && !seen.has(c)) {
      seen.add(c);
      hard.push(k);
    }
  });
  const local = hard.map((k) => constraints[k]!);
  const oracle = call.ilp.subsets(call.scores, local, minScore, call.tables);
  const witnesses: Int32Array[] = [];
  let solves = 0;
  /** Whether some labelling meets `subset` (local indices); undefined when time ran out first. */
  const feasible = (subset: readonly number[]): boolean | undefined => {
    for (const y of witnesses) {
      if (subset.every((j) => constraintViolation(local[j]!, y, L) <= 1e-9)) return true;
    }
    if (expired(call)) return undefined;
    solves++;
    const answer = oracle.feasible(subset, limitsNow(call));
    if (answer.status === "infeasible") return false;
    if (answer.labels === null) return undefined;
    witnesses.unshift(answer.labels);
    if (witnesses.length > 8) witnesses.pop();
    return true;
  };
  let kept = [...oracle.relevant];
  let minimal = true;
  let decided = 0;
  let block = Math.max(1, Math.ceil(kept.length / 2));
  while (decided < kept.length) {
    const size = Math.min(block, kept.length - decided);
    const rest = [...kept.slice(0, decided), ...kept.slice(decided + size)];
    const answer = feasible(rest);
    if (answer === undefined) {
      minimal = false;
      break;
    }
    if (!answer) {
      kept = rest;
    } else if (size === 1) {
      decided++;
      block = Math.max(1, Math.ceil((kept.length - decided) / 2));
    } else {
      block = Math.ceil(size / 2);
    }
  }
  const members = kept.map((j) => hard[j]!);
  const names = [...new Set(members.map((k) => constraintName(constraints, k)))];
  return { names, constraints: members, minimal, solves };
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

/**
 * The ILP options within {@link ILP_OPTION_RANGES}, in the library's milliseconds, checked by
 * core's one check (`tau` is the two-phase decoder's).
 */
const ILP_OPTION_BOUNDS: readonly OptionBounds[] = [
  { key: "timeLimitMs", type: "number", above: 0, max: ILP_OPTION_RANGES.maxTimeLimitMs },
  { key: "mipGap", type: "number", min: 0 },
  { key: "softForm", type: "choice", choices: ["hinge", "indicator"] },
];

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

/** The decoding of an ILP's result (a conflict search first when it proved infeasibility). */
function finish(call: Call, result: ChainIlpResult, solves: number, minScore: number): IlpDecoding {
  const { scores, constraints, n, L, first, form, started } = call;
  const size = { columns: result.columns, kept: result.kept };
  if (result.status === "infeasible") {
    const { solves: searched, ...conflict } = conflictSearch(call, minScore);
    const names =
      minScore > NEG_INF
        ? [...conflict.names, "the score bound s(y) ≥ Z* + log τ"]
        : conflict.names;
    return report(call, {
      status: "infeasible",
      labels: noLabels(n),
      primal: NEG_INF,
      dual: NEG_INF,
      solves: solves + searched,
      solveMs: performance.now() - started,
      ...size,
      conflict: { ...conflict, names },
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
