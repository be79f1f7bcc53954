import type { LinearConstraint } from "../constraints.js";
import {
  checkOptionBounds,
  DUAL_DECOMPOSITION_STEPS,
  type DualDecompositionStep,
  ETA_OPTION,
  EXACT_OPTION,
  MAX_ITERATIONS_OPTION,
  type OptionBounds,
  STEP_OPTION,
  TOLERANCE_OPTION,
} from "../decoder-options.js";
import { throwIfAborted } from "../errors.js";
import { DEFAULT_MAX_ITERATIONS, deadlineOf } from "../solver.js";
import { solveWithAd3 } from "./ad3-step.js";
import type { SlaveBinding } from "./bindings.js";
import { checkProblemSize, compileProblem } from "./compiled-problem.js";
import { ConstraintMatrixCache, type ConstraintMode } from "./constraint-matrix.js";
import type { LabellingSolution } from "./labelling-score.js";
import { validateStepRule } from "./step-rule.js";
import {
  runSubgradient,
  Scratch,
  SUBGRADIENT_DEFAULTS,
  type SubgradientOptions,
} from "./subgradient.js";

export { DUAL_DECOMPOSITION_STEPS, type DualDecompositionStep };

/**
 * max over global labellings y of  Σ_s slave_s.score(y restricted to its positions)
 *                                 − Σ_soft c_k · max(0, a_k·y − b_k)
 * subject to the hard constraints a_k·y ≤ b_k (indicator index `i*L + t`).
 * Every position must be covered by at least one slave.
 */
export interface DualDecompositionProblem {
  readonly n: number;
  readonly L: number;
  readonly slaves: readonly SlaveBinding[];
  readonly constraints?: readonly LinearConstraint[];
}

export interface DualDecompositionOptions extends SubgradientOptions {
  /**
   * `subgradient` (the library's default: penalty learning's runs, the demo's), `ad3`, or `auto`
   * (the decoders' declared default): subgradient, and where it stalls uncertified AD3 from the
   * bounds it reached (its own iteration cap; the same deadline and stall rule).
   */
  readonly step?: DualDecompositionStep;
  /** AD3: the initial quadratic penalty η (default 1), adapted to balance the residuals. */
  readonly eta?: number;
  /**
   * AD3: branch and bound on fractional LP solutions until the duality gap closes (exact MAP).
   * The subgradient step has none: the decoders' option declarations refuse it there.
   */
  readonly exact?: boolean;
  /** `as-given` (default): constraints with a penalty are soft. `hard`: every constraint is hard. */
  readonly constraintMode?: ConstraintMode;
}

/**
 * A decoding with the lowest dual seen (an upper bound on the optimum; −∞ when proven
 * infeasible) and, always, the constraint statistics: the multipliers, the first iterate and
 * what each violates.
 */
export type DualDecompositionSolution = LabellingSolution;

/** The master's options a caller may give: the DD decoders' declared ones, and the library's own. */
const MASTER_OPTION_BOUNDS: readonly OptionBounds[] = [
  MAX_ITERATIONS_OPTION,
  TOLERANCE_OPTION,
  STEP_OPTION,
  ETA_OPTION,
  EXACT_OPTION,
  { key: "stallIterations", type: "integer", min: 0 },
];

function checkOptions(options: DualDecompositionOptions): void {
  checkOptionBounds(MASTER_OPTION_BOUNDS, options);
  if (options.stepRule !== undefined) validateStepRule(options.stepRule);
}

