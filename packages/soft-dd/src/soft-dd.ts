import {
  type IterationStats,
  type LinearConstraint,
  ProblemValidationError,
  type Slave,
  type Solution,
  type SolveOptions,
  type Solver,
  throwIfAborted,
  validateConstraint,
} from "@lagrange/core";

/**
 * One slave (typically the chain CRF) plus linear constraints `a·y ≤ b` on its unary indicators
 * y[i*L + t]. A constraint with a `penalty` c is soft (the objective pays c·max(0, a·y − b)); one
 * without is hard.
 */
export interface ConstrainedProblem {
  readonly slave: Slave;
  readonly constraints: readonly LinearConstraint[];
}

/**
 * Step-size schedules for the projected subgradient step on λ.
 * - `dual-decrease` (default): η_t = initial / (1 + k), k = how many times the dual objective went
 *   up so far (Rush & Collins 2012, the schedule of the DD citation work).
 * - `harmonic`: η_t = initial / t.
 * - `constant`: η_t = initial.
 * - `polyak`: η_t = (D(λ_t) − best primal) / ‖g_t‖², g_t the subgradient restricted to the
 *   multipliers the projection lets move; `dual-decrease` until a primal is known.
 */
export type StepSizeRule = "dual-decrease" | "harmonic" | "constant" | "polyak";

export interface SoftDDOptions {
  /**
   * `as-given` (default): a constraint with a penalty is soft (Algorithm 2, λ ∈ [0, c]), one
   * without is hard (Algorithm 1, λ ≥ 0). `hard`: every constraint is treated as hard, penalties
   * ignored (the paper's "same constraints as hard constraints" experiment).
   */
  readonly mode?: "as-given" | "hard";
  readonly stepSize?: StepSizeRule;
  /** η₀, default 1 (a unit violation moves λ by one score unit). */
  readonly initialStepSize?: number;
  /** Default iteration cap when `SolveOptions.maxIterations` is not given (default 200). */
  readonly maxIterations?: number;
  /** Default certificate tolerance when `SolveOptions.tolerance` is not given (default 1e-6). */
  readonly tolerance?: number;
  /** Slack under which a·y − b counts as zero (default 1e-9): coefficients need not be integers. */
  readonly feasibilityTolerance?: number;
  /**
   * Stop with status `converged` (no certificate) when the gap between the best dual and the best
   * primal has not shrunk by more than a thousandth of itself (or `tolerance`) for this many
   * iterations (default 30; 0 disables). On real constraint sets the uncertified runs are
   * integrality gaps that stay frozen, so running on to the cap only wastes slave calls.
   */
  readonly stallIterations?: number;
}

export interface SoftDDSolveOptions extends SolveOptions {
  /** Warm start for λ (one entry per constraint); projected onto the feasible box. */
  readonly initialMultipliers?: ArrayLike<number>;
}

/** What one constrained decode did: the per-example statistics of the paper's Table 2. */
export interface SoftDDStats {
  /** Slave calls (1 = the unconstrained labelling already satisfied the KKT conditions). */
  readonly iterations: number;
  /** The returned labelling is provably optimal (KKT conditions hold or dual − primal ≤ tol). */
  readonly certified: boolean;
  /** Best dual − best primal (+∞ when no hard-feasible labelling was found). */
  readonly gap: number;
  /** Constraints the returned labelling violates (soft ones may stay violated). */
  readonly violated: number;
  /** Hard constraints the returned labelling violates (0 unless the status is `infeasible`). */
  readonly hardViolated: number;
  /** Constraints the first iterate violated: with λ₀ = 0, the unconstrained MAP labelling. */
  readonly initiallyViolated: number;
  /** The first iterate's labels (the unconstrained MAP labelling when λ₀ = 0). */
  readonly unconstrainedLabels: Int32Array;
  /** Final λ, one entry per constraint (λ_i > 0 marks a constraint that shaped the answer). */
  readonly multipliers: Float64Array;
}

export interface SoftDDSolution extends Solution {
  readonly dual: number;
  readonly stats: SoftDDStats;
}

export interface SoftDDSolver extends Solver<ConstrainedProblem> {
  solve(problem: ConstrainedProblem, options?: SoftDDSolveOptions): SoftDDSolution;
}

/**
 * Soft-DD (anzaroot2014, Algorithm 2) and hard-constraint DD (Algorithm 1) as one projected
 * subgradient method on the dual
 *   D(λ) = max_y [ s(y) − Σ_i λ_i (a_i·y − b_i) ],  0 ≤ λ_i ≤ c_i  (c_i = +∞ for hard constraints).
 * The slave only sees the unary adjustment −Aᵀλ, kept up to date incrementally in one buffer.
 */
