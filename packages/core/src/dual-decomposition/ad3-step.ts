import { deadlineOf, type Slave } from "../solver.js";
import { Ad3Layout, Ad3Run, type PrimalHooks } from "./ad3/admm.js";
import type { BinaryFactor, BinaryFactorBinding } from "./ad3/binary-factor.js";
import { AD3_MAX_ITERATIONS, type Ad3Options, branchAndBound, runAd3 } from "./ad3/engine.js";
import {
  atMostOneFactor,
  budgetFactor,
  type LinearConstraintFactor,
  linearConstraintFactor,
  orFactor,
} from "./ad3/logic-factors.js";
import { Bounds } from "./bounds.js";
import { type CompiledProblem, slaveIndicators } from "./compiled-problem.js";
import { type ConstraintMatrix, labellingActivities } from "./constraint-matrix.js";
import { type LabellingSolution, LabellingTracker } from "./labelling-score.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * A labelling slave seen as a factor over its n·L indicators (j*L + t): its MAP is `maximize`,
 * its quadratic step its own `project` when it has one (else the active-set method).
 */
class SlaveFactor implements BinaryFactor {
  readonly name: string;
  readonly size: number;
  readonly project?: (v: Float64Array, scale: number, out: Float64Array) => void;
  /** The last maximiser's labels (a view on the step's labels of every slave). */
  readonly labels: Int32Array;
  readonly #slave: Slave;
  readonly #L: number;
  readonly #scoring: Int32Array;