/**
 * The one dual-decomposition master (Komodakis et al. 2011; Rush & Collins 2012; anzaroot2014's
 * Algorithms 1 and 2 are policies over it): projected subgradient descent on the dual of
 *   max_y Σ_s score_s(y) − Σ_soft c_k max(0, a_k·y − b_k)  s.t. hard a_k·y ≤ b_k.
 *
 * Each slave s keeps its own copy of the indicators it covers. Agreement multipliers u_{s,g} live on
 * every indicator covered by ≥ 2 slaves (Σ_s u_{s,g} = 0); λ_k per constraint lives in [0, ∞)
 * (hard) or [0, c_k] (soft). Slave s maximises score_s + θ_s·y with θ_s[g] = u_{s,g} − (Aᵀλ)_g /
 * cover(g). The dual Σ_s max_s + λᵀb bounds the optimum; its subgradient is y^s − ȳ for u and
 * a·ȳ − b for λ (ȳ = the slaves' average). The `ad3` step (ad3-step.ts) moves the same
 * multipliers by AD3's augmented Lagrangian over the same compiled problem.
 *
 * Certificates: the run stops with status `optimal` when the slaves agree and the KKT conditions
 * hold (then dual = primal exactly), or when the relative duality gap closes:
 *   best dual − best primal ≤ tolerance · max(1, |best dual|).
 * That is the one meaning of `tolerance` in Lagrange (see bounds.ts).
 *
 * Status `infeasible` is a proof: a slave has no feasible labelling, or a hard constraint cannot
 * be met by any labelling on its own. A run that ends without finding a labelling that meets the
 * hard constraints is `iteration-limit` or `converged` with primal −∞, and returns the labelling
 * that violated them least (`hardViolated > 0` says so).
 *
 * One instance keeps the compiled constraint matrices (by terms) and its scratch buffers between
 * solves: decode a corpus with one master. An iteration allocates nothing (but the stats object
 * handed to `onIteration`, when given); one slave covering every position in order is called with
 * the −Aᵀλ buffer itself, kept up to date by the λ step (no per-iteration copy).
 */
export class DualDecomposition {
  readonly name: string;
  readonly #defaults: DualDecompositionOptions;
  readonly #matrices = new ConstraintMatrixCache();
  readonly #scratch = new Scratch();
  #identity = new Int32Array(0);

  constructor(defaults: DualDecompositionOptions = {}, name = "dual-decomposition") {
    checkOptions(defaults);
    this.#defaults = defaults;
    this.name = name;
  }

  solve(
    problem: DualDecompositionProblem,
    options: DualDecompositionOptions = {},
  ): DualDecompositionSolution {
    checkOptions(options);
    const given: DualDecompositionOptions = { ...this.#defaults, ...options };
    // One deadline for the whole solve: AD3's MAP pass, its run and its branch and bound share it.
    const o: DualDecompositionOptions = { ...given, deadline: deadlineOf(given) };
    throwIfAborted(o.signal);
    const { n, L } = problem;
    checkProblemSize(n, L);
    if (this.#identity.length < n) {
      this.#identity = Int32Array.from(
        { length: Math.max(n, 2 * this.#identity.length) },
        (_, i) => i,
      );
    }
    const constraints = problem.constraints ?? [];
    const feasibilityTolerance =
      o.feasibilityTolerance ?? SUBGRADIENT_DEFAULTS.feasibilityTolerance;
    const mode = o.constraintMode ?? "as-given";
    const compiled = compileProblem(
      n,
      L,
      problem.slaves,
      this.#identity.subarray(0, n),
      () =>
        constraints.length === 0
          ? null
          : this.#matrices.get(constraints, n, L, mode, feasibilityTolerance),
      feasibilityTolerance,
    );
    const step = o.step ?? "subgradient";
    if (step === "ad3") {
      // AD3's first iteration is a MAP pass at λ = 0, which is the subgradient step's first: a
      // problem it certifies (or proves infeasible) then costs no AD3 set-up at all.
      const { onIteration, ...quiet } = o;
      const first = runSubgradient(compiled, quiet, 1, this.#scratch);
      if (first.certified || first.status === "infeasible") {
        // A hard constraint no labelling meets is proven before any iteration: nothing to report.
        if (first.iterations > 0)
          onIteration?.({
            iteration: 1,
            dual: first.dual,
            primal: first.primal,
            gap: first.gap,
            stepSize: o.eta ?? 1,
            disagreements: 0,
          });
        return first;
      }
      return solveWithAd3(compiled, o, { from: first, continues: false });
    }
    const maxIterations = o.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    const sub = runSubgradient(compiled, o, maxIterations, this.#scratch);
    if (step !== "auto" || sub.status !== "converged") return sub;
    // A stalled subgradient run is not always an integrality gap: on CoNLL-2003 dev documents
    // AD3 certifies every run the subgradient gives up on, from the bounds that run reached.
    const ad3 = solveWithAd3(compiled, o, { from: sub, continues: true });
    const { firstLabels, firstViolated } = sub.constraintStats;
    return { ...ad3, constraintStats: { ...ad3.constraintStats, firstLabels, firstViolated } };
  }
}

/** One-shot {@link DualDecomposition.solve}: no caches carried between calls. */
export function solveDualDecomposition(
  problem: DualDecompositionProblem,
  options: DualDecompositionOptions = {},
): DualDecompositionSolution {
  return new DualDecomposition().solve(problem, options);
}