export function softDD(options: SoftDDOptions = {}): SoftDDSolver {
  const mode = options.mode ?? "as-given";
  const rule = options.stepSize ?? "dual-decrease";
  const eta0 = options.initialStepSize ?? 1;
  if (!(eta0 > 0 && Number.isFinite(eta0))) {
    throw new RangeError(`initialStepSize: expected a finite number > 0, got ${eta0}`);
  }
  // Compiling A (validation, CSR and CSC) costs O(nnz), more than one Viterbi pass for a few
  // hundred count constraints; a decoder that reuses one constraint array per sentence length
  // (constraint-templates' `constraintInstantiator`) pays it once per length.
  // A hit is checked constraint by constraint (m pointer comparisons), so an array that a caller
  // refills between solves is recompiled rather than silently reused.
  const compiled = new WeakMap<readonly LinearConstraint[], CompiledConstraints>();
  const compileCached = (problem: ConstrainedProblem, n: number, L: number) => {
    const { constraints } = problem;
    const hit = compiled.get(constraints);
    if (
      hit !== undefined &&
      hit.n === n &&
      hit.L === L &&
      sameConstraints(hit.source, constraints)
    ) {
      return hit;
    }
    const fresh = compile(problem, mode, n, L);
    compiled.set(constraints, fresh);
    return fresh;
  };
  return {
    name: mode === "hard" ? "hard-dd" : "soft-dd",
    solve(problem, solveOptions = {}) {
      const { n, L } = problem.slave;
      throwIfAborted(solveOptions.signal);
      return runSubgradient(
        problem,
        compileCached(problem, n, L),
        rule,
        eta0,
        options,
        solveOptions,
      );
    },
  };
}

