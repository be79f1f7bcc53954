import type { Slave } from "../../solver.js";
import type { Coverage } from "../bindings.js";
import { type ConstraintMatrix, countViolations } from "../constraint-matrix.js";
import { type HardViolation, scoreGlobalLabelling } from "../labelling-score.js";
import type { DualDecompositionOptions, DualDecompositionSolution } from "../master.js";
import type { BinaryFactor, BinaryFactorBinding } from "./binary-factor.js";
import {
  Ad3Layout,
  type Ad3Options,
  Ad3Run,
  branchAndBound,
  type PrimalHooks,
  runAd3,
} from "./engine.js";
import {
  atMostOneFactor,
  budgetFactor,
  type LinearConstraintFactor,
  linearConstraintFactor,
  orFactor,
} from "./logic-factors.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

/**
 * A labelling slave seen as a factor over its n·L indicators (j*L + t): its MAP is `maximize`,
 * its quadratic step its own `project` when it has one (else the active-set method).
 */
class SlaveFactor implements BinaryFactor {
  readonly name: string;
  readonly size: number;
  readonly project?: (v: Float64Array, scale: number, out: Float64Array) => void;
  /** The last maximiser's labels. */
  readonly labels: Int32Array;
  readonly #slave: Slave;
  readonly #L: number;
  readonly #scoring: Int32Array;

  constructor(slave: Slave, L: number) {
    this.#slave = slave;
    this.#L = L;
    this.name = slave.name;
    this.size = slave.n * L;
    this.labels = new Int32Array(slave.n);
    this.#scoring = new Int32Array(slave.n);
    if (slave.project !== undefined) {
      const own = slave.project.bind(slave);
      this.project = own;
    }
  }

  map(adjustment: Float64Array, out: Float64Array): number {
    const result = this.#slave.maximize(adjustment);
    const L = this.#L;
    const { labels, indicators } = result;
    if (indicators !== undefined) {
      for (let g = 0; g < this.size; g++) out[g] = indicators[g]!;
    } else {
      out.fill(0);
      for (let j = 0; j < labels.length; j++) out[j * L + labels[j]!] = 1;
    }
    this.labels.set(labels);
    return result.value;
  }

  score(z: ArrayLike<number>): number {
    const L = this.#L;
    const labels = this.#scoring;
    for (let j = 0; j < labels.length; j++) {
      let best = 0;
      for (let t = 1; t < L; t++) if (z[j * L + t]! > z[j * L + best]!) best = t;
      if (z[j * L + best] !== 1) return NEG_INF;
      labels[j] = best;
    }
    return this.#slave.score(labels);
  }
}

/**
 * The logic factor a hard row is, where it is one (AD3's closed forms; the same polytope as the
 * row over the box): Σ z ≤ 1 is AtMostOne ("at most one author field"), Σ z ≤ b a BUDGET,
 * −Σ z ≤ −1 an OR ("at least one"). Otherwise null: the linear-constraint factor.
 */
function logicFactorOf(coefficients: Float64Array, rhs: number): BinaryFactor | null {
  const size = coefficients.length;
  if (coefficients.every((c) => c === 1) && Number.isInteger(rhs) && rhs >= 1) {
    return rhs === 1 ? atMostOneFactor(size) : rhs < size ? budgetFactor(size, rhs) : null;
  }
  if (coefficients.every((c) => c === -1) && rhs === -1) return orFactor(size);
  return null;
}

/**
 * The master's AD3 step: the slaves become factors over the n·L indicators, each constraint row a
 * logic factor where it is one (see logicFactorOf), else a linear-constraint factor (hard: the box cut by a·z ≤ b; soft: the concave score −c·max(0, a·z − b)
 * — the very relaxation the subgradient step dualises, so both steps bound the same LP), and AD3
 * runs over them. Candidates are scored as the subgradient step scores them: the labelling of
 * each slave that labels every position, at every MAP pass, and the per-position argmax of the
 * posteriors. The result is the subgradient step's `DualDecompositionSolution`, λ_k being the
 * constraint factor's multiplier at the last MAP pass.
 */
