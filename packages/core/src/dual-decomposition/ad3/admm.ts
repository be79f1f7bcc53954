import { LagrangeError, ProblemValidationError } from "../../errors.js";
import { Bounds } from "../bounds.js";
import { ActiveSetSolver } from "./active-set.js";
import type { BinaryFactor, BinaryProblem } from "./binary-factor.js";

const NEG_INF = Number.NEGATIVE_INFINITY;
const POS_INF = Number.POSITIVE_INFINITY;

/**
 * What a caller that knows more than the factors about what a good assignment is (the positions'
 * master: labels per position, constraints scored its own way) plugs into a run. Internal.
 */
export interface PrimalHooks {
  /** The first MAP pass seeds p from the first this-many factors only (default: all). */
  readonly seedFactors?: number;
  /** Builds a candidate from the posteriors and offers it to the run's bounds. */
  round(posteriors: Float64Array): void;
  /** After a MAP pass: factor f's maximiser (local variables). */
  afterMap?(factor: number, maximiser: Float64Array): void;
  /** After a MAP pass: offers the candidates collected from the factors' maximisers. */
  afterMapPass?(): void;
}

const CACHE_TOLERANCE = 1e-12;

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
  /** Best primal and dual, certificate and progress, shared with a caller's candidates (hooks). */
  readonly bounds = new Bounds();
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

  /** Rounds p (one-hot groups: their largest; others at ½) into `assignment`; keeps it if best. */
  roundAndScore(): void {
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
    if (total > this.bounds.bestPrimal) {
      this.bounds.bestPrimal = total;
      this.bestAssignment.set(assignment);
    }
  }
}
