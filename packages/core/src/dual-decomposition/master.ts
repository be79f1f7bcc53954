import type { LinearConstraint } from "../constraints.js";
import type { ConstraintStats, Decoding } from "../decoding.js";
import { LagrangeError, ProblemValidationError, throwIfAborted } from "../errors.js";
import {
  checkIterationCap,
  deadlineOf,
  type IterationStats,
  type Slave,
  type SolutionStatus,
  type SolveOptions,
} from "../solver.js";
import { MAX_ETA, MIN_ETA } from "./ad3/engine.js";
import { solveWithAd3 } from "./ad3/from-positions.js";
import { checkProblemSize, coverage, type SlaveBinding } from "./bindings.js";
import {
  type ConstraintMatrix,
  ConstraintMatrixCache,
  type ConstraintMode,
  countViolations,
  labellingActivities,
} from "./constraint-matrix.js";
import { type HardViolation, scoreGlobalLabelling } from "./labelling-score.js";
import {
  automaticInitial,
  DEFAULT_STEP_RULE,
  givenInitial,
  type StepRule,
  stepSize,
  validateStepRule,
} from "./step-rule.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

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
 * How the master moves its multipliers: `subgradient` (projected subgradient on the dual; the
 * default) or `ad3` (Martins et al. 2015's augmented-Lagrangian step: each slave solves a small
 * quadratic problem instead of a MAP problem; see ad3/).
 */
export type DualDecompositionStep = "subgradient" | "ad3";

export const DUAL_DECOMPOSITION_STEPS = [
  "subgradient",
  "ad3",
] as const satisfies readonly DualDecompositionStep[];

export interface DualDecompositionOptions extends SolveOptions {
  /** `subgradient` (default) or `ad3`. */
  readonly step?: DualDecompositionStep;
  /** AD3: the initial quadratic penalty η (default 1), adapted to balance the residuals. */
  readonly eta?: number;
  /**
   * AD3: branch and bound on fractional LP solutions until the duality gap closes (exact MAP).
   * The subgradient step has none: the decoders' option declarations refuse it there.
   */
  readonly exact?: boolean;
  /** Default `{ kind: "shrink-on-dual-increase" }` with an automatic initial step. */
  readonly stepRule?: StepRule;
  /** A step below this ends the run with status `converged` (no certificate). Default 1e-12. */
  readonly minStepSize?: number;
  /**
   * Slack allowed when checking a constraint of a labelling and the KKT conditions (coefficients
   * need not be integers). Default 1e-9.
   */
  readonly feasibilityTolerance?: number;
  /**
   * Stop with status `converged` when neither the best dual nor the best primal has moved by more
   * than a thousandth of the gap (by more than the tolerance while no labelling meets the hard
   * constraints) for this many iterations; 0 (the default) never stops early. On real constraint
   * sets the runs that do not certify are integrality gaps that stay frozen, so running on to the
   * cap only wastes slave calls (soft-dd uses 10).
   */
  readonly stallIterations?: number;
  /** `as-given` (default): constraints with a penalty are soft. `hard`: every constraint is hard. */
  readonly constraintMode?: ConstraintMode;
  /** Warm start for λ, one entry per constraint; projected onto [0, c] (soft) or [0, ∞) (hard). */
  readonly initialMultipliers?: ArrayLike<number>;
}

export interface DualDecompositionSolution extends Decoding {
  /** The lowest dual seen: an upper bound on the optimum (−∞ when proven infeasible). */
  readonly dual: number;
  /** Always there: the multipliers, the first iterate and what each violates. */
  readonly constraintStats: ConstraintStats;
}

const DEFAULTS = {
  maxIterations: 200,
  tolerance: 1e-6,
  minStepSize: 1e-12,
  feasibilityTolerance: 1e-9,
  stallIterations: 0,
};

const NO_CONSTRAINTS: readonly LinearConstraint[] = [];

