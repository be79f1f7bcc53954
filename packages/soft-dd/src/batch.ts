import { throwIfAborted } from "@lagrange/core";
import type {
  ConstrainedProblem,
  SoftDDSolution,
  SoftDDSolveOptions,
  SoftDDSolver,
} from "./soft-dd.ts";

/** Aggregate statistics of a decoded dataset: the columns of the paper's Table 2 and more. */
export interface BatchSummary {
  readonly examples: number;
  /** Mean slave calls per example (the paper: 1.83). */
  readonly meanIterations: number;
  readonly maxIterations: number;
  /** Share of examples with a certificate of optimality, in [0, 1]. */
  readonly certifiedRate: number;
  /** Share whose first iterate (the unconstrained labelling) violated some constraint. */
  readonly initiallyViolatedRate: number;
  /** Mean iterations over those examples only (the paper: 4.52). */
  readonly meanIterationsWhenInitiallyViolated: number;
  /** Initially violated, and the returned labelling violates nothing (the paper: 11.99%). */
  readonly repairedRate: number;
  /** The returned labelling still violates some (soft) constraint (the paper: 11.72%). */
  readonly stillViolatedRate: number;
  /** Examples whose returned labels differ from the unconstrained labelling. */
  readonly changedRate: number;
  readonly infeasible: number;
  /** Total wall time spent in `solve`, in milliseconds (0 when summarising solutions only). */
  readonly totalTimeMs: number;
  readonly meanTimeMs: number;
}

/** Summarises already-decoded examples (e.g. when a CLI streams and decodes them itself). */
export function summarizeSolutions(
  solutions: readonly SoftDDSolution[],
  totalTimeMs = 0,
): BatchSummary {
  const examples = solutions.length;
  let iterations = 0;
  let maxIterations = 0;
  let certified = 0;
  let initiallyViolated = 0;
  let iterationsWhenViolated = 0;
  let repaired = 0;
  let stillViolated = 0;
  let changed = 0;
  let infeasible = 0;
  for (const s of solutions) {
    iterations += s.iterations;
    if (s.iterations > maxIterations) maxIterations = s.iterations;
    if (s.stats.certified) certified++;
    if (s.status === "infeasible") infeasible++;
    if (s.stats.initiallyViolated > 0) {
      initiallyViolated++;
      iterationsWhenViolated += s.iterations;
      if (s.stats.violated === 0) repaired++;
    }
    if (s.stats.violated > 0) stillViolated++;
    const before = s.stats.unconstrainedLabels;
    for (let i = 0; i < before.length; i++) {
      if (before[i] !== s.labels[i]) {
        changed++;
        break;
      }
    }
  }
  const share = (k: number) => (examples === 0 ? 0 : k / examples);
  return {
    examples,
    meanIterations: share(iterations),
    maxIterations,
    certifiedRate: share(certified),
    initiallyViolatedRate: share(initiallyViolated),
    meanIterationsWhenInitiallyViolated:
      initiallyViolated === 0 ? 0 : iterationsWhenViolated / initiallyViolated,
    repairedRate: share(repaired),
    stillViolatedRate: share(stillViolated),
    changedRate: share(changed),
    infeasible,
    totalTimeMs,
    meanTimeMs: share(totalTimeMs),
  };
}

export interface DecodeAllOptions extends SoftDDSolveOptions {
  /** Progress: called after each example with its index and solution. */
  readonly onExample?: (index: number, solution: SoftDDSolution) => void;
}

/**
 * Decodes every problem with `solver` and aggregates the statistics. Problems may be produced
 * lazily (an iterable), so a dataset's slaves need not all be alive at once.
 */
export function decodeAll(
  problems: Iterable<ConstrainedProblem>,
  solver: SoftDDSolver,
  options: DecodeAllOptions = {},
): { solutions: SoftDDSolution[]; summary: BatchSummary } {
  const { onExample, ...solveOptions } = options;
  const solutions: SoftDDSolution[] = [];
  let totalTimeMs = 0;
  let index = 0;
  for (const problem of problems) {
    throwIfAborted(options.signal);
    const started = performance.now();
    const solution = solver.solve(problem, solveOptions);
    totalTimeMs += performance.now() - started;
    // Slaves may reuse their label buffers across problems; the solver already copied them.
    solutions.push(solution);
    onExample?.(index++, solution);
  }
  return { solutions, summary: summarizeSolutions(solutions, totalTimeMs) };
}
