import { throwIfAborted } from "../errors.js";
import { type Deadline, deadlineOf, type SolutionStatus, type SolveOptions } from "../solver.js";

/**
 * What ends an iterative run from outside, the same for every step (the master's subgradient and
 * AD3 steps, AD3 on binary problems): the caller's signal, the deadline — checked from the second
 * iteration on: the first always runs, its labelling being the least a run returns — and
 * `onIteration`, which sees every iteration and may stop the run.
 */
export class RunControl {
  readonly deadline: Deadline;
  /** `onIteration` returned false: the caller wants the whole solve (a search included) to stop. */
  stopRequested = false;
  readonly #options: SolveOptions;

  constructor(options: SolveOptions) {
    this.#options = options;
    this.deadline = deadlineOf(options);
  }

  /** Before iteration t: throws when aborted; true when the deadline has passed (never at t = 1). */
  timeUp(t: number): boolean {
    throwIfAborted(this.#options.signal);
    return t > 1 && this.deadline.expired();
  }

  /**
   * After an iteration: reports it to `onIteration`, then says the status the run stops with —
   * `optimal` when `certified` (stopped or not), `iteration-limit` when the caller stopped it
   * uncertified — or null to go on.
   */
  report(
    certified: boolean,
    iteration: number,
    dual: number,
    primal: number,
    gap: number,
    stepSize: number,
    disagreements: number,
  ): SolutionStatus | null {
    const { onIteration } = this.#options;
    if (
      onIteration !== undefined &&
      onIteration({ iteration, dual, primal, gap, stepSize, disagreements }) === false
    ) {
      this.stopRequested = true;
      return certified ? "optimal" : "iteration-limit";
    }
    return certified ? "optimal" : null;
  }
}
