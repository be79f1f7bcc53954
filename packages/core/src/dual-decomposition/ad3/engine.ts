import { LagrangeError, ProblemValidationError, throwIfAborted } from "../../errors.js";
import {
  checkIterationCap,
  deadlineOf,
  type IterationStats,
  type SolutionStatus,
  type SolveOptions,
} from "../../solver.js";
import { ActiveSetSolver } from "./active-set.js";
import type { BinaryFactor, BinaryProblem } from "./binary-factor.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

export interface Ad3Options extends SolveOptions {
  /** The initial quadratic penalty η (default 1); adapted while `adaptEta` (default true). */
  readonly eta?: number;
  readonly adaptEta?: boolean;
  /** Adapt η every this many iterations (default 10, as AD3). */
  readonly adaptEvery?: number;
  /**
   * η doubles when the primal residual exceeds the dual one by this factor (default 100, as AD3);
   * it halves when the dual residual exceeds the primal one tenfold.
   */
  readonly primalRatio?: number;
  /**
   * Stop with status `converged` when the primal and dual residuals (root mean square over the
   * factor–variable edges) are both below this: the relaxation is solved (default 1e-6).
   */
  readonly residualThreshold?: number;
  /**
   * Branch and bound on the most fractional variable while the relaxation's solution is not
   * integral and the gap is open (exact MAP). Default false.
   */
  readonly exact?: boolean;
  /**
   * Stop with status `converged` when neither the best dual nor the best primal has moved by a
   * thousandth of the gap over this many MAP passes (0, the default: never); the subgradient
   * step's rule, for the decoders whose policy sets it, counted where the dual is seen.
   */
  readonly stallIterations?: number;
  /**
   * Take the dual (a MAP call per factor) at least every this many iterations (default 5); it is
   * also taken at the first, whenever the best primal improves, and at the end.
   */
  readonly dualEvery?: number;
  /** Exact mode: at most this many nodes (default 1,000); then the best labelling and bound so far. */
  readonly maxNodes?: number;
}

export interface BinarySolution {
  /** The best 0/1 assignment found (by rounding the posteriors, or the branch and bound). */
  readonly assignment: Uint8Array;
  /** Its objective; −∞ when no assignment found meets every factor. */
  readonly primal: number;
  /** The lowest dual seen: an upper bound on the optimum. */
  readonly dual: number;
  /** The relaxation's posteriors p (one per variable) at the end of the (root) run. */
  readonly posteriors: Float64Array;
  readonly status: SolutionStatus;
  /** AD3 iterations (the first is the MAP pass at λ = 0), summed over branch-and-bound nodes. */
  readonly iterations: number;
  readonly certified: boolean;
  readonly gap: number;
  /** η at the end of the (root) run. */
  readonly eta: number;
  /** Branch-and-bound nodes solved (1 without exact mode). */
  readonly nodes: number;
}

/**
 * What a caller that knows more than the factors about what a good assignment is (the positions'
 * master: labels per position, constraints scored its own way) plugs into a run. Internal.
 */
export interface PrimalHooks {
  /** The first MAP pass seeds p from the first this-many factors only (default: all). */
  readonly seedFactors?: number;
  /** Builds a candidate from the posteriors, keeps it if best, returns the best primal so far. */
  round(posteriors: Float64Array): number;
  /** After a MAP pass: factor f's maximiser (local variables). */
  afterMap?(factor: number, maximiser: Float64Array): void;
  /** After a MAP pass: the candidates collected from the factors' maximisers; returns best primal. */
  afterMapPass?(): number;
}

const DEFAULTS = {
  maxIterations: 1000,
  tolerance: 1e-6,
  eta: 1,
  residualThreshold: 1e-6,
  maxNodes: 1000,
  dualEvery: 5,
  adaptEvery: 10,
};

/** The range η may take (given or adapted): beyond it the quadratic terms lose all precision. */
const CACHE_TOLERANCE = 1e-12;
export const MIN_ETA = 1e-6;
export const MAX_ETA = 1e6;

