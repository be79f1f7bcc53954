import { ProblemValidationError } from "./errors.js";

/**
 * How a solver ended. `optimal`: a certificate (dual − primal ≤ tolerance) proves optimality.
 * `time-limit`: the solver stopped at its deadline; `labels` is its best labelling so far and
 * `dual` its best proven bound.
 */
export type SolutionStatus =
  | "optimal"
  | "converged"
  | "iteration-limit"
  | "time-limit"
  | "infeasible";

export interface Solution {
  /** One label id per position. */
  readonly labels: Int32Array;
  /** Objective of `labels`, penalties of soft constraints included; −∞ when infeasible. */
  readonly primal: number;
  /** An upper bound on the optimum, when the solver has one; primal === dual is a certificate. */
  readonly dual?: number;
  readonly status: SolutionStatus;
  readonly iterations: number;
}

export interface IterationStats {
  /** 1-based: the number of slave calls so far. */
  readonly iteration: number;
  /** Dual objective at this iteration (an upper bound on the optimum). */
  readonly dual: number;
  /** Best primal found so far. */
  readonly primal: number;
  /** Best dual − best primal so far. */
  readonly gap: number;
  readonly stepSize: number;
  /** Indicators on which slaves disagree plus constraints whose KKT conditions fail. */
  readonly disagreements: number;
}

/**
 * The largest iteration cap a decoder takes: 2^31 − 1. A cap of 1e308 is an integer too, and a run
 * that never ends in practice; the decoders refuse more with a ProblemValidationError.
 */
export const MAX_ITERATIONS = 2 ** 31 - 1;

/** The iteration cap of the iterative decoders when none is given. */
export const DEFAULT_MAX_ITERATIONS = 200;

/**
 * The longest time limit a solver takes, 2^31 − 1 ms (about 24.8 days): the longest delay a
 * JavaScript timer takes, so a caller may arm one with the same limit.
 */
export const MAX_TIME_LIMIT_MS = 2 ** 31 - 1;

/**
 * When the solving of one sentence must end, as an absolute `performance.now()` time. A decoder
 * that solves several problems for a sentence (the ILP's widening and phases, n-best's cuts and
 * partitions, AD3's branch-and-bound nodes) hands the same deadline to each, so a time limit
 * bounds the sentence, not each solve: per-solve limits add up (50 n-best solves at 1 s each
 * took 35 s).
 */
export class Deadline {
  /** No limit. */
  static readonly NEVER = new Deadline(Number.POSITIVE_INFINITY);

  /** `performance.now()` milliseconds at which the time is up; +∞ for none. */
  readonly at: number;

  private constructor(at: number) {
    this.at = at;
  }

  /** `ms` milliseconds from now (0: already up); {@link Deadline.NEVER} when undefined. */
  static in(ms: number | undefined): Deadline {
    if (ms === undefined) return Deadline.NEVER;
    if (!(typeof ms === "number" && ms >= 0 && ms <= MAX_TIME_LIMIT_MS)) {
      throw new ProblemValidationError(
        "options.timeLimitMs",
        `expected milliseconds from 0 to ${MAX_TIME_LIMIT_MS} (2^31 − 1), got ${ms}`,
      );
    }
    return new Deadline(performance.now() + ms);
  }

  /** Milliseconds left (0 once expired; +∞ without a limit). */
  remainingMs(): number {
    return this.at === Number.POSITIVE_INFINITY
      ? this.at
      : Math.max(0, this.at - performance.now());
  }

  expired(): boolean {
    return this.at !== Number.POSITIVE_INFINITY && performance.now() >= this.at;
  }

  /** Whether there is a limit at all. */
  get limited(): boolean {
    return this.at !== Number.POSITIVE_INFINITY;
  }
}

/**
 * The deadline of one solve: the caller's when it gives one (every solve of its sentence shares
 * it), else one starting now from `timeLimitMs`, else none.
 */
export function deadlineOf(
  options: { readonly deadline?: Deadline; readonly timeLimitMs?: number } | undefined,
): Deadline {
  return options?.deadline ?? Deadline.in(options?.timeLimitMs);
}

