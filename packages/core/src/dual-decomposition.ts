import { type LinearConstraint, validateConstraint } from "./constraints.ts";
import { ProblemValidationError, throwIfAborted } from "./errors.ts";
import type {
  IterationStats,
  Slave,
  Solution,
  SolutionStatus,
  SolveOptions,
  Solver,
} from "./solver.ts";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

/** A slave and the global positions it labels: its local position j is global `positions[j]`. */
export interface SlaveBinding {
  readonly slave: Slave;
  /** Distinct global positions, one per local position; absent = identity (the slave covers 0..n−1). */
  readonly positions?: Int32Array;
}

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

/**
 * Step-size rules for the projected subgradient step. `initial` absent: taken from the first
 * iteration as (dual − best primal) / ‖g‖² (a Polyak step), or max(1, |dual|/n) / ‖g‖² when no
 * feasible primal is known yet.
 * - `constant`: α_t = size.
 * - `one-over-t`: α_t = initial / (t + 1).
 * - `polyak`: α_t = scale · (dual_t − best primal) / ‖g_t‖² (scale in (0, 2), default 1);
 *   `initial / (t + 1)` while no feasible primal is known.
 * - `shrink-on-dual-increase` (Rush & Collins 2012): α_t = initial / (1 + number of iterations
 *   whose dual rose above the previous one). The default.
 */
export type StepRule =
  | { readonly kind: "constant"; readonly size: number }
  | { readonly kind: "one-over-t"; readonly initial?: number }
  | { readonly kind: "polyak"; readonly scale?: number; readonly initial?: number }
  | { readonly kind: "shrink-on-dual-increase"; readonly initial?: number };

export interface DualDecompositionOptions extends SolveOptions {
  /** Default `{ kind: "shrink-on-dual-increase" }`. */
  readonly stepRule?: StepRule;
  /** A step below this ends the run with status `converged` (no certificate). Default 1e-12. */
  readonly minStepSize?: number;
  /**
   * Slack allowed when checking a hard constraint of a primal labelling and the KKT conditions
   * (non-integer coefficients). Default 1e-9.
   */
  readonly feasibilityTolerance?: number;
}

export interface DualDecompositionSolution extends Solution {
  /** The lowest dual seen: an upper bound on the optimum (−∞ when proven infeasible). */
  readonly dual: number;
  /** λ_k per constraint at the end of the run (the constraints that "fired" are > 0). */
  readonly constraintMultipliers: Float64Array;
}

const DEFAULTS = {
  maxIterations: 200,
  tolerance: 1e-6,
  minStepSize: 1e-12,
  feasibilityTolerance: 1e-9,
};

interface Prepared {
  readonly n: number;
  readonly L: number;
  readonly slaves: readonly Slave[];
  readonly positions: readonly Int32Array[];
  readonly cover: Int32Array;
  readonly constraints: readonly LinearConstraint[];
}

function prepare(problem: DualDecompositionProblem): Prepared {
  const { n, L } = problem;
  if (!Number.isInteger(n) || n < 1) {
    throw new ProblemValidationError(
      "problem.n",
      `expected an integer ≥ 1 (an empty sequence has nothing to label), got ${n}`,
    );
  }
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError("problem.L", `expected an integer ≥ 1, got ${L}`);
  }
  if (problem.slaves.length === 0) {
    throw new ProblemValidationError("problem.slaves", "expected at least one slave");
  }
  const cover = new Int32Array(n);
  const positions: Int32Array[] = [];
  const slaves: Slave[] = [];
  problem.slaves.forEach((binding, s) => {
    const { slave } = binding;
    const at = `problem.slaves[${s}]`;
    if (slave.L !== L) {
      throw new ProblemValidationError(
        `${at}.slave.L`,
        `slave "${slave.name}" has L = ${slave.L}, the problem has L = ${L}`,
      );
    }
    let map = binding.positions;
    if (map === undefined) {
      if (slave.n !== n) {
        throw new ProblemValidationError(
          `${at}.positions`,
          `slave "${slave.name}" labels ${slave.n} positions, the problem has ${n}: give its positions`,
        );
      }
      map = new Int32Array(n);
      for (let i = 0; i < n; i++) map[i] = i;
    } else if (map.length !== slave.n) {
      throw new ProblemValidationError(
        `${at}.positions`,
        `expected ${slave.n} positions (slave "${slave.name}" has n = ${slave.n}), got ${map.length}`,
      );
    }
    const seen = new Uint8Array(n);
    for (let j = 0; j < map.length; j++) {
      const i = map[j]!;
      if (i < 0 || i >= n) {
        throw new ProblemValidationError(
          `${at}.positions[${j}]`,
          `expected a position in 0..${n - 1}, got ${i}`,
        );
      }
      if (seen[i] === 1) {
        throw new ProblemValidationError(
          `${at}.positions[${j}]`,
          `position ${i} appears twice in one slave`,
        );
      }
      seen[i] = 1;
      cover[i] = cover[i]! + 1;
    }
    positions.push(map);
    slaves.push(slave);
  });
  for (let i = 0; i < n; i++) {
    if (cover[i] === 0) {
      throw new ProblemValidationError(
        "problem.slaves",
        `position ${i} is covered by no slave; every position needs at least one`,
      );
    }
  }
  const constraints = problem.constraints ?? [];
  constraints.forEach((c, k) => {
    validateConstraint(c, n, L, `problem.constraints[${k}]`);
  });
  return { n, L, slaves, positions, cover, constraints };
}

