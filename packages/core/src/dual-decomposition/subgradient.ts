import { LagrangeError, ProblemValidationError } from "../errors.js";
import type { SolutionStatus, SolveOptions } from "../solver.js";
import { Bounds } from "./bounds.js";
import type { CompiledProblem } from "./compiled-problem.js";
import { labellingActivities } from "./constraint-matrix.js";
import { type LabellingSolution, LabellingTracker } from "./labelling-score.js";
import { RunControl } from "./run-control.js";
import {
  automaticInitial,
  DEFAULT_STEP_RULE,
  givenInitial,
  type StepRule,
  stepSize,
} from "./step-rule.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

/**
 * Grow-only scratch arrays: a master reused across sentences allocates per solve only views on
 * them and a few small arrays (the returned ones among them), never per iteration.
 */
export class Scratch {
  // Typed without a buffer parameter: declarations must read under TypeScript 5.0 too.
  f64: Float64Array = new Float64Array(0);
  i32: Int32Array = new Int32Array(0);

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

/** What the subgradient step reads of the master's options. */
export interface SubgradientOptions extends SolveOptions {
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
  /** Warm start for λ, one entry per constraint; projected onto [0, c] (soft) or [0, ∞). */
  readonly initialMultipliers?: ArrayLike<number>;
}

/** The subgradient step's defaults. */
export const SUBGRADIENT_DEFAULTS = {
  minStepSize: 1e-12,
  feasibilityTolerance: 1e-9,
  stallIterations: 0,
};

/**
 * The subgradient step's loop over the phases of {@link MasterRun}: each iteration solves the
 * slaves, measures the constraints, recovers a primal labelling, checks the certificate and steps.
 */
export function runSubgradient(
  problem: CompiledProblem,
  o: SubgradientOptions,
  maxIterations: number,
  scratch: Scratch,
): LabellingSolution {
  const minStepSize = o.minStepSize ?? SUBGRADIENT_DEFAULTS.minStepSize;
  const stallIterations = o.stallIterations ?? SUBGRADIENT_DEFAULTS.stallIterations;
  const control = new RunControl(o);
  const run = new MasterRun(problem, o, scratch);
  const { bounds } = run.labelling;
  if (o.initialMultipliers !== undefined) run.warmStart(o.initialMultipliers);
  if (problem.A !== null && problem.A.impossible >= 0) return run.finish("infeasible", 0);

  let status: SolutionStatus = "iteration-limit";
  let iterations = 0;
  for (let t = 1; t <= maxIterations; t++) {
    if (control.timeUp(t)) {
      status = "time-limit";
      break;
    }
    iterations = t;
    const significant = bounds.significance();
    if (!run.solveSlaves()) return run.finish("infeasible", t);
    run.trackDual(t, significant);
    run.measureConstraints();
    const primalBefore = bounds.bestPrimal;
    run.recoverPrimal(t);
    bounds.seePrimal(primalBefore, t, significant);
    const certified = bounds.certified(
      bounds.bestDual,
      run.disagreements === 0 && run.kktFailures === 0,
    );
    const step = run.stepSize(t);
    const stop = control.report(
      certified,
      t,
      run.dual,
      bounds.bestPrimal,
      bounds.bestDual - bounds.bestPrimal,
      step,
      run.disagreements + run.kktFailures,
    );
    if (stop !== null) {
      status = stop;
      break;
    }
    if (t === maxIterations) break;
    if ((stallIterations > 0 && t - bounds.lastProgress >= stallIterations) || step < minStepSize) {
      status = "converged";
      break;
    }
    run.step(step);
  }
  return run.finish(status, iterations);
}

/**
 * One solve of the master: its buffers — views on the master's grow-only scratch, laid out once
 * per solve — and its running bounds, with a method per phase. No phase allocates; the loops copy
 * the fields they read into locals first.
 */
class MasterRun {
  readonly problem: CompiledProblem;
  readonly m: number;
  readonly localSize: number;
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
  readonly candidate: Int32Array;
  /** Per position, the first slave's label (then free: a scratch global labelling). */
  readonly firstLabel: Int32Array;
  readonly slaveLabels: Int32Array;
  /** A relaxed slave's indicators z (0/1, not one-hot), and which slaves gave them this iteration. */
  readonly slaveIndicators: Int32Array;
  readonly relaxed: Int32Array;
  /** −Aᵀλ per column class (see ConstraintMatrix.columnClass), and the classes a step touched. */
  readonly classAdjustment: Float64Array;
  readonly touchedClasses: Int32Array;
  readonly classTouched: Int32Array;
  touchedCount = 0;
  readonly adjustmentViews: Float64Array[];
  /** The labellings scored, the best kept, the bounds. */
  readonly labelling: LabellingTracker;