export interface SolveOptions {
  /** Iteration cap (default {@link DEFAULT_MAX_ITERATIONS}; at most {@link MAX_ITERATIONS}). */
  readonly maxIterations?: number;
  /**
   * The sentence's time limit in milliseconds, for all of its solves together: a solver stops at
   * it with status `time-limit` and its best labelling so far. Ignored when `deadline` is given.
   */
  readonly timeLimitMs?: number;
  /**
   * The sentence's deadline, shared by every solve a caller makes for it (n-best's decodes, a
   * decoder's phases); wins over `timeLimitMs`. See {@link deadlineOf}.
   */
  readonly deadline?: Deadline;
  /**
   * The relative duality gap under which a solution counts as certified (default 1e-6):
   * best dual − best primal ≤ tolerance · max(1, |best dual|) — absolute for objectives near 0,
   * relative for large ones, so the score scale does not change what certifies. The one meaning
   * of `tolerance` in Lagrange.
   */
  readonly tolerance?: number;
  /**
   * Called after every iteration; returning `false` stops the run (status `iteration-limit`, or
   * `optimal` when that iteration certified).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a logging callback that returns nothing (`void`) must type-check too
  readonly onIteration?: (stats: IterationStats) => void | boolean;
  readonly signal?: AbortSignal;
}

/**
 * What a slave returns. The object and its `labels` may be buffers the slave reuses: they are
 * valid until the next `maximize` call, so a caller that keeps them must copy them.
 */
export interface SlaveResult {
  /** One label per local position; a relaxed slave gives a labelling decoded from its indicators. */
  readonly labels: Int32Array;
  /**
   * The slave's maximum: its own score plus adjustment·y of its maximiser; −∞ when the slave has
   * no feasible labelling.
   */
  readonly value: number;
  /**
   * Only for a **relaxed** slave, whose maximiser is a 0/1 vector z over the indicators (j*L + t)
   * that need not be one-hot (qian-liu2014's min-cut slave may switch several labels of a token
   * on, or none): z itself, length n·L. The master then takes z, not the one-hot vector of
   * `labels`, as the slave's indicators in the subgradient and the agreement test, so agreement
   * means z equals the other slaves' one-hot vectors, and `value` is the slave's score of z plus
   * adjustment·z. `score(labels)` stays the slave's score of a one-hot labelling.
   */
  readonly indicators?: Uint8Array;
}

/**
 * A local MAP oracle over its own positions (AD3's `SolveMAP`): maximise its private score plus a
 * linear adjustment of the unary indicators, adjustment[j*L + t] for local position j.
 * The master never looks inside; it only shifts the adjustment.
 */
export interface Slave {
  readonly name: string;
  /** Number of positions this slave labels. */
  readonly n: number;
  readonly L: number;
  maximize(adjustment: Float64Array): SlaveResult;
  /** The slave's own score of a labelling of its positions (no adjustment); −∞ if infeasible. */
  score(labels: ArrayLike<number>): number;
  /**
   * Optional, for the master's AD3 step: writes to `out` (length n·L, indicator j*L + t) the point
   * q of the slave's marginal polytope that maximises scale·score(q) + v·q − ½‖q‖² (see
   * `BinaryFactor.project`). Without it the master solves that problem by the active-set method
   * over `maximize`, so every slave works under AD3 unchanged.
   */
  project?(v: Float64Array, scale: number, out: Float64Array): void;
}

export interface SlaveSpec {
  readonly name?: string;
  readonly n: number;
  readonly L: number;
  readonly maximize: (adjustment: Float64Array) => SlaveResult;
  readonly score: (labels: ArrayLike<number>) => number;
  readonly project?: (v: Float64Array, scale: number, out: Float64Array) => void;
}

/** All a user writes for a custom slave: `defineSlave({ n, L, maximize, score })`. */
export function defineSlave(spec: SlaveSpec): Slave {
  const name = spec.name ?? "custom";
  for (const key of ["n", "L"] as const) {
    const value = spec[key];
    if (!Number.isInteger(value) || value < 1) {
      throw new ProblemValidationError(
        `slave "${name}".${key}`,
        `expected an integer ≥ 1, got ${value}`,
      );
    }
  }
  return {
    name,
    n: spec.n,
    L: spec.L,
    maximize: spec.maximize,
    score: spec.score,
    ...(spec.project === undefined ? {} : { project: spec.project }),
  };
}