function check(options: Ad3Options): void {
  const { maxIterations, eta, residualThreshold, tolerance } = options;
  checkIterationCap(maxIterations);
  if (eta !== undefined && !(eta >= MIN_ETA && eta <= MAX_ETA)) {
    throw new ProblemValidationError(
      "options.eta",
      `expected a number from ${MIN_ETA} to ${MAX_ETA}, got ${eta}`,
    );
  }
  if (residualThreshold !== undefined && !(residualThreshold >= 0)) {
    throw new ProblemValidationError(
      "options.residualThreshold",
      `expected a number ≥ 0, got ${residualThreshold}`,
    );
  }
  if (tolerance !== undefined && !(tolerance >= 0)) {
    throw new ProblemValidationError(
      "options.tolerance",
      `expected a number ≥ 0, got ${tolerance}`,
    );
  }
}

/** The problem's factors laid out on flat edge arrays: edge e joins factor f and variable edgeVariable[e]. */
export class Ad3Layout {
  readonly variables: number;
  readonly factors: readonly BinaryFactor[];
  readonly edgeStart: Int32Array;
  readonly edgeVariable: Int32Array;
  readonly degree: Float64Array;
  readonly unary: Float64Array;
  readonly oneHot: readonly Int32Array[];
  readonly solvers: readonly (ActiveSetSolver | null)[];
  readonly edgeWeight: Float64Array;
  readonly inverseWeight: Float64Array;
  readonly weightSum: Float64Array;
  /** Per factor, its edges' common weight, or 0 when they differ (then the active-set solver). */
  readonly uniformWeight: Float64Array;
  readonly maxSize: number;

  /**
   * `edgeWeights` (one per factor–variable edge, default 1) weigh the consensus: the augmented
   * term of edge e is (η·w_e/2)(q_e − p)², p the w-weighted average of its copies. The master
   * over positions weighs a slave's copy of an indicator as much as the many constraint
   * factors on it together, so that p is not the constraints' average with the slave's vote
   * diluted to 1/(1 + constraints).
   */
  constructor(problem: BinaryProblem, edgeWeights?: Float64Array) {
    const V = problem.variables;
    if (!Number.isInteger(V) || V < 0) {
      throw new ProblemValidationError("problem.variables", `expected an integer ≥ 0, got ${V}`);
    }
    const F = problem.factors.length;
    const edgeStart = new Int32Array(F + 1);
    let maxSize = 0;
    problem.factors.forEach((binding, f) => {
      const { factor, variables } = binding;
      if (variables.length !== factor.size) {
        throw new ProblemValidationError(
          `problem.factors[${f}].variables`,
          `factor "${factor.name}" links ${factor.size} variables, got ${variables.length}`,
        );
      }
      edgeStart[f + 1] = edgeStart[f]! + factor.size;
      maxSize = Math.max(maxSize, factor.size);
    });
    const E = edgeStart[F]!;
    const edgeVariable = new Int32Array(E);
    const degree = new Float64Array(V);
    problem.factors.forEach((binding, f) => {
      const at = edgeStart[f]!;
      binding.variables.forEach((i, j) => {
        if (!(Number.isInteger(i) && i >= 0 && i < V)) {
          throw new ProblemValidationError(
            `problem.factors[${f}].variables[${j}]`,
            `expected a variable in 0..${V - 1}, got ${i}`,
          );
        }
        edgeVariable[at + j] = i;
        degree[i]!++;
      });
    });
    const unary = problem.unary ?? new Float64Array(V);
    if (unary.length !== V) {
      throw new ProblemValidationError(
        "problem.unary",
        `expected ${V} entries, got ${unary.length}`,
      );
    }
    for (let i = 0; i < V; i++) {
      // NaN or ±∞ would pass into every bound: the run would report it as an objective.
      if (!Number.isFinite(unary[i]!)) {
        throw new LagrangeError(
          "bad-input",
          `AD3: variable ${i} has log-potential ${unary[i]}; expected a finite number`,
        );
      }
    }
    this.variables = V;
    this.factors = problem.factors.map((b) => b.factor);
    this.edgeStart = edgeStart;
    this.edgeVariable = edgeVariable;
    this.degree = degree;
    this.unary = unary;
    this.oneHot = problem.oneHot ?? [];
    const weights = edgeWeights ?? new Float64Array(E).fill(1);
    if (weights.length !== E || weights.some((w) => !(w > 0 && Number.isFinite(w)))) {
      throw new ProblemValidationError("edgeWeights", `expected ${E} finite weights > 0`);
    }
    const weightSum = new Float64Array(V);
    for (let e = 0; e < E; e++) weightSum[edgeVariable[e]!]! += weights[e]!;
    // A factor with its own projection takes one weight for all its edges (its η scales).
    const uniform = new Float64Array(F);
    this.solvers = this.factors.map((factor, f) => {
      const own = weights.subarray(edgeStart[f]!, edgeStart[f + 1]!);
      const first = own[0] ?? 1;
      const same = own.every((w) => w === first);
      uniform[f] = same ? first : 0;
      return factor.project === undefined || !same
        ? new ActiveSetSolver(factor, own.slice())
        : null;
    });
    this.edgeWeight = weights;
    this.inverseWeight = weights.map((w) => 1 / w);
    this.weightSum = weightSum;
    this.uniformWeight = uniform;
    this.maxSize = maxSize;
  }
}