function checkOptions(options: DualDecompositionOptions): void {
  const { maxIterations, tolerance, stallIterations } = options;
  checkIterationCap(maxIterations);
  if (tolerance !== undefined && !(tolerance >= 0)) {
    throw new ProblemValidationError(
      "options.tolerance",
      `expected a number ≥ 0, got ${tolerance}`,
    );
  }
  if (
    stallIterations !== undefined &&
    !(Number.isInteger(stallIterations) && stallIterations >= 0)
  ) {
    throw new ProblemValidationError(
      "options.stallIterations",
      `expected an integer ≥ 0, got ${stallIterations}`,
    );
  }
  if (options.stepRule !== undefined) validateStepRule(options.stepRule);
  if (options.step !== undefined && !DUAL_DECOMPOSITION_STEPS.includes(options.step)) {
    throw new ProblemValidationError(
      "options.step",
      `expected one of ${DUAL_DECOMPOSITION_STEPS.join(", ")}, got ${JSON.stringify(options.step)}`,
    );
  }
  if (options.eta !== undefined && !(options.eta >= MIN_ETA && options.eta <= MAX_ETA)) {
    throw new ProblemValidationError(
      "options.eta",
      `expected a number from ${MIN_ETA} to ${MAX_ETA}, got ${options.eta}`,
    );
  }
}

/**
 * Grow-only scratch arrays: a master reused across sentences allocates per solve only views on
 * them and a few small arrays (the returned ones among them), never per iteration.
 */
class Scratch {
  f64 = new Float64Array(0);
  i32 = new Int32Array(0);

  /** Consecutive views of `buffer`, `length` elements each. */
  take<T extends Float64Array | Int32Array>(buffer: T): (length: number) => T {
    let at = 0;
    return (length) => {
      at += length;
      return buffer.subarray(at - length, at) as T;
    };
  }