function sameConstraints(a: readonly LinearConstraint[], b: readonly LinearConstraint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Algorithm 1: every constraint hard (λ ≥ 0), penalties ignored. */
export function hardDD(options: Omit<SoftDDOptions, "mode"> = {}): SoftDDSolver {
  return softDD({ ...options, mode: "hard" });
}

/**
 * The constraint matrix A twice: by rows (CSR) for the λ step, which touches the terms of the
 * constraints whose λ moved, and by columns (CSC) for the activities A·y, which then cost only the
 * terms on the n indicators that y switches on instead of every term of every constraint.
 */
interface CompiledConstraints {
  /** The constraint objects compiled, in order (a snapshot of the array). */
  readonly source: readonly LinearConstraint[];
  readonly n: number;
  readonly L: number;
  readonly m: number;
  readonly rowStart: Int32Array;
  readonly index: Int32Array;
  readonly coefficient: Float64Array;
  readonly colStart: Int32Array;
  readonly colRow: Int32Array;
  readonly colCoefficient: Float64Array;
  readonly rhs: Float64Array;
  /** λ's upper bound: c_i, or +∞ for a hard constraint. */
  readonly upper: Float64Array;
  readonly hard: Uint8Array;
}

function compile(
  problem: ConstrainedProblem,
  mode: "as-given" | "hard",
  n: number,
  L: number,
): CompiledConstraints {
  const { constraints } = problem;
  const m = constraints.length;
  let nnz = 0;
  for (let i = 0; i < m; i++) {
    const c = constraints[i]!;
    validateConstraint(c, n, L, `constraints[${i}]`);
    nnz += c.indices.length;
  }
  const rowStart = new Int32Array(m + 1);
  const index = new Int32Array(nnz);
  const coefficient = new Float64Array(nnz);
  const colStart = new Int32Array(n * L + 1);
  const rhs = new Float64Array(m);
  const upper = new Float64Array(m);
  const hard = new Uint8Array(m);
  let k = 0;
  for (let i = 0; i < m; i++) {
    const c = constraints[i]!;
    rowStart[i] = k;
    for (let j = 0; j < c.indices.length; j++, k++) {
      const idx = c.indices[j]!;
      index[k] = idx;
      coefficient[k] = c.coefficients[j]!;
      colStart[idx + 1]!++;
    }
    rhs[i] = c.rhs;
    const isHard = mode === "hard" || c.penalty === undefined;
    hard[i] = isHard ? 1 : 0;
    upper[i] = isHard ? Number.POSITIVE_INFINITY : c.penalty!;
  }
  rowStart[m] = k;
  for (let j = 0; j < n * L; j++) colStart[j + 1]! += colStart[j]!;
  const colRow = new Int32Array(nnz);
  const colCoefficient = new Float64Array(nnz);
  const fill = colStart.slice(0, n * L);
  for (let i = 0; i < m; i++) {
    for (let q = rowStart[i]!; q < rowStart[i + 1]!; q++) {
      const at = fill[index[q]!]!++;
      colRow[at] = i;
      colCoefficient[at] = coefficient[q]!;
    }
  }
  return {
    source: constraints.slice(),
    n,
    L,
    m,
    rowStart,
    index,
    coefficient,
    colStart,
    colRow,
    colCoefficient,
    rhs,
    upper,
    hard,
  };
}

/** activity[i] = a_i·y for the labelling y. */
function computeActivities(
  cc: CompiledConstraints,
  labels: ArrayLike<number>,
  L: number,
  activity: Float64Array,
): void {
  activity.fill(0);
  const { colStart, colRow, colCoefficient } = cc;
  for (let p = 0; p < labels.length; p++) {
    const j = p * L + labels[p]!;
    for (let k = colStart[j]!; k < colStart[j + 1]!; k++) {
      activity[colRow[k]!]! += colCoefficient[k]!;
    }
  }
}

function runSubgradient(
  problem: ConstrainedProblem,
  cc: CompiledConstraints,
  rule: StepSizeRule,
  eta0: number,
  defaults: SoftDDOptions,
  options: SoftDDSolveOptions,
): SoftDDSolution {
  const { slave } = problem;
  const { n, L } = slave;
  const maxIterations = options.maxIterations ?? defaults.maxIterations ?? 200;
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new RangeError(`maxIterations: expected an integer ≥ 1, got ${maxIterations}`);
  }
  const tolerance = options.tolerance ?? defaults.tolerance ?? 1e-6;
  const eps = defaults.feasibilityTolerance ?? 1e-9;
  const stallIterations = defaults.stallIterations ?? 30;
  const { signal, onIteration } = options;
  const { m, rowStart, index, coefficient, rhs, upper, hard } = cc;

  // All buffers of the loop are allocated here, once per solve.
  const lambda = new Float64Array(m);
  const adjustment = new Float64Array(n * L);
  const activity = new Float64Array(m);
  const bestLabels = new Int32Array(n);
  const unconstrainedLabels = new Int32Array(n);
  let lambdaDotB = 0;
  if (options.initialMultipliers !== undefined) {
    const init = options.initialMultipliers;
    if (init.length !== m) {
      throw new ProblemValidationError(
        "initialMultipliers",
        `expected one multiplier per constraint (${m}), got ${init.length}`,
      );
    }
    for (let i = 0; i < m; i++) {
      const v = Math.min(upper[i]!, Math.max(0, Number(init[i])));
      lambda[i] = Number.isFinite(v) ? v : 0;
      if (lambda[i] === 0) continue;
      for (let k = rowStart[i]!; k < rowStart[i + 1]!; k++) {
        adjustment[index[k]!]! -= coefficient[k]! * lambda[i]!;
      }
      lambdaDotB += lambda[i]! * rhs[i]!;
    }
  }

  let bestPrimal = Number.NEGATIVE_INFINITY;
  let bestDual = Number.POSITIVE_INFINITY;
  let leastHardViolation = Number.POSITIVE_INFINITY;
  let previousDual = Number.POSITIVE_INFINITY;
  let dualIncreases = 0;
  let certified = false;
  let slaveInfeasible = false;
  let iterations = 0;
  let initiallyViolated = 0;
  let lastProgress = 0;
  let stalled = false;

  for (let t = 1; t <= maxIterations; t++) {
    throwIfAborted(signal);
    const result = slave.maximize(adjustment);
    iterations = t;
    if (result.value === Number.NEGATIVE_INFINITY) {
      // The slave has no labelling at all (e.g. a transition mask that forbids every path).
      slaveInfeasible = true;
      break;
    }
    const labels = result.labels;

    // Activities a_i·y, the slave's own score s(y) and the primal objective of y.
    computeActivities(cc, labels, L, activity);
    let adjustmentOfY = 0;
    for (let p = 0; p < n; p++) adjustmentOfY += adjustment[p * L + labels[p]!]!;
    const slaveScore = result.value - adjustmentOfY;
    let penalty = 0;
    let hardViolation = 0;
    let violatedNow = 0;
    let kktFailures = 0;
    let movable = 0;
    for (let i = 0; i < m; i++) {
      const excess = activity[i]! - rhs[i]!;
      const l = lambda[i]!;
      if ((excess > 0 && l < upper[i]!) || (excess < 0 && l > 0)) movable += excess * excess;
      if (excess > eps) {
        violatedNow++;
        if (hard[i]) hardViolation += excess;
        else penalty += upper[i]! * excess;
        // KKT: a violated soft constraint needs λ_i = c_i; a hard one may not be violated.
        if (hard[i] || l < upper[i]!) kktFailures++;
      } else if (excess < -eps && l > 0) {
        kktFailures++; // complementary slackness: slack constraint, λ_i must be 0
      }
    }
    if (t === 1) {
      initiallyViolated = violatedNow;
      unconstrainedLabels.set(labels);
    }
    const dual = result.value + lambdaDotB;
    // Progress = the gap shrinking by more than a thousandth of itself (or the tolerance).
    const significant = Math.max(tolerance, 1e-3 * (bestDual - bestPrimal));
    if (dual < bestDual - significant) lastProgress = t;
    if (dual < bestDual) bestDual = dual;
    if (hardViolation === 0) {
      const primal = slaveScore - penalty;
      if (primal > bestPrimal + significant) lastProgress = t;
      if (primal > bestPrimal) {
        bestPrimal = primal;
        bestLabels.set(labels);
      }
    } else if (bestPrimal === Number.NEGATIVE_INFINITY && hardViolation < leastHardViolation) {
      // Nothing feasible yet: keep the labelling closest to feasibility as the fallback answer.
      leastHardViolation = hardViolation;
      bestLabels.set(labels);
    }

    if (kktFailures === 0 || bestDual - bestPrimal <= tolerance) {
      certified = bestPrimal > Number.NEGATIVE_INFINITY;
      if (certified) break;
    }

    if (rule === "dual-decrease" && t > 1 && dual > previousDual) dualIncreases++;
    previousDual = dual;
    const eta =
      rule === "constant"
        ? eta0
        : rule === "harmonic"
          ? eta0 / t
          : rule === "polyak" && bestPrimal > Number.NEGATIVE_INFINITY && movable > 0
            ? (dual - bestPrimal) / movable
            : eta0 / (1 + dualIncreases);

    if (onIteration !== undefined) {
      const stats: IterationStats = {
        iteration: t,
        dual,
        primal: bestPrimal,
        gap: bestDual - bestPrimal,
        stepSize: eta,
        disagreements: kktFailures,
      };
      if (onIteration(stats) === false) break;
    }
    if (t === maxIterations) break;
    if (stallIterations > 0 && t - lastProgress >= stallIterations) {
      stalled = true;
      break;
    }

    // Projected subgradient step: λ ← Π_[0, c](λ + η (A y − b)), adjustment −Aᵀλ kept in sync.
    for (let i = 0; i < m; i++) {
      const old = lambda[i]!;
      let next = old + eta * (activity[i]! - rhs[i]!);
      if (next < 0) next = 0;
      else if (next > upper[i]!) next = upper[i]!;
      const delta = next - old;
      if (delta === 0) continue;
      lambda[i] = next;
      lambdaDotB += delta * rhs[i]!;
      for (let k = rowStart[i]!; k < rowStart[i + 1]!; k++) {
        adjustment[index[k]!]! -= coefficient[k]! * delta;
      }
    }
  }

  // Statistics of the returned labelling.
  let violated = 0;
  let hardViolated = 0;
  computeActivities(cc, bestLabels, L, activity);
  for (let i = 0; i < m; i++) {
    if (activity[i]! - rhs[i]! > eps) {
      violated++;
      if (hard[i]) hardViolated++;
    }
  }
  const feasible = bestPrimal > Number.NEGATIVE_INFINITY;
  const status = certified
    ? "optimal"
    : !feasible
      ? "infeasible"
      : stalled
        ? "converged"
        : "iteration-limit";
  const gap = feasible ? Math.max(0, bestDual - bestPrimal) : Number.POSITIVE_INFINITY;
  return {
    labels: bestLabels,
    primal: bestPrimal,
    dual: slaveInfeasible ? Number.NEGATIVE_INFINITY : bestDual,
    status,
    iterations,
    stats: {
      iterations,
      certified,
      gap,
      violated,
      hardViolated,
      initiallyViolated,
      unconstrainedLabels,
      multipliers: lambda,
    },
  };
}

/** The objective Soft-DD maximises: s(y) − Σ c·max(0, a·y − b); −∞ if a hard one is violated. */
export function constrainedObjective(
  problem: ConstrainedProblem,
  labels: ArrayLike<number>,
  options: { readonly mode?: "as-given" | "hard"; readonly feasibilityTolerance?: number } = {},
): number {
  const { slave, constraints } = problem;
  const eps = options.feasibilityTolerance ?? 1e-9;
  const base = slave.score(labels);
  if (base === Number.NEGATIVE_INFINITY) return base;
  let total = base;
  for (const c of constraints) {
    let sum = 0;
    for (let k = 0; k < c.indices.length; k++) {
      const idx = c.indices[k]!;
      const p = (idx / slave.L) | 0;
      if (labels[p] === idx - p * slave.L) sum += c.coefficients[k]!;
    }
    const excess = sum - c.rhs;
    if (excess <= eps) continue;
    if (options.mode === "hard" || c.penalty === undefined) return Number.NEGATIVE_INFINITY;
    total -= c.penalty * excess;
  }
  return total;
}