/**
 * AD3 (Martins et al., JMLR 2015, Algorithm 2): ADMM on the local-polytope relaxation
 *
 *   max  Σ_i θ_i p_i + Σ_f score_f(q_f)   s.t.  q_f ∈ polytope_f,  q_f[j] = p[variable_f(j)].
 *
 * Each iteration every factor solves the quadratic problem
 *   max  score_f(q) + Σ_j (θ_i/deg_i + λ_{f,j}) q_j − (η/2) Σ_j (q_j − p_i)²
 * (its `project`, or the active-set method over its MAP oracle), p becomes the average of the
 * factors' copies, and λ_{f,j} −= η (q_{f,j} − p_i) (Σ_f λ_{f,i} stays 0). η doubles when the
 * primal residual is ten times the dual one and halves in the opposite case (Boyd et al. 2011,
 * §3.4.1). Each iteration also takes the MAP of every factor at the same λ: their sum is the dual
 * value, an upper bound on the optimum (the subgradient master's dual at u = λ), so the run
 * certifies exactly as the subgradient one does — best dual − best primal ≤ tolerance ·
 * max(1, |best dual|). The first iteration is that MAP pass alone at λ = 0, so a problem whose
 * slaves already agree costs what one subgradient iteration costs.
 *
 * Factors whose quadratic input did not change since their last call are not called again (AD3's
 * caching); nothing is allocated per iteration.
 */
export class Ad3Run {
  readonly layout: Ad3Layout;
  readonly lambda: Float64Array;
  readonly q: Float64Array;
  readonly p: Float64Array;
  readonly previousP: Float64Array;
  readonly lastInput: Float64Array;
  readonly cached: Uint8Array;
  /** Per factor, views on edge-sized buffers: its quadratic input, its MAP output, its q. */
  readonly inputs: readonly Float64Array[];
  readonly outputs: readonly Float64Array[];
  readonly qs: readonly Float64Array[];
  /** Extra unary per variable (branch and bound's fixings); added to θ. */
  readonly fix: Float64Array;
  readonly assignment: Uint8Array;
  readonly bestAssignment: Uint8Array;
  readonly seedDegree: Float64Array;
  /** θ_i + fix_i shared among i's factors, per variable (per iteration). */
  readonly shares: Float64Array;
  primalResidual = 0;
  dualResidual = 0;
  eta = 1;
  bestDual = POS_INF;
  bestPrimal = NEG_INF;
  /** Whether the last MAP pass found a factor with no configuration. */
  infeasible = false;
  /** Exact mode: the root's dual, the search's bound while nodes run (+∞ outside a search). */
  searchBound = POS_INF;
  /** `onIteration` returned false: the caller wants the whole solve, search included, to stop. */
  stopRequested = false;
  /**
   * Whether the last run stopped because its dual fell without bound while no assignment met the
   * factors: the relaxation is infeasible (LP duality: an infeasible primal has an unbounded
   * dual), so no assignment exists — evidence, not a proof, hence status `converged`.
   */
  diverged = false;