export function solveWithAd3(
  n: number,
  L: number,
  cover: Coverage,
  A: ConstraintMatrix | null,
  o: DualDecompositionOptions,
): DualDecompositionSolution {
  const { slaves, positions } = cover;
  const S = slaves.length;
  const eps = o.feasibilityTolerance ?? 1e-9;
  const bindings: BinaryFactorBinding[] = [];
  const slaveFactors: SlaveFactor[] = [];
  for (let s = 0; s < S; s++) {
    const factor = new SlaveFactor(slaves[s]!, L);
    slaveFactors.push(factor);
    const map = positions[s]!;
    const variables = new Int32Array(map.length * L);
    for (let j = 0; j < map.length; j++) {
      for (let t = 0; t < L; t++) variables[j * L + t] = map[j]! * L + t;
    }
    bindings.push({ factor, variables });
  }
  const m = A === null ? 0 : A.m;
  // Per row, the linear-constraint factor that reports its multiplier (from the final λ), and
  // the index of the factor that stands for it in the run (−1: the row is empty or free).
  const rowMultiplier: (LinearConstraintFactor | null)[] = [];
  const rowFactor = new Int32Array(m).fill(-1);
  for (let k = 0; k < m; k++) {
    const a = A!;
    const from = a.rowStart[k]!;
    const to = a.rowStart[k + 1]!;
    if (a.upper[k] === 0 || from === to) {
      rowMultiplier.push(null);
      continue;
    }
    const coefficients = a.coefficient.slice(from, to);
    const hard = a.hard[k] === 1;
    const linear = linearConstraintFactor({
      coefficients,
      rhs: a.rhs[k]!,
      ...(hard ? {} : { penalty: a.upper[k]! }),
    });
    rowMultiplier.push(linear);
    rowFactor[k] = bindings.length;
    bindings.push({
      factor: (hard ? logicFactorOf(coefficients, a.rhs[k]!) : null) ?? linear,
      variables: a.index.slice(from, to),
    });
  }

  const views = slaves.map((slave) => new Int32Array(slave.n));
  const activity = new Float64Array(m);
  const violation: HardViolation = { hardViolation: 0 };
  const candidate = new Int32Array(n);
  const bestLabels = new Int32Array(n);
  const firstLabels = new Int32Array(n);
  let bestPrimal = NEG_INF;
  let leastHardViolation = POS_INF;
  let rounds = 0;
  const consider = (y: Int32Array): void => {
    const value = scoreGlobalLabelling(slaves, positions, views, A, activity, eps, y, violation);
    if (value > bestPrimal) {
      bestPrimal = value;
      bestLabels.set(y);
    } else if (bestPrimal === NEG_INF && violation.hardViolation < leastHardViolation) {
      leastHardViolation = violation.hardViolation;
      bestLabels.set(y);
    }
  };
  const hooks: PrimalHooks = {
    seedFactors: S,
    round(p) {
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++) if (p[i * L + t]! > p[i * L + best]!) best = t;
        candidate[i] = best;
      }
      if (rounds++ === 0) firstLabels.set(candidate);
      consider(candidate);
      return bestPrimal;
    },
    afterMapPass() {
      for (let s = 0; s < S; s++) {
        if (slaves[s]!.n !== n) continue;
        const map = positions[s]!;
        const labels = slaveFactors[s]!.labels;
        for (let j = 0; j < n; j++) candidate[map[j]!] = labels[j]!;
        consider(candidate);
      }
      return bestPrimal;
    },
  };

  const options: Ad3Options = {
    ...(o.maxIterations === undefined ? {} : { maxIterations: o.maxIterations }),
    ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
    ...(o.eta === undefined ? {} : { eta: o.eta }),
    ...(o.deadline === undefined ? {} : { deadline: o.deadline }),
    ...(o.stallIterations === undefined ? {} : { stallIterations: o.stallIterations }),
    ...(o.onIteration === undefined ? {} : { onIteration: o.onIteration }),
    ...(o.signal === undefined ? {} : { signal: o.signal }),
  };
  // Weighted consensus: a slave's copy of an indicator weighs as much as the constraint factors
  // on it together (shared among the slaves covering it), not 1/(1 + constraints) of the average.
  const constraintCopies = new Float64Array(n * L);
  const slaveCopies = new Float64Array(n * L);
  let edges = 0;
  bindings.forEach(({ variables }, f) => {
    const copies = f < S ? slaveCopies : constraintCopies;
    for (let j = 0; j < variables.length; j++) copies[variables[j]!]!++;
    edges += variables.length;
  });
  const weights = new Float64Array(edges).fill(1);
  let at = 0;
  for (let f = 0; f < S; f++) {
    const variables = bindings[f]!.variables;
    for (let j = 0; j < variables.length; j++) {
      const g = variables[j]!;
      weights[at + j] = Math.max(1, constraintCopies[g]! / slaveCopies[g]!);
    }
    at += variables.length;
  }
  const run = new Ad3Run(new Ad3Layout({ variables: n * L, factors: bindings }, weights));
  const { status, iterations } =
    o.exact === true ? branchAndBound(run, options, hooks) : runAd3(run, options, hooks);
  if (status === "infeasible") bestPrimal = NEG_INF;
  const dual = status === "infeasible" ? NEG_INF : run.bestDual;
  // λ_k: the row's own multiplier in the MAP of its factor at the final agreement multipliers.
  const multipliers = new Float64Array(m);
  const { edgeStart } = run.layout;
  rowMultiplier.forEach((linear, k) => {
    if (linear === null) return;
    const f = rowFactor[k]!;
    const adjustment = run.lambda.slice(edgeStart[f]!, edgeStart[f + 1]!);
    linear.map(adjustment, new Float64Array(adjustment.length));
    const multiplier = linear.multiplier();
    multipliers[k] = Number.isFinite(multiplier) ? multiplier : 0;
  });
  let violated = 0;
  let hardViolated = 0;
  let firstViolated = 0;
  if (A !== null) {
    ({ violated, hardViolated } = countViolations(A, bestLabels, activity, eps));
    firstViolated = countViolations(A, firstLabels, activity, eps).violated;
  }
  return {
    labels: bestLabels,
    primal: bestPrimal,
    dual,
    status,
    iterations,
    certified: status === "optimal",
    gap: bestPrimal > NEG_INF ? Math.max(0, dual - bestPrimal) : POS_INF,
    constraintStats: { multipliers, firstLabels, firstViolated, violated, hardViolated },
  };
}