  constructor(slave: Slave, L: number, labels: Int32Array) {
    this.#slave = slave;
    this.#L = L;
    this.name = slave.name;
    this.size = slave.n * L;
    this.labels = labels;
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
 * The subgradient run AD3 follows. Its rows start AD3's run (see {@link solveWithAd3}); where AD3
 * `continues` it (the `auto` step after a stall), its bounds carry over and AD3 numbers its
 * iterations after its.
 */
export interface Ad3Start {
  readonly from: LabellingSolution;
  readonly continues: boolean;
}

/** A left-out row joins the run when the posteriors break it by more than this (relative to b). */
const SEPARATION_TOLERANCE = 1e-6;

/**
 * The master's AD3 step: the slaves become factors over the n·L indicators, each constraint row a
 * logic factor where it is one (see logicFactorOf), else a linear-constraint factor (hard: the box
 * cut by a·z ≤ b; soft: the concave score −c·max(0, a·z − b) — the very relaxation the subgradient
 * step dualises, so both steps bound the same LP), and AD3 runs over them. Candidates are the
 * subgradient step's, kept by the same {@link LabellingTracker} on the run's bounds: the labelling
 * of each slave that labels every position, at every MAP pass, and the per-position argmax of the
 * posteriors. λ_k is the constraint factor's multiplier at the last MAP pass (0 for a row the run
 * left out). AD3's multipliers start at zero (started at the subgradient's λ instead, it
 * certified no more CoNLL documents and took longer).
 *
 * Rows join lazily (cutting planes): the run starts with the rows the subgradient run leaned on
 * (λ > 0) or its labellings break, and a row joins when a MAP pass finds the posteriors breaking
 * it; the run is then rebuilt with it, warm (p, λ, η). Every bound stays sound: leaving a row out
 * only relaxes the problem, so each dual bounds the full optimum from above, and the candidates
 * are scored with every row. On UMass citations a run holds a few of the 249 count rows instead
 * of all of them, which had been 20 times the chain's edges. Branch and bound takes every row.
 */
export function solveWithAd3(
  problem: CompiledProblem,
  o: Ad3Options,
  start: Ad3Start,
): LabellingSolution {
  const { n, L, slaves, localOffset, A } = problem;
  const S = slaves.length;
  // The slaves' last maximisers, laid end to end as the subgradient step keeps them.
  const slaveLabels = new Int32Array(localOffset[S]!);
  const slaveBindings: BinaryFactorBinding[] = slaves.map((slave, s) => ({
    factor: new SlaveFactor(slave, L, slaveLabels.subarray(localOffset[s]!, localOffset[s + 1]!)),
    variables: slaveIndicators(problem, s),
  }));
  const slaveEdges = localOffset[S]! * L;
  const m = A === null ? 0 : A.m;
  // Per row, its factor once it has joined, and the linear-constraint factor that reports its
  // multiplier (from the final λ).
  const rowBinding: (BinaryFactorBinding | null)[] = new Array(m).fill(null);
  const rowMultiplier: (LinearConstraintFactor | null)[] = new Array(m).fill(null);
  const join = (a: ConstraintMatrix, k: number): void => {
    const from = a.rowStart[k]!;
    const coefficients = a.coefficient.slice(from, a.rowStart[k + 1]!);
    const hard = a.hard[k] === 1;
    const linear = linearConstraintFactor({
      coefficients,
      rhs: a.rhs[k]!,
      ...(hard ? {} : { penalty: a.upper[k]! }),
    });
    rowMultiplier[k] = linear;
    rowBinding[k] = {
      factor: (hard ? logicFactorOf(coefficients, a.rhs[k]!) : null) ?? linear,
      variables: a.index.slice(from, a.rowStart[k + 1]!),
    };
  };
  // A row with no terms or no penalty never joins: it cannot change the objective.
  const counts = (a: ConstraintMatrix, k: number): boolean =>
    a.upper[k] !== 0 && a.rowStart[k]! < a.rowStart[k + 1]!;
  const activity = new Float64Array(m);
  if (A !== null) {
    const { from } = start;
    if (o.exact === true) {
      for (let k = 0; k < m; k++) if (counts(A, k)) join(A, k);
    } else {
      const { multipliers, firstLabels } = from.constraintStats;
      for (const labels of [firstLabels, from.labels]) {
        labellingActivities(A, labels, activity);
        for (let k = 0; k < m; k++) {
          const broken = activity[k]! - A.rhs[k]! > problem.eps || multipliers[k]! > 0;
          if (broken && rowBinding[k] === null && counts(A, k)) join(A, k);
        }
      }
    }
  }

  const bounds = new Bounds();
  const views = slaves.map((slave) => new Int32Array(slave.n));
  const labelling = new LabellingTracker(problem, bounds, views, activity, new Int32Array(n));
  if (start.continues) {
    labelling.offer(start.from.labels);
    bounds.seeDual(start.from.dual, 0, 0);
  }
  const candidate = new Int32Array(n);
  let rounds = 0;
  const hooks: PrimalHooks = {
    seedFactors: S,
    round(p) {
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++) if (p[i * L + t]! > p[i * L + best]!) best = t;
        candidate[i] = best;
      }
      if (rounds++ === 0) labelling.firstLabels.set(candidate);
      labelling.offer(candidate);
    },
    afterMapPass() {
      labelling.offerWholeSlaves(slaveLabels, candidate);
    },
    separate(p) {
      if (A === null) return false;
      const { rowStart, index, coefficient, rhs } = A;
      let joined = false;
      for (let k = 0; k < m; k++) {
        if (rowBinding[k] !== null || !counts(A, k)) continue;
        let ap = 0;
        for (let e = rowStart[k]!, end = rowStart[k + 1]!; e < end; e++)
          ap += coefficient[e]! * p[index[e]!]!;
        if (ap - rhs[k]! > SEPARATION_TOLERANCE * Math.max(1, Math.abs(rhs[k]!))) {
          join(A, k);
          joined = true;
        }
      }
      return joined;
    },
  };
  // The decoders' stall rule counts dual passes: a pass at least every 5 iterations keeps it
  // measured in iterations as the subgradient step's is. η is balanced every 5 iterations at
  // Boyd et al.'s ratio of 10 (AD3's graphs keep its own 10 and 100): over labellings the primal
  // residual lags, and on the UMass dev half the penalties are learned on that took 22 % fewer
  // iterations (68.2 → 53.1 per citation AD3 decodes), certifying the same citations.
  const options: Ad3Options = { dualEvery: 5, adaptEvery: 5, primalRatio: 10, ...o };
  const maxIterations = options.maxIterations ?? AD3_MAX_ITERATIONS;
  const offset = start.continues ? start.from.iterations : 0;
  let iterations = offset;
  let status: LabellingSolution["status"] = "iteration-limit";
  let run: Ad3Run | null = null;
  // Where each joined row's edges start in the current run (−1: not in it).
  let rowEdges: Int32Array = new Int32Array(m).fill(-1);
  const deadline = deadlineOf(options);
  for (;;) {
    // A rebuilt run starts afresh: its slaves' active sets (warm within a run) start empty, and a
    // slave whose edges a joined row weighs unevenly projects by the active-set method, not its
    // own `project`. Both cost speed only; rebuilds are few (UMass: 94 for 83 runs).
    const last = run;
    const built = buildRun(problem, slaveBindings, rowBinding, bounds);
    if (last !== null) warmStart(last, built.run, slaveEdges, rowEdges, built.rowEdges, rowBinding);
    ({ run, rowEdges } = built);
    const left = maxIterations - (iterations - offset);
    // runAd3 sets η from its options: the rebuilt run goes on at the last one's.
    const runOptions: Ad3Options =
      last === null ? options : { ...options, maxIterations: left, eta: last.eta };
    if (options.exact === true) {
      ({ status, iterations } = branchAndBound(run, runOptions, hooks));
      break;
    }
    const result = runAd3(run, runOptions, hooks, iterations, last !== null);
    iterations = result.iterations;
    status = result.status;
    if (!result.separated || iterations - offset >= maxIterations) break;
    if (deadline.expired()) {
      status = "time-limit";
      break;
    }
  }
  // λ_k: the row's own multiplier in the MAP of its factor at the final agreement multipliers.
  const multipliers = new Float64Array(m);
  rowMultiplier.forEach((linear, k) => {
    const at = rowEdges[k]!;
    if (linear === null || at < 0) return;
    const adjustment = run.lambda.slice(at, at + linear.size);
    linear.map(adjustment, new Float64Array(adjustment.length));
    const multiplier = linear.multiplier();
    multipliers[k] = Number.isFinite(multiplier) ? multiplier : 0;
  });
  return labelling.solution(status, iterations, multipliers);
}