  constructor(layout: Ad3Layout) {
    this.layout = layout;
    const E = layout.edgeVariable.length;
    const V = layout.variables;
    this.lambda = new Float64Array(E);
    this.q = new Float64Array(E);
    this.p = new Float64Array(V);
    this.previousP = new Float64Array(V);
    this.lastInput = new Float64Array(E).fill(Number.NaN);
    this.cached = new Uint8Array(layout.factors.length);
    const input = new Float64Array(E);
    const output = new Float64Array(E);
    const { edgeStart } = layout;
    const view = (buffer: Float64Array) =>
      layout.factors.map((_, f) => buffer.subarray(edgeStart[f]!, edgeStart[f + 1]!));
    this.inputs = view(input);
    this.outputs = view(output);
    this.qs = view(this.q);
    this.fix = new Float64Array(V);
    this.assignment = new Uint8Array(V);
    this.bestAssignment = new Uint8Array(V);
    this.seedDegree = new Float64Array(V);
    this.shares = new Float64Array(V);
  }

  /** shares[i] = θ_i + fix_i shared equally among the factors of i (before each pass). */
  refreshShares(): void {
    const { degree, unary, variables } = this.layout;
    const { shares, fix } = this;
    for (let i = 0; i < variables; i++) {
      const d = degree[i]!;
      shares[i] = (unary[i]! + fix[i]!) / (d === 0 ? 1 : d);
    }
  }

  /**
   * The MAP pass at the current λ: the dual value (and p from the maximisers when `seed`).
   * Returns the dual; −∞ when a factor has no configuration.
   */
  mapPass(hooks: PrimalHooks | undefined, seed: boolean): number {
    const { factors, edgeStart, edgeVariable, degree, variables } = this.layout;
    const { inputs, outputs, lambda, p, shares } = this;
    this.refreshShares();
    const seeding = seed ? (hooks?.seedFactors ?? factors.length) : 0;
    const seedDegree = this.seedDegree;
    if (seed) {
      p.fill(0);
      seedDegree.fill(0);
    }
    let dual = 0;
    this.infeasible = false;
    for (let f = 0; f < factors.length; f++) {
      const factor = factors[f]!;
      const at = edgeStart[f]!;
      const size = factor.size;
      const adjustment = inputs[f]!;
      const out = outputs[f]!;
      for (let j = 0; j < size; j++)
        adjustment[j] = shares[edgeVariable[at + j]!]! + lambda[at + j]!;
      const value = factor.map(adjustment, out);
      if (Number.isNaN(value) || value === POS_INF) {
        throw new LagrangeError(
          "bad-input",
          `AD3: factor ${f} ("${factor.name}") has a MAP value of ${value}; expected a finite number, or −∞ for no configuration (are its log-potentials finite?)`,
        );
      }
      if (value === NEG_INF) this.infeasible = true;
      dual += value;
      if (f < seeding) {
        for (let j = 0; j < size; j++) {
          const i = edgeVariable[at + j]!;
          p[i]! += out[j]!;
          seedDegree[i]!++;
        }
      }
      hooks?.afterMap?.(f, out);
    }
    for (let i = 0; i < variables; i++) {
      const d = degree[i]!;
      const theta = this.layout.unary[i]! + this.fix[i]!;
      // A variable fixed on adds its fixing to every score of its subtree: bound the original one.
      if (this.fix[i]! > 0) dual -= this.fix[i]!;
      if (d === 0) {
        dual += Math.max(0, theta);
        if (seed) p[i] = theta > 0 ? 1 : 0;
      } else if (seed && seedDegree[i]! > 0) p[i]! /= seedDegree[i]!;
    }
    return this.infeasible ? NEG_INF : dual;
  }