  grow(f64Size: number, i32Size: number): void {
    if (this.f64.length < f64Size)
      this.f64 = new Float64Array(Math.max(f64Size, 2 * this.f64.length));
    if (this.i32.length < i32Size)
      this.i32 = new Int32Array(Math.max(i32Size, 2 * this.i32.length));
  }
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
 * a·ȳ − b for λ (ȳ = the slaves' average).
 *
 * Certificates: the run stops with status `optimal` when the slaves agree and the KKT conditions
 * hold (then dual = primal exactly), or when the relative duality gap closes:
 *   best dual − best primal ≤ tolerance · max(1, |best dual|).
 * That is the one meaning of `tolerance` in Lagrange.
 *
 * Status `infeasible` is a proof: a slave has no feasible labelling, or a hard constraint cannot
 * be met by any labelling on its own. A run that ends without finding a labelling that meets the
 * hard constraints is `iteration-limit` or `converged` with primal −∞, and returns the labelling
 * that violated them least (`hardViolated > 0` says so).
 *
 * One instance keeps the compiled constraint matrices (by array) and its scratch buffers between
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
    const cover = coverage(n, L, problem.slaves, this.#identity.subarray(0, n));
    const constraints = problem.constraints ?? NO_CONSTRAINTS;
    const feasibilityTolerance = o.feasibilityTolerance ?? DEFAULTS.feasibilityTolerance;
    const matrix =
      constraints.length === 0
        ? null
        : this.#matrices.get(
            constraints,
            n,
            L,
            o.constraintMode ?? "as-given",
            feasibilityTolerance,
          );
    if (o.step === "ad3") {
      // AD3's first iteration is a MAP pass at λ = 0, which is the subgradient step's first: a
      // problem it certifies (or proves infeasible) then costs no AD3 set-up at all.
      const { onIteration, ...quiet } = o;
      const first = runMaster(
        problem,
        cover,
        matrix,
        { ...quiet, maxIterations: 1 },
        this.#scratch,
      );
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
      return solveWithAd3(n, L, cover, matrix, o);
    }
    return runMaster(problem, cover, matrix, o, this.#scratch);
  }
}

/** One-shot {@link DualDecomposition.solve}: no caches carried between calls. */
export function solveDualDecomposition(
  problem: DualDecompositionProblem,
  options: DualDecompositionOptions = {},
): DualDecompositionSolution {
  return new DualDecomposition().solve(problem, options);
}

/**
 * The master's loop over the phases of {@link MasterRun}: each iteration solves the slaves,
 * measures the constraints, recovers a primal labelling, checks the certificate and steps.
 */
function runMaster(
  problem: DualDecompositionProblem,
  cover: ReturnType<typeof coverage>,
  A: ConstraintMatrix | null,
  o: DualDecompositionOptions,
  scratch: Scratch,
): DualDecompositionSolution {
  const maxIterations = o.maxIterations ?? DEFAULTS.maxIterations;
  const minStepSize = o.minStepSize ?? DEFAULTS.minStepSize;
  const stallIterations = o.stallIterations ?? DEFAULTS.stallIterations;
  const { onIteration, signal } = o;
  const deadline = deadlineOf(o);
  const run = new MasterRun(problem, cover, A, o, scratch);
  if (o.initialMultipliers !== undefined) run.warmStart(o.initialMultipliers);
  if (A !== null && A.impossible >= 0) return run.finish("infeasible", NEG_INF, NEG_INF, 0);

  let status: SolutionStatus = "iteration-limit";
  let iterations = 0;
  for (let t = 1; t <= maxIterations; t++) {
    throwIfAborted(signal);
    // The first iteration always runs: it is the unconstrained labelling every run returns at least.
    if (t > 1 && deadline.expired()) {
      status = "time-limit";
      break;
    }
    iterations = t;
    const significant = run.significance();
    if (!run.solveSlaves()) return run.finish("infeasible", NEG_INF, NEG_INF, t);
    run.trackDual(t, significant);
    run.measureConstraints();
    const primalBefore = run.bestPrimal;
    run.recoverPrimal(t);
    run.trackPrimal(t, primalBefore, significant);
    const certified = run.certified();
    const step = run.stepSize(t);

    if (onIteration !== undefined) {
      const stats: IterationStats = {
        iteration: t,
        dual: run.dual,
        primal: run.bestPrimal,
        gap: run.bestDual - run.bestPrimal,
        stepSize: step,
        disagreements: run.disagreements + run.kktFailures,
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
    if (t === maxIterations) break;
    if ((stallIterations > 0 && t - run.lastProgress >= stallIterations) || step < minStepSize) {
      status = "converged";
      break;
    }
    run.step(step);
  }
  return run.finish(status, run.bestPrimal, run.bestDual, iterations);
}

/**
 * One solve of the master: its buffers — views on the master's grow-only scratch, laid out once
 * per solve — and its running bounds, with a method per phase. No phase allocates; the loops copy
 * the fields they read into locals first.
 */
class MasterRun {
  readonly n: number;
  readonly L: number;
  readonly S: number;
  readonly m: number;
  readonly localSize: number;
  readonly single: boolean;
  readonly slaves: readonly Slave[];
  readonly positions: readonly Int32Array[];
  /** Slaves covering each position. */
  readonly cover: Int32Array;
  readonly A: ConstraintMatrix | null;
  readonly tolerance: number;
  /** Feasibility tolerance of a constraint's activity. */
  readonly eps: number;
  readonly rule: StepRule;

  readonly lambda: Float64Array;
  readonly activity: Float64Array;
  /** −Aᵀλ. */
  readonly constraintAdjustment: Float64Array;
  readonly votes: Float64Array;
  readonly inverseCover: Float64Array;
  /** u. */
  readonly agreement: Float64Array;
  /** θ. */
  readonly adjustment: Float64Array;
  /** y^s − ȳ. */
  readonly gradient: Float64Array;
  readonly bestLabels: Int32Array;
  readonly candidate: Int32Array;
  /** Per position, the first slave's label (then free: a scratch global labelling). */
  readonly firstLabel: Int32Array;
  readonly slaveLabels: Int32Array;
  /** Labels being scored, per slave. */
  readonly scoring: Int32Array;
  /** A relaxed slave's indicators z (0/1, not one-hot), and which slaves gave them this iteration. */
  readonly slaveIndicators: Int32Array;
  readonly relaxed: Int32Array;
  /** Returned: not a view on the scratch. */
  readonly firstLabels: Int32Array;
  /** −Aᵀλ per column class (see ConstraintMatrix.columnClass), and the classes a step touched. */
  readonly classAdjustment: Float64Array;
  readonly touchedClasses: Int32Array;
  readonly classTouched: Int32Array;
  touchedCount = 0;
  readonly localOffset: Int32Array;
  readonly adjustmentViews: Float64Array[];
  readonly scoringViews: Int32Array[];

  // Across iterations.
  lambdaDotB = 0;
  bestPrimal = NEG_INF;
  bestDual = POS_INF;
  leastHardViolation = POS_INF;
  previousDual = POS_INF;
  dualIncreases = 0;
  initialStep: number;
  lastProgress = 0;
  /** Set by {@link evaluate}: how far its labelling breaks the hard constraints. */
  readonly candidateViolation: HardViolation = { hardViolation: 0 };

  // This iteration's.
  dual = 0;
  /** The lone slave's value (one slave). */
  singleValue = 0;
  /** One slave, and it returned indicators. */
  relaxedPrimal = false;
  /** ‖g‖² over the multipliers the projection lets move. */
  normSquared = 0;
  kktFailures = 0;
  penalty = 0;
  hardViolation = 0;
  disagreements = 0;

  /** Set-up: the views on the scratch, laid out one after another. */
  constructor(
    problem: DualDecompositionProblem,
    cover: ReturnType<typeof coverage>,
    A: ConstraintMatrix | null,
    o: DualDecompositionOptions,
    scratch: Scratch,
  ) {
    const { n, L } = problem;
    const { slaves, positions, single } = cover;
    const S = slaves.length;
    const m = A === null ? 0 : A.m;
    const size = n * L;
    this.n = n;
    this.L = L;
    this.S = S;
    this.m = m;
    this.single = single;
    this.slaves = slaves;
    this.positions = positions;
    this.cover = cover.cover;
    this.A = A;
    this.tolerance = o.tolerance ?? DEFAULTS.tolerance;
    this.eps = o.feasibilityTolerance ?? DEFAULTS.feasibilityTolerance;
    this.rule = o.stepRule ?? DEFAULT_STEP_RULE;
    this.initialStep = givenInitial(this.rule);

    let local = 0;
    for (let s = 0; s < S; s++) local += slaves[s]!.n;
    const localSize = single ? 0 : local * L;
    this.localSize = localSize;
    const classes = A === null ? 0 : A.classCount;
    scratch.grow(
      2 * m + 2 * size + n + 3 * localSize + classes,
      3 * n + 2 * local + localSize + S + 2 * classes,
    );
    const f64 = scratch.take(scratch.f64);
    const i32 = scratch.take(scratch.i32);
    this.lambda = f64(m).fill(0);
    this.activity = f64(m);
    this.constraintAdjustment = f64(size).fill(0);
    this.votes = f64(size);
    this.inverseCover = f64(n);
    this.agreement = f64(localSize).fill(0);
    this.adjustment = f64(localSize);
    this.gradient = f64(localSize);
    this.bestLabels = i32(n).fill(0);
    this.candidate = i32(n);
    this.firstLabel = i32(n);
    this.slaveLabels = i32(local);
    this.scoring = i32(local);
    this.slaveIndicators = i32(localSize);
    this.relaxed = i32(S);
    this.firstLabels = new Int32Array(n);
    this.classAdjustment = f64(classes).fill(0);
    this.touchedClasses = i32(classes);
    this.classTouched = i32(classes).fill(0);

    const localOffset = new Int32Array(S + 1);
    for (let s = 0; s < S; s++) localOffset[s + 1] = localOffset[s]! + slaves[s]!.n;
    this.localOffset = localOffset;
    const { adjustment, scoring } = this;
    this.adjustmentViews = single
      ? [this.constraintAdjustment]
      : slaves.map((_, s) => adjustment.subarray(localOffset[s]! * L, localOffset[s + 1]! * L));
    this.scoringViews = single
      ? [scoring]
      : slaves.map((_, s) => scoring.subarray(localOffset[s]!, localOffset[s + 1]!));
    for (let i = 0; i < n; i++) this.inverseCover[i] = 1 / this.cover[i]!;
  }

  /** Set-up: λ from a warm start, projected onto [0, c] or [0, ∞). */
  warmStart(init: ArrayLike<number>): void {
    const { m } = this;
    if (init.length !== m) {
      throw new ProblemValidationError(
        "options.initialMultipliers",
        `expected one multiplier per constraint (${m}), got ${init.length}`,
      );
    }
    const A = this.A!;
    for (let k = 0; k < m; k++) {
      const v = Math.min(A.upper[k]!, Math.max(0, Number(init[k])));
      if (!(Number.isFinite(v) && v > 0)) continue;
      this.lambda[k] = v;
      this.lambdaDotB += v * A.rhs[k]!;
      this.stepRow(k, v);
    }
    this.spreadClasses();
  }

  /** −Aᵀλ −= row k's terms · delta, on the classes; {@link spreadClasses} copies them out. */
  stepRow(k: number, delta: number): void {
    const { classRowStart, classIndex, classCoefficient } = this.A!;
    const { classAdjustment, classTouched, touchedClasses } = this;
    let touchedCount = this.touchedCount;
    for (let e = classRowStart[k]!; e < classRowStart[k + 1]!; e++) {
      const c = classIndex[e]!;
      classAdjustment[c]! -= classCoefficient[e]! * delta;
      if (classTouched[c] === 0) {
        classTouched[c] = 1;
        touchedClasses[touchedCount++] = c;
      }
    }
    this.touchedCount = touchedCount;
  }

  spreadClasses(): void {
    const touchedCount = this.touchedCount;
    if (touchedCount === 0) return;
    const { classMemberStart, classMembers } = this.A!;
    const { classAdjustment, classTouched, touchedClasses, constraintAdjustment } = this;
    for (let q = 0; q < touchedCount; q++) {
      const c = touchedClasses[q]!;
      const value = classAdjustment[c]!;
      for (let e = classMemberStart[c]!; e < classMemberStart[c + 1]!; e++) {
        constraintAdjustment[classMembers[e]!] = value;
      }
      classTouched[c] = 0;
    }
    this.touchedCount = 0;
  }

  /**
   * Progress = a bound moving by a thousandth of the gap (by the tolerance while no feasible
   * labelling is known: the gap is infinite, but a falling dual is still progress).
   */
  significance(): number {
    const { bestDual, bestPrimal } = this;
    const scale = this.tolerance * Math.max(1, Math.abs(bestDual === POS_INF ? 0 : bestDual));
    return bestPrimal === NEG_INF ? scale : Math.max(scale, 1e-3 * (bestDual - bestPrimal));
  }

  /**
   * Every slave maximises its score plus its adjustment: the dual, each slave's labels (and
   * indicators), the votes per indicator. False when a slave has no feasible labelling.
   */
  solveSlaves(): boolean {
    const { S, L, single, slaves, positions, localOffset, inverseCover } = this;
    const { adjustment, agreement, constraintAdjustment, adjustmentViews } = this;
    const { votes, firstLabel, slaveLabels, slaveIndicators, relaxed } = this;
    let dual = this.lambdaDotB;
    let singleValue = 0;
    let relaxedPrimal = false;
    if (!single) {
      votes.fill(0);
      firstLabel.fill(-1);
    }
    for (let s = 0; s < S; s++) {
      const map = positions[s]!;
      const slave = slaves[s]!;
      if (!single) {
        const base = localOffset[s]! * L;
        for (let j = 0; j < map.length; j++) {
          const g = map[j]! * L;
          const share = inverseCover[map[j]!]!;
          for (let t2 = 0; t2 < L; t2++) {
            const at = base + j * L + t2;
            adjustment[at] = agreement[at]! + constraintAdjustment[g + t2]! * share;
          }
        }
      }
      const result = slave.maximize(adjustmentViews[s]!);
      const value = result.value;
      if (Number.isNaN(value) || value === POS_INF) {
        throw new LagrangeError(
          "bad-input",
          `slave "${slave.name}" returned ${value}; expected a finite value or −∞ (are its scores finite?)`,
        );
      }
      if (value === NEG_INF) return false;
      dual += value;
      singleValue = value;
      const labels = result.labels;
      if (labels.length !== map.length) {
        throw new Error(
          `slave "${slave.name}" returned ${labels.length} labels, expected ${map.length}`,
        );
      }
      const out = localOffset[s]!;
      const indicators = result.indicators;
      if (indicators !== undefined && indicators.length !== map.length * L) {
        throw new Error(
          `slave "${slave.name}" returned ${indicators.length} indicators, expected n·L = ${map.length * L}`,
        );
      }
      relaxedPrimal ||= single && indicators !== undefined;
      relaxed[s] = single || indicators === undefined ? 0 : 1;
      for (let j = 0; j < map.length; j++) {
        const y = labels[j]!;
        if (!(y >= 0 && y < L)) {
          throw new Error(`slave "${slave.name}" returned label ${y} at position ${j}`);
        }
        slaveLabels[out + j] = y;
        if (single) continue;
        const i = map[j]!;
        if (firstLabel[i] === -1) firstLabel[i] = y;
        if (indicators === undefined) {
          votes[i * L + y]! += 1;
          continue;
        }
        const at = (out + j) * L;
        for (let t2 = 0; t2 < L; t2++) {
          const z = indicators[j * L + t2] === 0 ? 0 : 1;
          slaveIndicators[at + t2] = z;
          votes[i * L + t2]! += z;
        }
      }
    }
    this.dual = dual;
    this.singleValue = singleValue;
    this.relaxedPrimal = relaxedPrimal;
    return true;
  }

  /** The best dual so far, whether it progressed, and how often the dual rose (for the step). */
  trackDual(t: number, significant: number): void {
    const dual = this.dual;
    if (dual < this.bestDual - significant) this.lastProgress = t;
    if (dual < this.bestDual) this.bestDual = dual;
    if (dual > this.previousDual) this.dualIncreases++;
    this.previousDual = dual;
  }

  /** Activities a·ȳ, the KKT conditions, and ‖g‖² over the multipliers the projection lets move. */
  measureConstraints(): void {
    let normSquared = 0;
    let kktFailures = 0;
    let penalty = 0;
    let hardViolation = 0;
    const A = this.A;
    if (A !== null) {
      const { m, L, S, single, positions, localOffset, inverseCover, activity, lambda, eps } = this;
      const { relaxed, slaveIndicators, slaveLabels } = this;
      if (single) {
        labellingActivities(A, slaveLabels, activity);
      } else {
        activity.fill(0);
        for (let s = 0; s < S; s++) {
          const map = positions[s]!;
          const out = localOffset[s]!;
          for (let j = 0; j < map.length; j++) {
            const i = map[j]!;
            const share = inverseCover[i]!;
            for (let t2 = 0; t2 < L; t2++) {
              const on =
                relaxed[s] === 1
                  ? slaveIndicators[(out + j) * L + t2] === 1
                  : slaveLabels[out + j] === t2;
              if (!on) continue;
              const g = i * L + t2;
              for (let e = A.colStart[g]!; e < A.colStart[g + 1]!; e++) {
                activity[A.colRow[e]!]! += A.colCoefficient[e]! * share;
              }
            }
          }
        }
      }
      for (let k = 0; k < m; k++) {
        const excess = activity[k]! - A.rhs[k]!;
        const l = lambda[k]!;
        const cap = A.upper[k]!;
        if ((excess > 0 && l < cap) || (excess < 0 && l > 0)) normSquared += excess * excess;
        if (excess > eps) {
          if (A.hard[k] === 1) hardViolation += excess;
          else penalty += cap * excess;
          // A violated soft constraint needs λ = c; a hard one may not be violated.
          if (A.hard[k] === 1 || l < cap) kktFailures++;
        } else if (excess < -eps && l > 0) {
          kktFailures++; // complementary slackness: a slack constraint needs λ = 0
        }
      }
    }
    this.normSquared = normSquared;
    this.kktFailures = kktFailures;
    this.penalty = penalty;
    this.hardViolation = hardViolation;
  }

  /**
   * Primal candidates: the slave's own labelling (one slave), else the per-position majority
   * (ties: the first slave) and every slave that labels all positions; then, with several slaves,
   * their disagreements and the agreement subgradient (its share of ‖g‖² included).
   */
  recoverPrimal(t: number): void {
    const { n, L, S, single, slaves, positions, localOffset, slaveLabels, firstLabels } = this;
    if (single && this.relaxedPrimal) {
      // A lone relaxed slave's value is not the score of its labelling: score that instead.
      this.consider(slaveLabels, this.evaluate(slaveLabels), this.candidateViolation.hardViolation);
      if (t === 1) firstLabels.set(slaveLabels);
      this.disagreements = 0;
      return;
    }
    if (single) {
      const constraintAdjustment = this.constraintAdjustment;
      let adjustmentOfY = 0;
      for (let i = 0; i < n; i++) adjustmentOfY += constraintAdjustment[i * L + slaveLabels[i]!]!;
      const primal =
        this.hardViolation > 0 ? NEG_INF : this.singleValue - adjustmentOfY - this.penalty;
      this.consider(slaveLabels, primal, this.hardViolation);
      if (t === 1) firstLabels.set(slaveLabels);
      this.disagreements = 0;
      return;
    }
    const { votes, firstLabel, candidate, cover } = this;
    for (let i = 0; i < n; i++) {
      let label = firstLabel[i]!;
      let most = votes[i * L + label]!;
      for (let t2 = 0; t2 < L; t2++) {
        if (votes[i * L + t2]! > most) {
          most = votes[i * L + t2]!;
          label = t2;
        }
      }
      candidate[i] = label;
    }
    if (t === 1) firstLabels.set(candidate);
    this.consider(candidate, this.evaluate(candidate), this.candidateViolation.hardViolation);
    for (let s = 0; s < S; s++) {
      if (slaves[s]!.n !== n) continue;
      const map = positions[s]!;
      const out = localOffset[s]!;
      let differs = false;
      for (let j = 0; j < n && !differs; j++) differs = slaveLabels[out + j] !== candidate[map[j]!];
      if (!differs) continue;
      // firstLabel is free once the majority is taken: it holds this slave's global labelling.
      for (let j = 0; j < n; j++) firstLabel[map[j]!] = slaveLabels[out + j]!;
      this.consider(firstLabel, this.evaluate(firstLabel), this.candidateViolation.hardViolation);
    }
    // Disagreement and its share of ‖g‖²: y^s − ȳ on indicators covered by several slaves.
    let disagreements = 0;
    for (let i = 0; i < n; i++) {
      const c = cover[i]!;
      if (c === 1) continue;
      for (let g = i * L; g < i * L + L; g++) {
        const v = votes[g]!;
        if (v > 0 && v < c) disagreements++;
      }
    }
    this.disagreements = disagreements;
    // The agreement subgradient y^s − ȳ, kept for the step (0 where one slave covers).
    if (disagreements > 0) {
      const { relaxed, slaveIndicators, gradient, inverseCover } = this;
      let normSquared = this.normSquared;
      for (let s = 0; s < S; s++) {
        const map = positions[s]!;
        const out = localOffset[s]!;
        const isRelaxed = relaxed[s] === 1;
        for (let j = 0; j < map.length; j++) {
          const i = map[j]!;
          const y = slaveLabels[out + j]!;
          const at = (out + j) * L;
          for (let t2 = 0; t2 < L; t2++) {
            const own = isRelaxed ? slaveIndicators[at + t2]! : y === t2 ? 1 : 0;
            const d = cover[i] === 1 ? 0 : own - votes[i * L + t2]! * inverseCover[i]!;
            gradient[at + t2] = d;
            normSquared += d * d;
          }
        }
      }
      this.normSquared = normSquared;
    }
  }

  /** Whether the best primal progressed this iteration (a first feasible labelling does). */
  trackPrimal(t: number, primalBefore: number, significant: number): void {
    const bestPrimal = this.bestPrimal;
    if (
      bestPrimal > primalBefore + significant ||
      (primalBefore === NEG_INF && bestPrimal > NEG_INF)
    ) {
      this.lastProgress = t;
    }
  }

  /** The certificate: agreement with the KKT conditions, or a closed relative gap. */
  certified(): boolean {
    const { bestPrimal, bestDual } = this;
    return (
      bestPrimal > NEG_INF &&
      ((this.disagreements === 0 && this.kktFailures === 0) ||
        bestDual - bestPrimal <= this.tolerance * Math.max(1, Math.abs(bestDual)))
    );
  }

  /** This iteration's step size (the first sets the automatic initial step). */
  stepSize(t: number): number {
    const { dual, bestPrimal, normSquared } = this;
    if (this.initialStep === 0) {
      this.initialStep = automaticInitial(dual, bestPrimal, normSquared, this.n);
    }
    return stepSize(
      this.rule,
      t,
      dual,
      bestPrimal,
      normSquared,
      this.dualIncreases,
      this.initialStep,
    );
  }

  /** Projected subgradient step: u ← u − α(y^s − ȳ); λ ← Π(λ + α(a·ȳ − b)), −Aᵀλ kept in sync. */
  step(step: number): void {
    if (this.disagreements > 0) {
      const { agreement, gradient, localSize } = this;
      for (let g = 0; g < localSize; g++) agreement[g]! -= step * gradient[g]!;
    }
    const A = this.A;
    if (A !== null) {
      const { m, lambda, activity } = this;
      let lambdaDotB = this.lambdaDotB;
      for (let k = 0; k < m; k++) {
        const old = lambda[k]!;
        let next = old + step * (activity[k]! - A.rhs[k]!);
        if (next < 0) next = 0;
        else if (next > A.upper[k]!) next = A.upper[k]!;
        const delta = next - old;
        if (delta === 0) continue;
        lambda[k] = next;
        lambdaDotB += delta * A.rhs[k]!;
        this.stepRow(k, delta);
      }
      this.lambdaDotB = lambdaDotB;
      this.spreadClasses();
    }
  }

  /** Σ_s score_s − soft penalties of a global labelling (−∞ if it breaks a hard constraint). */
  evaluate(y: Int32Array): number {
    const { slaves, positions, scoringViews, A, activity, eps } = this;
    return scoreGlobalLabelling(
      slaves,
      positions,
      scoringViews,
      A,
      activity,
      eps,
      y,
      this.candidateViolation,
    );
  }

  /** Keeps y if it is the best feasible labelling so far, or the least infeasible one while none is. */
  consider(y: Int32Array, primal: number, hardViolation: number): void {
    if (primal > this.bestPrimal) {
      this.bestPrimal = primal;
      this.bestLabels.set(y);
    } else if (this.bestPrimal === NEG_INF && hardViolation < this.leastHardViolation) {
      this.leastHardViolation = hardViolation;
      this.bestLabels.set(y);
    }
  }

  /** The solution: the best labelling and what the constraints did (first iterate included). */
  finish(
    status: SolutionStatus,
    primal: number,
    dual: number,
    iterations: number,
  ): DualDecompositionSolution {
    const { A, n, bestLabels, firstLabels, activity, eps } = this;
    let violated = 0;
    let hardViolated = 0;
    let firstViolated = 0;
    if (A !== null) {
      ({ violated, hardViolated } = countViolations(A, bestLabels, activity, eps));
      // Most runs end on their first labelling (certified at once): count it once.
      let same = true;
      for (let i = 0; i < n && same; i++) same = firstLabels[i] === bestLabels[i];
      firstViolated = same ? violated : countViolations(A, firstLabels, activity, eps).violated;
    }
    return {
      labels: bestLabels.slice(),
      primal,
      dual,
      status,
      iterations,
      certified: status === "optimal",
      gap: primal > NEG_INF ? Math.max(0, dual - primal) : POS_INF,
      constraintStats: {
        multipliers: this.lambda.slice(),
        firstLabels,
        firstViolated,
        violated,
        hardViolated,
      },
    };
  }
}