/**
 * The run over the slaves and the rows that have joined, with weighted consensus: a slave's copy
 * of an indicator weighs as much as the constraint factors on it together (shared among the
 * cover(i) slaves covering it), not 1/(1 + constraints) of the average. The slaves' edges come
 * first, in their positions' order, then the rows' in row order.
 */
function buildRun(
  problem: CompiledProblem,
  slaveBindings: readonly BinaryFactorBinding[],
  rowBinding: readonly (BinaryFactorBinding | null)[],
  bounds: Bounds,
): { run: Ad3Run; rowEdges: Int32Array } {
  const { n, L, positions, cover, localOffset } = problem;
  const S = slaveBindings.length;
  const bindings = [...slaveBindings];
  const rowEdges = new Int32Array(rowBinding.length).fill(-1);
  const constraintCopies = new Float64Array(n * L);
  let edges = localOffset[S]! * L;
  rowBinding.forEach((binding, k) => {
    if (binding === null) return;
    rowEdges[k] = edges;
    bindings.push(binding);
    const { variables } = binding;
    for (let j = 0; j < variables.length; j++) constraintCopies[variables[j]!]!++;
    edges += variables.length;
  });
  const weights = new Float64Array(edges).fill(1);
  positions.forEach((map, s) => {
    const at = localOffset[s]! * L;
    for (let j = 0; j < map.length; j++) {
      for (let t = 0; t < L; t++) {
        const copies = constraintCopies[map[j]! * L + t]!;
        weights[at + j * L + t] = Math.max(1, copies / cover[map[j]!]!);
      }
    }
  });
  const run = new Ad3Run(new Ad3Layout({ variables: n * L, factors: bindings }, weights), bounds);
  return { run, rowEdges };
}

/** A rebuilt run goes on from the last: its p, and the λ of every edge both runs hold. */
function warmStart(
  last: Ad3Run,
  next: Ad3Run,
  slaveEdges: number,
  lastRowEdges: Int32Array,
  nextRowEdges: Int32Array,
  rowBinding: readonly (BinaryFactorBinding | null)[],
): void {
  next.p.set(last.p);
  next.lambda.set(last.lambda.subarray(0, slaveEdges));
  for (let k = 0; k < lastRowEdges.length; k++) {
    const from = lastRowEdges[k]!;
    if (from < 0) continue;
    const size = rowBinding[k]!.variables.length;
    next.lambda.set(last.lambda.subarray(from, from + size), nextRowEdges[k]!);
  }
}