  /** One ADMM iteration; leaves the squared primal and dual residuals, summed over edges. */
  admmStep(): void {
    const { factors, edgeStart, edgeVariable, degree, solvers, variables } = this.layout;
    const { inputs, qs, lambda, q, p, previousP, lastInput, cached, shares } = this;
    // Weighted consensus (see Ad3Layout): edge e's augmented term is (η·w_e/2)(q_e − p)².
    const eta = this.eta;
    const scale = 1 / eta;
    this.refreshShares();
    const { edgeWeight, inverseWeight, weightSum, uniformWeight } = this.layout;
    for (let f = 0; f < factors.length; f++) {
      const factor = factors[f]!;
      const at = edgeStart[f]!;
      const size = factor.size;
      const v = inputs[f]!;
      let same = cached[f] === 1;
      for (let j = 0; j < size; j++) {
        const e = at + j;
        const i = edgeVariable[e]!;
        const value = p[i]! + (shares[i]! + lambda[e]!) * scale * inverseWeight[e]!;
        v[j] = value;
        // AD3's caching tolerance: an input within 1e-12 of the last one is the same input.
        if (Math.abs(value - lastInput[e]!) > CACHE_TOLERANCE || Number.isNaN(lastInput[e]!)) {
          same = false;
          lastInput[e] = value;
        }
      }
      if (!same) {
        const out = qs[f]!;
        const solver = solvers[f];
        if (solver === null || solver === undefined) {
          factor.project!(v, scale / uniformWeight[f]!, out);
        } else solver.project(v, scale, out);
        cached[f] = 1;
      }
    }
    previousP.set(p);
    p.fill(0);
    for (let e = 0; e < q.length; e++) p[edgeVariable[e]!]! += edgeWeight[e]! * q[e]!;
    let dualResidual = 0;
    for (let i = 0; i < variables; i++) {
      if (degree[i] === 0) {
        p[i] = this.layout.unary[i]! + this.fix[i]! > 0 ? 1 : 0;
        continue;
      }
      const total = weightSum[i]!;
      p[i]! /= total;
      const change = p[i]! - previousP[i]!;
      dualResidual += total * change * change;
    }
    let primalResidual = 0;
    for (let e = 0; e < q.length; e++) {
      const diff = q[e]! - p[edgeVariable[e]!]!;
      const w = edgeWeight[e]!;
      lambda[e]! -= eta * w * diff;
      primalResidual += w * diff * diff;
    }
    this.primalResidual = primalResidual;
    this.dualResidual = dualResidual;
  }

  /** Rounds p (one-hot groups: their largest; others at ½) into `assignment` and scores it. */
  roundAndScore(): number {
    const { p, assignment } = this;
    const { oneHot, factors, edgeStart, edgeVariable, variables, unary } = this.layout;
    for (let i = 0; i < variables; i++) assignment[i] = p[i]! > 0.5 ? 1 : 0;
    for (const group of oneHot) {
      let best = group[0]!;
      for (let g = 0; g < group.length; g++) {
        assignment[group[g]!] = 0;
        if (p[group[g]!]! > p[best]!) best = group[g]!;
      }
      assignment[best] = 1;
    }
    let total = 0;
    for (let i = 0; i < variables; i++) if (assignment[i] === 1) total += unary[i]!;
    for (let f = 0; f < factors.length && total > NEG_INF; f++) {
      const factor = factors[f]!;
      const at = edgeStart[f]!;
      const z = this.outputs[f]!;
      for (let j = 0; j < factor.size; j++) z[j] = assignment[edgeVariable[at + j]!]!;
      total += factor.score(z);
    }
    if (total > this.bestPrimal) {
      this.bestPrimal = total;
      this.bestAssignment.set(assignment);
    }
    return this.bestPrimal;
  }
}

export interface Ad3RunResult {
  readonly status: SolutionStatus;
  readonly iterations: number;
}

/**
 * Runs AD3 on `run` until certified, solved (residuals below the threshold), out of iterations or
 * time, or stopped by `onIteration`. Bounds accumulate in `run` (bestDual, bestPrimal).
 * `maxIterations` caps this run: each branch-and-bound node gets it afresh (as ad3_multi), the
 * search being bounded by `maxNodes` and the deadline.
 */
