import type { ConstraintStats, Decoding } from "../decoding.js";
import type { Bounds } from "./bounds.js";
import type { CompiledProblem } from "./compiled-problem.js";
import { countViolations, labellingActivities } from "./constraint-matrix.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/** What both master steps return: a decoding with its dual and its constraint statistics. */
export interface LabellingSolution extends Decoding {
  readonly dual: number;
  readonly constraintStats: ConstraintStats;
}

/**
 * The labellings of one solve of the master, whichever step it takes: candidates scored the one
 * way ({@link evaluate}), the best feasible one kept in `bounds` — or the least
 * infeasible one while none is — beside the first iterate, and the solution assembled from them.
 * `views` and `activity` may be the step's scratch: {@link evaluate} overwrites them.
 */
export class LabellingTracker {
  readonly bounds: Bounds;
  readonly bestLabels: Int32Array;
  /** The first iterate's labelling (returned: not a view on scratch). */
  readonly firstLabels: Int32Array;
  /** Set by {@link evaluate}: how far its labelling breaks the hard constraints. */
  hardViolation = 0;
  leastHardViolation = Number.POSITIVE_INFINITY;
  readonly #problem: CompiledProblem;
  readonly #views: readonly Int32Array[];
  readonly #activity: Float64Array;

  constructor(
    problem: CompiledProblem,
    bounds: Bounds,
    views: readonly Int32Array[],
    activity: Float64Array,
    bestLabels: Int32Array,
  ) {
    this.#problem = problem;
    this.bounds = bounds;
    this.#views = views;
    this.#activity = activity;
    this.bestLabels = bestLabels.fill(0);
    this.firstLabels = new Int32Array(bestLabels.length);
  }

  /**
   * The master's objective of a global labelling y: Σ_s score_s(y on s's positions) − soft
   * penalties; −∞ when a slave forbids it (then hardViolation = ∞) or it breaks a hard
   * constraint (hardViolation = the total excess).
   */
  evaluate(y: Int32Array): number {
    const { slaves, positions, A, eps } = this.#problem;
    const views = this.#views;
    const activity = this.#activity;
    let total = 0;
    for (let s = 0; s < slaves.length; s++) {
      const map = positions[s]!;
      const own = views[s]!;
      for (let j = 0; j < map.length; j++) own[j] = y[map[j]!]!;
      const value = slaves[s]!.score(own);
      if (Number.isNaN(value)) {
        throw new Error(`slave "${slaves[s]!.name}" scored a labelling as NaN`);
      }
      if (value === NEG_INF) {
        // A labelling a slave forbids is no fallback answer either.
        this.hardViolation = Number.POSITIVE_INFINITY;
        return NEG_INF;
      }
      total += value;
    }
    let hardViolation = 0;
    if (A !== null) {
      labellingActivities(A, y, activity);
      for (let k = 0; k < A.m; k++) {
        const excess = activity[k]! - A.rhs[k]!;
        if (excess <= eps) continue;
        if (A.hard[k] === 1) hardViolation += excess;
        else total -= A.upper[k]! * excess;
      }
    }
    this.hardViolation = hardViolation;
    return hardViolation > 0 ? NEG_INF : total;
  }

  /** Keeps y if it is the best feasible labelling so far, or the least infeasible one while none is. */
  consider(y: Int32Array, primal: number, hardViolation: number): void {
    const bounds = this.bounds;
    if (primal > bounds.bestPrimal) {
      bounds.bestPrimal = primal;
      this.bestLabels.set(y);
    } else if (bounds.bestPrimal === NEG_INF && hardViolation < this.leastHardViolation) {
      this.leastHardViolation = hardViolation;
      this.bestLabels.set(y);
    }
  }

  /** {@link consider} y at its own score. */
  offer(y: Int32Array): void {
    this.consider(y, this.evaluate(y), this.hardViolation);
  }

  /**
   * Offers the global labelling of each slave that labels every position (both steps' second
   * kind of candidate): slave s's local labels read from `labels` at localOffset[s], written
   * into `into`; one equal to `unlike` is not scored again.
   */
  offerWholeSlaves(labels: Int32Array, into: Int32Array, unlike?: Int32Array): void {
    const { n, slaves, positions, localOffset } = this.#problem;
    for (let s = 0; s < slaves.length; s++) {
      if (slaves[s]!.n !== n) continue;
      const map = positions[s]!;
      const out = localOffset[s]!;
      let differs = unlike === undefined;
      for (let j = 0; j < n && !differs; j++) differs = labels[out + j] !== unlike![map[j]!];
      if (!differs) continue;
      for (let j = 0; j < n; j++) into[map[j]!] = labels[out + j]!;
      this.offer(into);
    }
  }

  /** The solution: the best labelling, the bounds and what the constraints did (first iterate included). */
  solution(
    status: Decoding["status"],
    iterations: number,
    multipliers: Float64Array,
  ): LabellingSolution {
    const { bestLabels, firstLabels } = this;
    const { A, eps } = this.#problem;
    const activity = this.#activity;
    let violated = 0;
    let hardViolated = 0;
    let firstViolated = 0;
    if (A !== null) {
      ({ violated, hardViolated } = countViolations(A, bestLabels, activity, eps));
      // Most runs end on their first labelling (certified at once): count it once.
      let same = true;
      for (let i = 0; i < bestLabels.length && same; i++) same = firstLabels[i] === bestLabels[i];
      firstViolated = same ? violated : countViolations(A, firstLabels, activity, eps).violated;
    }
    return {
      labels: bestLabels.slice(),
      ...this.bounds.outcome(status, iterations),
      constraintStats: { multipliers, firstLabels, firstViolated, violated, hardViolated },
    };
  }
}