  // Across iterations.
  lambdaDotB = 0;
  previousDual = POS_INF;
  dualIncreases = 0;
  initialStep: number;

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
  constructor(problem: CompiledProblem, o: SubgradientOptions, scratch: Scratch) {
    const { n, L, slaves, single, localOffset, A } = problem;
    const S = slaves.length;
    const m = A === null ? 0 : A.m;
    const size = n * L;
    this.problem = problem;
    this.m = m;
    this.rule = o.stepRule ?? DEFAULT_STEP_RULE;
    this.initialStep = givenInitial(this.rule);

    const local = localOffset[S]!;
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
    const bestLabels = i32(n);
    this.candidate = i32(n);
    this.firstLabel = i32(n);
    this.slaveLabels = i32(local);
    const scoring = i32(local);
    this.slaveIndicators = i32(localSize);
    this.relaxed = i32(S);
    this.classAdjustment = f64(classes).fill(0);
    this.touchedClasses = i32(classes);
    this.classTouched = i32(classes).fill(0);

    const adjustment = this.adjustment;
    this.adjustmentViews = single
      ? [this.constraintAdjustment]
      : slaves.map((_, s) => adjustment.subarray(localOffset[s]! * L, localOffset[s + 1]! * L));
    const views = single
      ? [scoring]
      : slaves.map((_, s) => scoring.subarray(localOffset[s]!, localOffset[s + 1]!));
    const bounds = new Bounds(o.tolerance);
    // The tracker scores candidates in `activity`, so the λ step reads the last scored
    // candidate's a·y, not a·ȳ, where slaves disagree (kept for now: every multi-slave figure
    // rests on it).
    this.labelling = new LabellingTracker(problem, bounds, views, this.activity, bestLabels);
    for (let i = 0; i < n; i++) this.inverseCover[i] = 1 / problem.cover[i]!;
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
    const A = this.problem.A!;
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
    const { classRowStart, classIndex, classCoefficient } = this.problem.A!;
    const { classAdjustment, classTouched, touchedClasses } = this;
    let touchedCount = this.touchedCount;
    for (let e = classRowStart[k]!, end = classRowStart[k + 1]!; e < end; e++) {
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
    const { classMemberStart, classMembers } = this.problem.A!;
    const { classAdjustment, classTouched, touchedClasses, constraintAdjustment } = this;
    for (let q = 0; q < touchedCount; q++) {
      const c = touchedClasses[q]!;
      const value = classAdjustment[c]!;
      for (let e = classMemberStart[c]!, end = classMemberStart[c + 1]!; e < end; e++) {
        constraintAdjustment[classMembers[e]!] = value;
      }
      classTouched[c] = 0;
    }
    this.touchedCount = 0;
  }

  /**
   * Every slave maximises its score plus its adjustment: the dual, each slave's labels (and
   * indicators), the votes per indicator. False when a slave has no feasible labelling.
   */
  solveSlaves(): boolean {
    const { L, single, slaves, positions, localOffset } = this.problem;
    const S = slaves.length;
    const { inverseCover, adjustment, agreement, constraintAdjustment, adjustmentViews } = this;
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
    this.labelling.bounds.seeDual(dual, t, significant);
    if (dual > this.previousDual) this.dualIncreases++;
    this.previousDual = dual;
  }

  /** Activities a·ȳ, the KKT conditions, and ‖g‖² over the multipliers the projection lets move. */
  measureConstraints(): void {
    let normSquared = 0;
    let kktFailures = 0;
    let penalty = 0;
    let hardViolation = 0;
    const { A, L, single, positions, localOffset, eps } = this.problem;
    if (A !== null) {
      const { m, inverseCover, activity, lambda, relaxed, slaveIndicators, slaveLabels } = this;
      if (single) {
        labellingActivities(A, slaveLabels, activity);
      } else {
        activity.fill(0);
        for (let s = 0; s < positions.length; s++) {
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
              for (let e = A.colStart[g]!, end = A.colStart[g + 1]!; e < end; e++) {
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
    const { n, L, single, slaves, positions, localOffset, cover } = this.problem;
    const S = slaves.length;
    const { slaveLabels, labelling } = this;
    const firstLabels = labelling.firstLabels;
    if (single && this.relaxedPrimal) {
      // A lone relaxed slave's value is not the score of its labelling: score that instead.
      labelling.offer(slaveLabels);
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
      labelling.consider(slaveLabels, primal, this.hardViolation);
      if (t === 1) firstLabels.set(slaveLabels);
      this.disagreements = 0;
      return;
    }
    const { votes, firstLabel, candidate } = this;
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
    labelling.offer(candidate);
    // firstLabel is free once the majority is taken: it holds each slave's global labelling.
    labelling.offerWholeSlaves(slaveLabels, firstLabel, candidate);
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

  /** This iteration's step size (the first sets the automatic initial step). */
  stepSize(t: number): number {
    const { dual, normSquared } = this;
    const bestPrimal = this.labelling.bounds.bestPrimal;
    if (this.initialStep === 0) {
      this.initialStep = automaticInitial(dual, bestPrimal, normSquared, this.problem.n);
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
    const A = this.problem.A;
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

  /** The solution, λ at the end its multipliers. */
  finish(status: SolutionStatus, iterations: number): LabellingSolution {
    return this.labelling.solution(status, iterations, this.lambda.slice());
  }
}