export function runAd3(
  run: Ad3Run,
  options: Ad3Options,
  hooks: PrimalHooks | undefined,
  iterationOffset = 0,
): Ad3RunResult {
  check(options);
  const maxIterations = options.maxIterations ?? DEFAULTS.maxIterations;
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  const threshold = options.residualThreshold ?? DEFAULTS.residualThreshold;
  const adapt = options.adaptEta ?? true;
  const { onIteration, signal } = options;
  const stallIterations = options.stallIterations ?? 0;
  const dualEvery = options.dualEvery ?? DEFAULTS.dualEvery;
  const adaptEvery = options.adaptEvery ?? DEFAULTS.adaptEvery;
  const primalRatio = options.primalRatio ?? 100;
  const deadline = deadlineOf(options);
  const edges = Math.max(1, run.layout.edgeVariable.length);
  let lastProgress = 0;
  let dualPasses = 0;
  let lastProgressPass = 0;
  run.eta = options.eta ?? DEFAULTS.eta;
  const round = (): number => (hooks === undefined ? run.roundAndScore() : hooks.round(run.p));
  const certified = (): boolean =>
    run.bestPrimal > NEG_INF &&
    run.bestDual - run.bestPrimal <= tolerance * Math.max(1, Math.abs(run.bestDual));

  let iterations = 0;
  let status: SolutionStatus = "iteration-limit";
  let divergence = NEG_INF;
  let dual = POS_INF;
  run.diverged = false;
  for (let t = 1; t <= maxIterations; t++) {
    throwIfAborted(signal);
    if (t > 1 && deadline.expired()) {
      status = "time-limit";
      break;
    }
    iterations = t;
    let residualPrimal = POS_INF;
    let residualDual = POS_INF;
    if (t > 1) {
      run.admmStep();
      residualPrimal = Math.sqrt(run.primalResidual / edges);
      residualDual = Math.sqrt(run.dualResidual / edges);
    }
    const significant =
      run.bestPrimal === NEG_INF || run.bestDual === POS_INF
        ? tolerance * Math.max(1, Math.abs(run.bestDual === POS_INF ? 0 : run.bestDual))
        : Math.max(
            tolerance * Math.max(1, Math.abs(run.bestDual)),
            1e-3 * (run.bestDual - run.bestPrimal),
          );
    const primalBefore = run.bestPrimal;
    const solved = t > 1 && residualPrimal < threshold && residualDual < threshold;
    // A master with its own candidates (positions) rounds every iteration: rounding is what
    // certifies there, and costs a labelling's score. A plain factor graph rounds where it takes
    // the dual: scoring every factor costs as much as a MAP pass.
    const checkpoint = solved || t === maxIterations || t % dualEvery === 0;
    if (t > 1 && (hooks !== undefined || checkpoint)) {
      const rounded = round();
      if (rounded > run.bestPrimal) run.bestPrimal = rounded;
    }
    // The dual costs a MAP call per factor: take it when it can certify or end the run — at the
    // start, when the primal improved, when the relaxation is solved, at the end — and every
    // `dualEvery` iterations (AD3 takes it every 50).
    const improved = run.bestPrimal > primalBefore;
    if (t === 1 || improved || checkpoint) {
      dual = run.mapPass(hooks, t === 1);
      if (dual === NEG_INF) {
        run.bestDual = NEG_INF;
        return { status: "infeasible", iterations: iterationOffset + t };
      }
      if (dual < run.bestDual - significant) lastProgress = t;
      dualPasses++;
      if (lastProgress === t) lastProgressPass = dualPasses;
      if (dual < run.bestDual) run.bestDual = dual;
      if (t === 1) divergence = dual - 1e6 * (1 + Math.abs(dual));
      if (hooks?.afterMapPass !== undefined) {
        const best = hooks.afterMapPass();
        if (best > run.bestPrimal) run.bestPrimal = best;
      }
      if (t === 1) {
        const rounded = round();
        if (rounded > run.bestPrimal) run.bestPrimal = rounded;
      }
    }
    if (
      run.bestPrimal > primalBefore + significant ||
      (primalBefore === NEG_INF && run.bestPrimal > NEG_INF)
    ) {
      lastProgress = t;
      lastProgressPass = dualPasses;
    }
    const done = certified();
    if (onIteration !== undefined) {
      // Inside branch and bound a node's dual bounds only its subtree: report the search's bound.
      const bound = run.searchBound < POS_INF ? run.searchBound : run.bestDual;
      const stats: IterationStats = {
        iteration: iterationOffset + t,
        dual: bound,
        primal: run.bestPrimal,
        gap: bound - run.bestPrimal,
        stepSize: run.eta,
        disagreements: t === 1 ? 0 : Math.round(residualPrimal * edges),
      };
      if (onIteration(stats) === false) {
        run.stopRequested = true;
        status = done ? "optimal" : "iteration-limit";
        break;
      }
    }
    if (done) {
      status = "optimal";
      break;
    }
    if (run.bestPrimal === NEG_INF && run.bestDual < divergence) {
      run.diverged = true;
      status = "converged";
      break;
    }
    // The stall rule counts MAP passes, not iterations: the dual is only seen at those.
    if (solved || (stallIterations > 0 && dualPasses - lastProgressPass >= stallIterations)) {
      status = "converged";
      break;
    }
    if (t > 1 && adapt && t % adaptEvery === 0) {
      // Residual balancing (Boyd et al. 2011, §3.4.1) with AD3's asymmetric thresholds: every
      // `adaptEvery` iterations, not every one — on AD3's graphs that converges in half the
      // iterations and settles the grids that otherwise oscillate to the cap.
      const before = run.eta;
      if (residualPrimal > primalRatio * residualDual && run.eta * 2 <= MAX_ETA) run.eta *= 2;
      else if (residualDual > 10 * residualPrimal && run.eta / 2 >= MIN_ETA) run.eta /= 2;
      // A cached projection was taken at the old η: every factor projects afresh (as AD3).
      if (run.eta !== before) run.cached.fill(0);
    }
  }
  return { status, iterations: iterationOffset + iterations };
}

