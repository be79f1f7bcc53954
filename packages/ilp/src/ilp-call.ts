import {
  type ChainScores,
  checkOptionBounds,
  constraintViolation,
  type DecodeProblem,
  type LinearConstraint,
  scoreLabelling,
  throwIfAborted,
} from "@lagrange/core";
import { type Deadline, deadlineOf } from "@lagrange/core/dual-decomposition";
import {
  type ChainIlp,
  type ChainIlpResult,
  type ChainObjective,
  type IlpOptions,
  type SoftPenaltyForm,
  softPenalty,
  validateIlpProblem,
} from "./chain-ilp.js";
import { type MaxMarginals, maxMarginals } from "./chain-tables.js";
import {
  type Conflict,
  decoding,
  ILP_OPTION_BOUNDS,
  type IlpDecodeOptions,
  type IlpDecoding,
  NEG_INF,
  type Outcome,
} from "./ilp-decoding.js";

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
export function begin(
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
export function expired(call: Call): boolean {
  return call.deadline.expired();
}

/** One more solve of the call's ILP, within what is left of its time limit. */
export function solveIn(call: Call, objective: ChainObjective): ChainIlpResult {
  return call.ilp.solve(call.scores, call.constraints, objective, limitsNow(call), call.tables);
}

/**
 * The best labelling a restricted ILP found, kept when the time limit ends the widening: the
 * Viterbi score bounds every labelling, as penalties only lower a score.
 */
export function cutShort(call: Call, incumbent: ChainIlpResult): ChainIlpResult {
  return { ...incumbent, status: "time-limit", bound: call.tables.best };
}

/** The decoding of an outcome, with the statistics against the call's first labelling. */
export function report(call: Call, outcome: Outcome): IlpDecoding {
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

/** The decoding of an ILP's result (a conflict search first when it proved infeasibility). */
export function finish(
  call: Call,
  result: ChainIlpResult,
  solves: number,
  minScore: number,
): IlpDecoding {
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
