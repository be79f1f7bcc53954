import type { Decoding } from "../decoding.js";
import type { SolutionStatus } from "../solver.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

/** The certificate's relative gap when none is given (the one meaning of `tolerance`). */
export const DEFAULT_TOLERANCE = 1e-6;

/** A run's bounds as a decoding reports them. */
export type BoundsOutcome = Omit<Decoding, "labels" | "constraintStats"> & {
  readonly dual: number;
};

/**
 * The best primal and dual of a run, its certificate and its progress (for the stall rule): one
 * tracker for the master's subgradient step, its AD3 step and AD3 on binary problems.
 *
 * The certificate is the one meaning of `tolerance` in Lagrange: a labelling is known and
 *   best dual − best primal ≤ tolerance · max(1, |best dual|).
 */
export class Bounds {
  bestPrimal = NEG_INF;
  bestDual = POS_INF;
  /** The last tick (iteration, or MAP pass) at which a bound moved by {@link significance}. */
  lastProgress = 0;
  tolerance: number;

  constructor(tolerance = DEFAULT_TOLERANCE) {
    this.tolerance = tolerance;
  }

  /**
   * Progress = a bound moving by a thousandth of the gap (by the tolerance while either bound is
   * unknown: the gap is infinite, but a falling dual is still progress).
   */
  significance(): number {
    const { bestDual, bestPrimal, tolerance } = this;
    if (bestPrimal === NEG_INF || bestDual === POS_INF) {
      return tolerance * Math.max(1, Math.abs(bestDual === POS_INF ? 0 : bestDual));
    }
    return Math.max(tolerance * Math.max(1, Math.abs(bestDual)), 1e-3 * (bestDual - bestPrimal));
  }

  /**
   * The certificate against `bound` (default the best dual): the relative gap closed, or, where
   * the caller has proven the slaves agree with the KKT conditions met, `agreed`.
   */
  certified(bound = this.bestDual, agreed = false): boolean {
    const { bestPrimal } = this;
    return (
      bestPrimal > NEG_INF &&
      (agreed || bound - bestPrimal <= this.tolerance * Math.max(1, Math.abs(bound)))
    );
  }

  /** A dual seen at `tick`: kept when lowest; progress when it fell by more than `significant`. */
  seeDual(dual: number, tick: number, significant: number): void {
    if (dual < this.bestDual - significant) this.lastProgress = tick;
    if (dual < this.bestDual) this.bestDual = dual;
  }

  /** Progress when the best primal rose by more than `significant` since `before`, or first appeared. */
  seePrimal(before: number, tick: number, significant: number): void {
    const { bestPrimal } = this;
    if (bestPrimal > before + significant || (before === NEG_INF && bestPrimal > NEG_INF)) {
      this.lastProgress = tick;
    }
  }

  /** The decoding's bounds at the end (an infeasible run has −∞ for both). */
  outcome(status: SolutionStatus, iterations: number): BoundsOutcome {
    const infeasible = status === "infeasible";
    const primal = infeasible ? NEG_INF : this.bestPrimal;
    const dual = infeasible ? NEG_INF : this.bestDual;
    return {
      primal,
      dual,
      status,
      iterations,
      certified: status === "optimal",
      gap: primal > NEG_INF ? Math.max(0, dual - primal) : POS_INF,
    };
  }
}