/**
 * AD3 on a problem over binary variables (a factor graph read from AD3's `.fg` or UAI files, or
 * built from logic factors), with branch and bound when `exact`.
 */
export function solveBinaryProblem(
  problem: BinaryProblem,
  options: Ad3Options = {},
): BinarySolution {
  check(options);
  const layout = new Ad3Layout(problem);
  const run = new Ad3Run(layout);
  const timed: Ad3Options = { ...options, deadline: deadlineOf(options) };
  if (options.exact === true) return branchAndBound(run, timed, undefined);
  const result = runAd3(run, timed, undefined);
  return solutionOf(run, result.status, result.iterations, 1, run.p.slice(), run.eta);
}

function solutionOf(
  run: Ad3Run,
  status: SolutionStatus,
  iterations: number,
  nodes: number,
  posteriors: Float64Array,
  eta: number,
): BinarySolution {
  const { bestPrimal, bestDual } = run;
  return {
    assignment: run.bestAssignment.slice(),
    primal: bestPrimal,
    dual: bestDual,
    posteriors,
    status,
    iterations,
    certified: status === "optimal",
    gap: bestPrimal > NEG_INF ? Math.max(0, bestDual - bestPrimal) : POS_INF,
    eta,
    nodes,
  };
}

/** Distance of p from integrality, for branching: the variable closest to ½ (−1: integral). */
function mostFractional(p: Float64Array, fix: Float64Array): number {
  let best = -1;
  let distance = 0.5 - 1e-6;
  for (let i = 0; i < p.length; i++) {
    if (fix[i] !== 0) continue;
    const d = Math.abs(p[i]! - 0.5);
    if (d < distance) {
      distance = d;
      best = i;
    }
  }
  return best;
}

/** Whether the posteriors leave a fixed variable more than 1e-3 off its fixed value. */
function fixingBroken(run: Ad3Run): boolean {
  const { p, fix } = run;
  for (let i = 0; i < p.length; i++) {
    const f = fix[i]!;
    if ((f > 0 && p[i]! < 1 - 1e-3) || (f < 0 && p[i]! > 1e-3)) return true;
  }
  return false;
}

/** The free variable whose factors' copies stray furthest from p (−1: every variable fixed). */
function mostDisputed(run: Ad3Run): number {
  const { edgeVariable } = run.layout;
  const { q, p, fix } = run;
  const spread = run.seedDegree;
  spread.fill(0);
  for (let e = 0; e < q.length; e++) {
    const i = edgeVariable[e]!;
    spread[i]! += Math.abs(q[e]! - p[i]!);
  }
  let best = -1;
  let most = -1;
  for (let i = 0; i < p.length; i++) {
    if (fix[i] !== 0) continue;
    if (spread[i]! > most) {
      most = spread[i]!;
      best = i;
    }
  }
  return best;
}

/**
 * Exact MAP by depth-first branch and bound over AD3 relaxations (as AD3's `--exact`): a node
 * whose dual bound is not above the best primal is pruned; otherwise the variable closest to ½ is
 * fixed to 1 and to 0 by a unary of ±`big` (larger than any finite score difference the factors
 * can make), and the children warm-start from the parent's multipliers.
 */