function checkOptions(options: DualDecompositionOptions): void {
  const { maxIterations, tolerance, stepRule } = options;
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new ProblemValidationError(
      "options.maxIterations",
      `expected an integer ≥ 1, got ${maxIterations}`,
    );
  }
  if (tolerance !== undefined && !(tolerance >= 0)) {
    throw new ProblemValidationError(
      "options.tolerance",
      `expected a number ≥ 0, got ${tolerance}`,
    );
  }
  if (stepRule !== undefined) {
    const value =
      stepRule.kind === "constant"
        ? stepRule.size
        : stepRule.kind === "polyak"
          ? (stepRule.scale ?? 1)
          : (stepRule.initial ?? 1);
    if (!(value > 0 && Number.isFinite(value))) {
      throw new ProblemValidationError(
        "options.stepRule",
        `expected a finite positive step parameter, got ${value}`,
      );
    }
    if (stepRule.kind === "polyak" && stepRule.initial !== undefined && !(stepRule.initial > 0)) {
      throw new ProblemValidationError(
        "options.stepRule.initial",
        `expected a positive number, got ${stepRule.initial}`,
      );
    }
  }
}

/**
 * Projected-subgradient dual decomposition (Komodakis et al. 2011; Rush & Collins 2012).
 *
 * Each slave s keeps its own copy y^s of the indicators it covers. Two kinds of multipliers:
 * - agreement u_{s,g} on every indicator g covered by ≥ 2 slaves, with Σ_s u_{s,g} = 0;
 * - λ_k per constraint, in [0, ∞) (hard) or [0, c_k] (soft).
 * Slave s maximises score_s(y^s) + θ_s·y^s with θ_s[g] = u_{s,g} − (Aᵀλ)_g / cover(g): the
 * constraint term −λᵀ(Ay − b) is split equally among the slaves covering each indicator. The dual
 * Σ_s max_s + λᵀb bounds the optimum from above; its subgradient is y^s − ȳ for u and a·ȳ − b for λ
 * (ȳ = the slaves' average). A primal labelling (each full-cover slave's labelling and the
 * per-position majority vote) is scored every iteration; the best one is kept, and when best dual −
 * best primal ≤ tolerance · max(1, |dual|) the run stops with status `optimal` (a certificate).
 *
 * Status: `optimal` (certificate), `infeasible` (a slave has no feasible labelling, or a hard
 * constraint cannot be met by any labelling), `converged` (the step fell under `minStepSize`),
 * `iteration-limit` (cap reached or the callback returned false; the best primal is returned, with
 * primal −∞ when no labelling met the hard constraints).
 *
 * All buffers are allocated once per solve; an iteration allocates nothing (apart from the stats
 * object handed to `onIteration`, when one is given).
 */
