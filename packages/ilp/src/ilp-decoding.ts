import {
  constraintViolation,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type Decoding,
  type LinearConstraint,
  type OptionBounds,
} from "@lagrange/core";
import {
  type ConstraintStats,
  MAX_TIME_LIMIT_MS,
  TIME_LIMIT_OPTION,
} from "@lagrange/core/dual-decomposition";
import type { SoftPenaltyForm } from "./chain-ilp.js";

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

export const NEG_INF = Number.NEGATIVE_INFINITY;

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
export interface Conflict {
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

/**
 * The ILP options within {@link ILP_OPTION_RANGES}, in the library's milliseconds, checked by
 * core's one check (`tau` is the two-phase decoder's).
 */
export const ILP_OPTION_BOUNDS: readonly OptionBounds[] = [
  { key: "timeLimitMs", type: "number", above: 0, max: ILP_OPTION_RANGES.maxTimeLimitMs },
  { key: "mipGap", type: "number", min: 0 },
  { key: "softForm", type: "choice", choices: ["hinge", "indicator"] },
];