export function branchAndBound(
  run: Ad3Run,
  options: Ad3Options,
  hooks: PrimalHooks | undefined,
): BinarySolution {
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  const maxNodes = options.maxNodes ?? DEFAULTS.maxNodes;
  // One deadline for the root and every node.
  const deadline = deadlineOf(options);
  const rootOptions: Ad3Options = { ...options, exact: false, deadline };
  const root = runAd3(run, rootOptions, hooks);
  const posteriors = run.p.slice();
  const rootEta = run.eta;
  let iterations = root.iterations;
  if (
    root.status === "optimal" ||
    root.status === "infeasible" ||
    root.status === "time-limit" ||
    run.diverged ||
    run.stopRequested
  ) {
    return solutionOf(run, root.status, iterations, 1, posteriors, rootEta);
  }
  const rootDual = run.bestDual;
  const big =
    1e3 * (1 + Math.abs(rootDual) + Math.abs(run.bestPrimal > NEG_INF ? run.bestPrimal : 0));
  const { fix, lambda } = run;
  const E = lambda.length;
  let nodes = 1;
  let complete = true;
  let timedOut = false;
  const prune = (bound: number): boolean =>
    run.bestPrimal > NEG_INF && bound - run.bestPrimal <= tolerance * Math.max(1, Math.abs(bound));
  // Depth-first; each level saves its multipliers and posteriors for its two children.
  run.searchBound = rootDual;
  const visit = (savedLambda: Float64Array, savedP: Float64Array): void => {
    let branch = mostFractional(run.p, fix);
    if (branch < 0) {
      // Integral posteriors close a subtree only when its bound is met: a node stopped by its
      // cap (or a false convergence) may round to 0/1 with the gap still open. Then branch on the
      // free variable whose copies disagree most — any variable splits the subtree soundly.
      if (prune(run.bestDual)) return;
      branch = mostDisputed(run);
      if (branch < 0) {
        // A leaf: every variable fixed, the subtree is one assignment — score it and close it.
        for (let i = 0; i < run.p.length; i++) run.p[i] = fix[i]! > 0 ? 1 : 0;
        const value = hooks === undefined ? run.roundAndScore() : hooks.round(run.p);
        if (value > run.bestPrimal) run.bestPrimal = value;
        return;
      }
    }
    const first = run.p[branch]! >= 0.5 ? 1 : 0;
    for (const value of [first, 1 - first]) {
      if (deadline.expired()) {
        timedOut = true;
        complete = false;
        return;
      }
      if (nodes >= maxNodes) {
        complete = false;
        return;
      }
      nodes++;
      fix[branch] = value === 1 ? big : -big;
      lambda.set(savedLambda);
      run.p.set(savedP);
      run.lastInput.fill(Number.NaN);
      run.bestDual = POS_INF;
      const result = runAd3(run, rootOptions, hooks, iterations);
      iterations = result.iterations;
      if (result.status === "time-limit" || run.stopRequested) {
        fix[branch] = 0;
        timedOut = result.status === "time-limit";
        complete = false;
        return;
      }
      if (result.status === "converged" && fixingBroken(run)) {
        // The relaxation solved with a fixed variable off its value: paying the fixing's `big`
        // beats every assignment that honours it, so none does (a knapsack may cap a variable
        // below 1). The subtree is empty.
      } else if (run.diverged && run.bestPrimal === NEG_INF) {
        // No assignment in this subtree, by the evidence above (not a proof).
        complete = false;
      } else if (
        result.status !== "infeasible" &&
        result.status !== "optimal" &&
        !run.diverged &&
        !prune(run.bestDual)
      ) {
        visit(lambda.slice(0, E), run.p.slice());
      }
      fix[branch] = 0;
    }
  };
  visit(lambda.slice(0, E), run.p.slice());
  run.searchBound = POS_INF;
  // A finished search proves its best assignment optimal.
  run.bestDual = complete && run.bestPrimal > NEG_INF ? run.bestPrimal : rootDual;
  const status: SolutionStatus =
    complete && run.bestPrimal > NEG_INF ? "optimal" : timedOut ? "time-limit" : "iteration-limit";
  return solutionOf(run, status, iterations, nodes, posteriors, rootEta);
}