export function solveDualDecomposition(
  problem: DualDecompositionProblem,
  options: DualDecompositionOptions = {},
): DualDecompositionSolution {
  checkOptions(options);
  const { n, L, slaves, positions, cover, constraints } = prepare(problem);
  const maxIterations = options.maxIterations ?? DEFAULTS.maxIterations;
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  const minStepSize = options.minStepSize ?? DEFAULTS.minStepSize;
  const feasibilityTolerance = options.feasibilityTolerance ?? DEFAULTS.feasibilityTolerance;
  const stepRule: StepRule = options.stepRule ?? { kind: "shrink-on-dual-increase" };
  const { onIteration, signal } = options;

  const S = slaves.length;
  const K = constraints.length;
  const size = n * L;

  // Per-slave local blocks live in shared flat buffers; views are made once.
  const localOffset = new Int32Array(S + 1);
  const labelOffset = new Int32Array(S + 1);
  for (let s = 0; s < S; s++) {
    localOffset[s + 1] = localOffset[s]! + slaves[s]!.n * L;
    labelOffset[s + 1] = labelOffset[s]! + slaves[s]!.n;
  }
  const agreement = new Float64Array(localOffset[S]!); // u
  const adjustment = new Float64Array(localOffset[S]!); // θ
  const adjustmentViews = slaves.map((_, s) =>
    adjustment.subarray(localOffset[s]!, localOffset[s + 1]!),
  );
  const slaveLabels = new Int32Array(labelOffset[S]!);
  const scoringLabels = slaves.map((slave) => new Int32Array(slave.n));
  const fullCover = slaves.map((slave) => slave.n === n);
  const inverseCover = new Float64Array(n);
  for (let i = 0; i < n; i++) inverseCover[i] = 1 / cover[i]!;

  const votes = new Float64Array(size); // Σ_s y^s_g
  const firstLabel = new Int32Array(n);
  const constraintTerm = new Float64Array(size); // (Aᵀλ)_g
  const candidate = new Int32Array(n);
  const bestLabels = new Int32Array(n);

  // Constraint terms flattened, with the position and label of every indicator precomputed.
  const termStart = new Int32Array(K + 1);
  for (let k = 0; k < K; k++) termStart[k + 1] = termStart[k]! + constraints[k]!.indices.length;
  const termIndex = new Int32Array(termStart[K]!);
  const termPosition = new Int32Array(termStart[K]!);
  const termLabel = new Int32Array(termStart[K]!);
  const termCoefficient = new Float64Array(termStart[K]!);
  const rhs = new Float64Array(K);
  const upper = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    const c = constraints[k]!;
    rhs[k] = c.rhs;
    upper[k] = c.penalty ?? POS_INF;
    for (let e = 0; e < c.indices.length; e++) {
      const index = c.indices[e]!;
      const at = termStart[k]! + e;
      termIndex[at] = index;
      termPosition[at] = Math.floor(index / L);
      termLabel[at] = index - termPosition[at]! * L;
      termCoefficient[at] = c.coefficients[e]!;
    }
  }
  const lambda = new Float64Array(K);
  const residual = new Float64Array(K);

  const finish = (
    status: SolutionStatus,
    labels: Int32Array,
    primal: number,
    dual: number,
    iterations: number,
  ): DualDecompositionSolution => ({
    labels: Int32Array.from(labels),
    primal,
    dual,
    status,
    iterations,
    constraintMultipliers: Float64Array.from(lambda),
  });

  // A hard constraint no labelling can meet: min over one-hot y of a·y exceeds b.
  if (K > 0) {
    const perLabel = new Float64Array(size);
    const touched = new Uint8Array(n);
    for (let k = 0; k < K; k++) {
      if (upper[k] !== POS_INF) continue;
      let minActivity = 0;
      for (let e = termStart[k]!; e < termStart[k + 1]!; e++) {
        perLabel[termIndex[e]!] = perLabel[termIndex[e]!]! + termCoefficient[e]!;
        touched[termPosition[e]!] = 1;
      }
      for (let e = termStart[k]!; e < termStart[k + 1]!; e++) {
        const i = termPosition[e]!;
        if (touched[i] === 0) continue;
        touched[i] = 0;
        let least = POS_INF;
        for (let t = 0; t < L; t++) least = Math.min(least, perLabel[i * L + t]!);
        minActivity += least;
      }
      for (let e = termStart[k]!; e < termStart[k + 1]!; e++) perLabel[termIndex[e]!] = 0;
      if (minActivity > rhs[k]! + feasibilityTolerance) {
        return finish("infeasible", candidate, NEG_INF, NEG_INF, 0);
      }
    }
  }

  /** The objective of a global labelling: Σ_s score_s − soft penalties; −∞ if infeasible. */
  const evaluate = (y: Int32Array): number => {
    let total = 0;
    for (let s = 0; s < S; s++) {
      const map = positions[s]!;
      const local = scoringLabels[s]!;
      for (let j = 0; j < map.length; j++) local[j] = y[map[j]!]!;
      const value = slaves[s]!.score(local);
      if (Number.isNaN(value)) {
        throw new Error(`slave "${slaves[s]!.name}" scored a labelling as NaN`);
      }
      if (value === NEG_INF) return NEG_INF;
      total += value;
    }
    for (let k = 0; k < K; k++) {
      let activity = 0;
      for (let e = termStart[k]!; e < termStart[k + 1]!; e++) {
        if (y[termPosition[e]!] === termLabel[e]) activity += termCoefficient[e]!;
      }
      const violation = activity - rhs[k]!;
      if (violation > feasibilityTolerance) {
        if (upper[k] === POS_INF) return NEG_INF;
        total -= upper[k]! * violation;
      }
    }
    return total;
  };

  let bestPrimal = NEG_INF;
  let bestDual = POS_INF;
  let previousDual = POS_INF;
  let dualIncreases = 0;
  let initialStep = stepRule.kind === "constant" ? stepRule.size : (stepRule.initial ?? 0);
  let status: SolutionStatus = "iteration-limit";
  let iterations = 0;

  const consider = (y: Int32Array): void => {
    if (bestPrimal > NEG_INF) {
      let same = true;
      for (let i = 0; i < n && same; i++) same = y[i] === bestLabels[i];
      if (same) return; // already the best: no need to score it again
    }
    const value = evaluate(y);
    if (value > bestPrimal) {
      bestPrimal = value;
      bestLabels.set(y);
    }
  };

  for (let iteration = 0; iteration < maxIterations; iteration++) {
    throwIfAborted(signal);
    iterations = iteration + 1;

    // θ_s = u_s − (Aᵀλ) / cover, then every slave maximises.
    if (K > 0) {
      constraintTerm.fill(0);
      for (let k = 0; k < K; k++) {
        const l = lambda[k]!;
        if (l === 0) continue;
        for (let e = termStart[k]!; e < termStart[k + 1]!; e++) {
          constraintTerm[termIndex[e]!] = constraintTerm[termIndex[e]!]! + l * termCoefficient[e]!;
        }
      }
    }
    let dual = 0;
    for (let k = 0; k < K; k++) dual += lambda[k]! * rhs[k]!;
    votes.fill(0);
    firstLabel.fill(-1);
    for (let s = 0; s < S; s++) {
      const map = positions[s]!;
      const base = localOffset[s]!;
      for (let j = 0; j < map.length; j++) {
        const g = map[j]! * L;
        const share = inverseCover[map[j]!]!;
        const local = base + j * L;
        for (let t = 0; t < L; t++) {
          adjustment[local + t] = agreement[local + t]! - constraintTerm[g + t]! * share;
        }
      }
      const slave = slaves[s]!;
      const result = slave.maximize(adjustmentViews[s]!);
      const value = result.value;
      if (Number.isNaN(value) || value === POS_INF) {
        throw new Error(`slave "${slave.name}" returned ${value}; expected a finite value or −∞`);
      }
      if (value === NEG_INF) {
        return finish("infeasible", candidate, NEG_INF, NEG_INF, iterations);
      }
      dual += value;
      const labels = result.labels;
      if (labels.length !== map.length) {
        throw new Error(
          `slave "${slave.name}" returned ${labels.length} labels, expected ${map.length}`,
        );
      }
      const out = labelOffset[s]!;
      for (let j = 0; j < map.length; j++) {
        const y = labels[j]!;
        if (!(y >= 0 && y < L)) {
          throw new Error(`slave "${slave.name}" returned label ${y} at position ${j}`);
        }
        slaveLabels[out + j] = y;
        const i = map[j]!;
        votes[i * L + y] = votes[i * L + y]! + 1;
        if (firstLabel[i] === -1) firstLabel[i] = y;
      }
    }
    if (dual < bestDual) bestDual = dual;
    if (dual > previousDual) dualIncreases++;
    previousDual = dual;

    // Primal recovery: the per-position majority (ties: the first slave), and every slave that
    // labels all positions.
    for (let i = 0; i < n; i++) {
      let label = firstLabel[i]!;
      let most = votes[i * L + label]!;
      for (let t = 0; t < L; t++) {
        if (votes[i * L + t]! > most) {
          most = votes[i * L + t]!;
          label = t;
        }
      }
      candidate[i] = label;
    }
    consider(candidate);
    for (let s = 0; s < S; s++) {
      if (!fullCover[s]) continue;
      const map = positions[s]!;
      const out = labelOffset[s]!;
      let differs = false;
      for (let j = 0; j < n; j++) {
        if (slaveLabels[out + j] !== candidate[map[j]!]) {
          differs = true;
          break;
        }
      }
      if (!differs) continue;
      for (let j = 0; j < n; j++) candidate[map[j]!] = slaveLabels[out + j]!;
      consider(candidate);
    }

    // Subgradient: y^s − ȳ on shared indicators, a·ȳ − b on constraints (projected for ‖g‖²).
    let normSquared = 0;
    let disagreements = 0;
    for (let i = 0; i < n; i++) {
      const m = cover[i]!;
      if (m === 1) continue;
      for (let g = i * L; g < i * L + L; g++) {
        const v = votes[g]!;
        if (v > 0 && v < m) disagreements++;
      }
    }
    if (disagreements > 0) {
      for (let s = 0; s < S; s++) {
        const map = positions[s]!;
        const out = labelOffset[s]!;
        for (let j = 0; j < map.length; j++) {
          const i = map[j]!;
          if (cover[i] === 1) continue;
          const y = slaveLabels[out + j]!;
          for (let t = 0; t < L; t++) {
            const d = (y === t ? 1 : 0) - votes[i * L + t]! * inverseCover[i]!;
            normSquared += d * d;
          }
        }
      }
    }
    for (let k = 0; k < K; k++) {
      let activity = 0;
      for (let e = termStart[k]!; e < termStart[k + 1]!; e++) {
        activity += termCoefficient[e]! * votes[termIndex[e]!]! * inverseCover[termPosition[e]!]!;
      }
      const r = activity - rhs[k]!;
      residual[k] = r;
      const l = lambda[k]!;
      const cap = upper[k]!;
      // Moves only when the projection lets it.
      if ((r > 0 && l < cap) || (r < 0 && l > 0)) normSquared += r * r;
      // KKT: λ·r = 0 for hard (and r ≤ 0); for soft, λ = c where violated and λ = 0 where slack.
      const slack = feasibilityTolerance;
      const kkt =
        cap === POS_INF
          ? r <= slack && Math.abs(l * r) <= slack * Math.max(1, l)
          : (r <= slack || l >= cap - slack) && (r >= -slack || l <= slack);
      if (!kkt) disagreements++;
    }

    const gap = bestDual - bestPrimal;
    const certified = gap <= tolerance * Math.max(1, Math.abs(bestDual));

    // Step size.
    if (initialStep === 0) {
      const denominator = normSquared > 0 ? normSquared : 1;
      const spread =
        bestPrimal > NEG_INF && dual - bestPrimal > 0
          ? dual - bestPrimal
          : Math.max(1, Math.abs(dual) / n);
      initialStep = spread / denominator;
    }
    let stepSize: number;
    switch (stepRule.kind) {
      case "constant":
        stepSize = stepRule.size;
        break;
      case "one-over-t":
        stepSize = initialStep / (iteration + 1);
        break;
      case "polyak":
        stepSize =
          bestPrimal > NEG_INF && normSquared > 0
            ? ((stepRule.scale ?? 1) * Math.max(0, dual - bestPrimal)) / normSquared
            : initialStep / (iteration + 1);
        break;
      case "shrink-on-dual-increase":
        stepSize = initialStep / (1 + dualIncreases);
        break;
    }

    if (onIteration !== undefined) {
      const stats: IterationStats = {
        iteration,
        dual,
        primal: bestPrimal,
        gap,
        stepSize,
        disagreements,
      };
      if (onIteration(stats) === false) {
        status = certified ? "optimal" : "iteration-limit";
        break;
      }
    }
    if (certified) {
      status = "optimal";
      break;
    }
    if (stepSize < minStepSize) {
      status = "converged";
      break;
    }

    // Projected subgradient step.
    if (disagreements > 0) {
      for (let s = 0; s < S; s++) {
        const map = positions[s]!;
        const base = localOffset[s]!;
        const out = labelOffset[s]!;
        for (let j = 0; j < map.length; j++) {
          const i = map[j]!;
          if (cover[i] === 1) continue;
          const y = slaveLabels[out + j]!;
          const local = base + j * L;
          for (let t = 0; t < L; t++) {
            const d = (y === t ? 1 : 0) - votes[i * L + t]! * inverseCover[i]!;
            agreement[local + t] = agreement[local + t]! - stepSize * d;
          }
        }
      }
    }
    for (let k = 0; k < K; k++) {
      const next = lambda[k]! + stepSize * residual[k]!;
      lambda[k] = next < 0 ? 0 : Math.min(next, upper[k]!);
    }
  }

  const labels = bestPrimal > NEG_INF ? bestLabels : candidate;
  return finish(status, labels, bestPrimal, bestDual, iterations);
}

/** The DD master as a `Solver`; `defaults` apply to every `solve` unless overridden there. */
export function dualDecompositionSolver(
  defaults: DualDecompositionOptions = {},
): Solver<DualDecompositionProblem> & {
  solve(
    problem: DualDecompositionProblem,
    options?: DualDecompositionOptions,
  ): DualDecompositionSolution;
} {
  return {
    name: "dual-decomposition",
    solve: (problem, options) => solveDualDecomposition(problem, { ...defaults, ...options }),
  };
}
