import { LagrangeError, ProblemValidationError } from "../../errors.js";
import { Bounds } from "../bounds.js";
import { ActiveSetScratch, ActiveSetSolver } from "./active-set.js";
import type { BinaryFactor, BinaryProblem } from "./binary-factor.js";
import {
  BoxScratch,
  mapUnitBox,
  projectBoxConstraint,
  projectUnitBox,
  spreadUnitBoxTies,
  unitCoefficients,
} from "./box-kernels.js";
import { mapPair, projectPair } from "./dense-factors.js";
import {
  DenseKernels,
  type DenseTable,
  DenseTables,
  MAX_DENSE_CONFIGURATIONS,
} from "./dense-kernels.js";
import { mapOrOut, OrOutScratch, projectOrOut } from "./logic-factors.js";
import { carveAll } from "./typed-arena.js";

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
  /** After a MAP pass: offers the candidates collected from the factors' maximisers. */
  afterMapPass?(): void;
  /**
   * After a MAP pass: whether the posteriors break a constraint the run's factors leave out (the
   * caller has added it); the run then stops for the caller to rebuild it with that factor.
   */
  separate?(posteriors: Float64Array): boolean;
}

const CACHE_TOLERANCE = 1e-12;

/** The kernels' scratch where a problem has none of their kind (never called). */
const NO_OR_OUT = new OrOutScratch(0);
const NO_DENSE_TABLES = new DenseTables([]);
const NO_DENSE = new DenseKernels(NO_DENSE_TABLES);

/** How a factor projects (Ad3Layout.kind). */
const CALLED = 0;
const BOX = 1;
const UNIT_BOX = 2;
const PAIR = 3;
const OR_OUT = 4;
const DENSE = 5;

/** The problem's factors laid out on flat edge arrays: edge e joins factor f and variable edgeVariable[e]. */
export class Ad3Layout {
  readonly variables: number;
  readonly factors: readonly BinaryFactor[];
  readonly edgeStart: Int32Array;
  readonly edgeVariable: Int32Array;
  readonly degree: Float64Array;
  readonly unary: Float64Array;
  readonly oneHot: readonly Int32Array[];
  /**
   * Per factor: 1 where the run projects it by the active-set method over its MAP (it has no
   * `project` of its own, or its edges weigh differently). The solvers, which keep their active
   * sets between calls, belong to the run.
   */
  readonly bySolver: Uint8Array;
  readonly edgeWeight: Float64Array;
  readonly inverseWeight: Float64Array;
  readonly weightSum: Float64Array;
  /** Per factor, its edges' common weight, or 0 when they differ (then the active-set solver). */
  readonly uniformWeight: Float64Array;
  /**
   * Every edge weighs 1 (no weights given, as on every plain factor graph): the step's passes skip
   * the weights' arrays (one load and bounds check fewer an edge: 4–21 % of a solve on AD3's graphs).
   */
  readonly unweighted: boolean;
  readonly maxSize: number;
  /** The factor each edge belongs to. */
  readonly edgeFactor: Int32Array;
  /**
   * How each factor projects (see FactorKernel): a kernel on the edge buffers — BOX (UNIT_BOX
   * when every coefficient is ±1), PAIR, OR_OUT, DENSE (DenseKernels) — or CALLED (its own
   * `project`, or the active-set method over its `map`). Per edge: the box factors' folded coefficients, OR-out's literal signs;
   * per factor: the box's rhs, lower end of μ (0, or −∞ for an equality) and penalty, PAIR's score.
   */
  readonly kind: Uint8Array;
  readonly edgeCoefficient: Float64Array;
  readonly edgeSign: Uint8Array;
  readonly boxRhs: Float64Array;
  readonly boxLower: Float64Array;
  readonly boxPenalty: Float64Array;
  readonly pairScore: Float64Array;
  /** DENSE factors: each one's index among them (−1: another kind), and their tables. */
  readonly denseIndex: Int32Array;
  readonly denseTables: DenseTables;
  /** Each variable's edges, in edge order (CSR: variable i's at varEdgeStart[i] …). */
  readonly varEdgeStart: Int32Array;
  readonly varEdges: Int32Array;
  /** Bit k set: some factor is of kind k (its kernel's scratch is needed). */
  readonly kinds: number;
  /**
   * The buffer of a run that has finished (Ad3Run.release), for the next run on this layout: an
   * ArrayBuffer costs more than all of a small graph's one-pass solve does besides (~1.4 µs).
   */
  spare: ArrayBuffer | null = null;

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
    let E = 0;
    let maxSize = 0;
    const factors: BinaryFactor[] = new Array(F);
    for (let f = 0; f < F; f++) {
      const { factor, variables } = problem.factors[f]!;
      if (variables.length !== factor.size) {
        throw new ProblemValidationError(
          `problem.factors[${f}].variables`,
          `factor "${factor.name}" links ${factor.size} variables, got ${variables.length}`,
        );
      }
      factors[f] = factor;
      E += factor.size;
      maxSize = Math.max(maxSize, factor.size);
    }
    const [doubles, integers, bytes] = carveAll(
      [V, E, V, F, E, edgeWeights === undefined ? E : 0, F, F, F, F],
      [F + 1, E, E, V + 1, E, V, F],
      [F, E, F],
    );
    const [degree, inverse, weightSum, uniform, edgeCoefficient, unitWeights, ...perFactor] =
      doubles;
    const [boxRhs, boxLower, boxPenalty, pairScore] = perFactor;
    const [edgeStart, edgeVariable, edgeFactor, varEdgeStart, varEdges, fill, denseIndex] =
      integers;
    const [kind, edgeSign, bySolver] = bytes;
    for (let f = 0; f < F; f++) {
      const { variables } = problem.factors[f]!;
      const at = edgeStart[f]!;
      edgeStart[f + 1] = at + variables.length;
      for (let j = 0; j < variables.length; j++) {
        const i = variables[j]!;
        if (!(Number.isInteger(i) && i >= 0 && i < V)) {
          throw new ProblemValidationError(
            `problem.factors[${f}].variables[${j}]`,
            `expected a variable in 0..${V - 1}, got ${i}`,
          );
        }
        edgeVariable[at + j] = i;
        edgeFactor[at + j] = f;
        degree[i]!++;
      }
    }
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
    this.factors = factors;
    this.edgeStart = edgeStart;
    this.edgeVariable = edgeVariable;
    this.degree = degree;
    this.unary = unary;
    this.oneHot = problem.oneHot ?? [];
    const weights = edgeWeights ?? unitWeights.fill(1);
    this.unweighted = edgeWeights === undefined;
    for (let e = 0; e <= E; e++) {
      const w = weights[e]!;
      if (e === E ? weights.length !== E : !(w > 0 && Number.isFinite(w))) {
        throw new ProblemValidationError("edgeWeights", `expected ${E} finite weights > 0`);
      }
      if (e < E) inverse[e] = 1 / w;
    }
    for (let e = 0; e < E; e++) weightSum[edgeVariable[e]!]! += weights[e]!;
    // A factor with its own projection takes one weight for all its edges (its η scales).
    for (let f = 0; f < F; f++) {
      const factor = factors[f]!;
      const at = edgeStart[f]!;
      const end = edgeStart[f + 1]!;
      const first = at < end ? weights[at]! : 1;
      let same = true;
      for (let e = at + 1; e < end && same; e++) same = weights[e] === first;
      uniform[f] = same ? first : 0;
      const dense =
        factor.kernel?.kind === "dense" && factor.kernel.scores.length <= MAX_DENSE_CONFIGURATIONS;
      bySolver[f] = (factor.project === undefined && !(dense && same)) || !same ? 1 : 0;
    }
    this.bySolver = bySolver;
    this.edgeWeight = weights;
    this.inverseWeight = inverse;
    this.weightSum = weightSum;
    this.uniformWeight = uniform;
    this.maxSize = maxSize;
    this.edgeFactor = edgeFactor;
    this.kind = kind;
    this.edgeCoefficient = edgeCoefficient;
    this.edgeSign = edgeSign;
    this.boxRhs = boxRhs;
    this.boxLower = boxLower;
    this.boxPenalty = boxPenalty;
    this.pairScore = pairScore;
    this.denseIndex = denseIndex.fill(-1);
    const dense: DenseTable[] = [];
    let kinds = 0;
    for (let f = 0; f < F; f++) {
      const kernel = factors[f]!.kernel;
      // A factor whose edges weigh differently projects in its own norm: the active-set solver.
      if (kernel === undefined || bySolver[f] === 1) {
        this.kind[f] = CALLED;
      } else {
        const at = edgeStart[f]!;
        if (kernel.kind === "box") {
          this.kind[f] = unitCoefficients(kernel.coefficients) ? UNIT_BOX : BOX;
          this.edgeCoefficient.set(kernel.coefficients, at);
          this.boxRhs[f] = kernel.rhs;
          this.boxLower[f] = kernel.equality ? NEG_INF : 0;
          this.boxPenalty[f] = kernel.penalty;
        } else if (kernel.kind === "pair") {
          this.kind[f] = PAIR;
          this.pairScore[f] = kernel.score;
        } else if (kernel.kind === "dense") {
          this.kind[f] = DENSE;
          this.denseIndex[f] = dense.length;
          dense.push({ at, cardinalities: kernel.cardinalities, scores: kernel.scores });
        } else {
          this.kind[f] = OR_OUT;
          this.edgeSign.set(kernel.negated, at);
        }
      }
      kinds |= 1 << this.kind[f]!;
    }
    this.kinds = kinds;
    this.denseTables = dense.length > 0 ? new DenseTables(dense) : NO_DENSE_TABLES;
    for (let e = 0; e < E; e++) varEdgeStart[edgeVariable[e]! + 1]!++;
    for (let i = 0; i < V; i++) varEdgeStart[i + 1]! += varEdgeStart[i]!;
    fill.set(varEdgeStart.subarray(0, V));
    for (let e = 0; e < E; e++) varEdges[fill[edgeVariable[e]!]!++] = e;
    this.varEdgeStart = varEdgeStart;
    this.varEdges = varEdges;
  }
}

/**
 * Per factor, its edges' view on `buffer` where it is called (its own `project` or `map`), an
 * empty array where a kernel works on the buffer itself; none at all on a layout of kernels only.
 * (Loops, not closures: each solve builds a run, and under a loader that keeps function names
 * (tsx) every closure made per solve costs a property definition.)
 */
function calledViews(layout: Ad3Layout, buffer: Float64Array): readonly Float64Array[] {
  const { kind, edgeStart, kinds } = layout;
  if ((kinds & ((1 << CALLED) | (1 << BOX))) === 0) return [];
  const F = layout.factors.length;
  const views = new Array<Float64Array>(F);
  for (let f = 0; f < F; f++) {
    views[f] =
      kind[f] === CALLED || kind[f] === BOX
        ? buffer.subarray(edgeStart[f]!, edgeStart[f + 1]!)
        : NO_VIEW;
  }
  return views;
}

const NO_VIEW = new Float64Array(0);

/**
 * A run's active-set solvers where the layout projects by one (null elsewhere), sharing one
 * scratch (each reserves its room; it is allocated at the first projection).
 */
function activeSetSolvers(layout: Ad3Layout): readonly (ActiveSetSolver | null)[] {
  if ((layout.kinds & (1 << CALLED)) === 0) return [];
  const { bySolver, edgeWeight, edgeStart, factors } = layout;
  const scratch = new ActiveSetScratch();
  const solvers = new Array<ActiveSetSolver | null>(factors.length);
  for (let f = 0; f < factors.length; f++) {
    solvers[f] =
      bySolver[f] === 1
        ? new ActiveSetSolver(
            factors[f]!,
            edgeWeight.subarray(edgeStart[f]!, edgeStart[f + 1]!),
            scratch,
          )
        : null;
  }
  return solvers;
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
 * §3.4.1). At the iterations the engine picks (runAd3), the MAP of every factor at the same λ:
 * their sum is the dual value, an upper bound on the optimum (the subgradient master's dual at
 * u = λ), so the run certifies exactly as the subgradient one does — best dual − best primal ≤
 * tolerance · max(1, |best dual|). The first iteration is that MAP pass alone at λ = 0, so a
 * problem whose slaves already agree costs what one subgradient iteration costs.
 *
 * Factors whose quadratic input did not change since their last projection are not projected
 * again (AD3's caching); a step visits only the factors and variables that can move (admmStep);
 * nothing is allocated per iteration over the compiled kinds.
 */
export class Ad3Run {
  readonly layout: Ad3Layout;
  readonly lambda: Float64Array;
  readonly q: Float64Array;
  readonly p: Float64Array;
  readonly lastInput: Float64Array;
  readonly cached: Uint8Array;
  /** Every edge's quadratic input, and MAP adjustment (the factors' views below are on it). */
  readonly input: Float64Array;
  /** Every edge's MAP maximiser, and rounding scratch. */
  readonly output: Float64Array;
  readonly boxScratch: BoxScratch;
  /** Per factor: a unit box's last μ, where its next projection's root search starts. */
  readonly #boxRoot: Float64Array;
  readonly orOutScratch: OrOutScratch;
  /** The DENSE factors' tables and active sets. */
  readonly dense: DenseKernels;
  /** Per factor projected by the active-set method (Ad3Layout.bySolver), its solver; else null. */
  readonly #solvers: readonly (ActiveSetSolver | null)[];
  /** Per called factor, views on the edge buffers: its quadratic input, its MAP output, its q. */
  readonly inputs: readonly Float64Array[];
  readonly outputs: readonly Float64Array[];
  readonly qs: readonly Float64Array[];
  /** Extra unary per variable (branch and bound's fixings); added to θ. */
  readonly fix: Float64Array;
  readonly assignment: Uint8Array;
  readonly bestAssignment: Uint8Array;
  /** The assignment scored last (an assignment's score does not change within a run). */
  readonly #lastScored: Uint8Array;
  #scoredAny = false;
  readonly seedDegree: Float64Array;
  /**
   * After a MAP pass over a plain factor graph (no hooks), each variable's mean over its
   * factors' maximisers (the dual's own labelling, rounded where they agree: mapsAgree);
   * rounding scratch.
   */
  readonly mapMean: Float64Array;
  /**
   * After such a pass: every variable's factors chose the same value. That labelling then scores
   * the dual (Σ λ is 0 on each variable): an optimum.
   */
  mapsAgree = false;
  /**
   * After a seeding pass over a plain factor graph: a factor's maximisers tied, and p took their
   * mean, not the one vertex its MAP picked (mapMean keeps the vertices' mean).
   */
  seedSpread = false;
  /** θ_i + fix_i shared among i's factors, per variable (per iteration). */
  readonly shares: Float64Array;
  primalResidual = 0;
  dualResidual = 0;
  /** The last MAP pass's dual value (−∞: a factor had no configuration). */
  dual = POS_INF;
  #eta = 1;
  /** 1/η, what the inputs and projections scale by (kept with η: a step reads it per factor). */
  #scale = 1;
  /**
   * The step touches only what can move: the active factors (an input changed, or an edge of
   * theirs still disagrees with p) and the variables whose copies moved. A quiet factor keeps its
   * q, its variables their p, its edges their λ: on AD3's graphs most factors settle long before
   * the run ends. `everything` (after a seed, a new η, new fixings) makes the next step whole.
   */
  readonly #active: Int32Array;
  #activeCount = 0;
  /** The factors whose λ a sparse step updates (each once). */
  readonly #toVisit: Int32Array;
  /** Per factor, zero between uses: a sparse step's visit marks; a whole step's keep marks. */
  readonly #visited: Uint8Array;
  readonly #dirty: Int32Array;
  #dirtyCount = 0;
  readonly #isDirty: Uint8Array;
  readonly #moved: Uint8Array;
  readonly #oldQ: Float64Array;
  /** Weighted consensus: each variable's weighted sum of its copies (see #consensus). */
  readonly #total: Float64Array;
  #everything = true;
  /** A whole step left every edge's next input in `input`, and `cached` from them. */
  #inputsReady = false;
  #mapped = 0;
  /** Best primal and dual, certificate and progress, shared with a caller's candidates (hooks). */
  readonly bounds: Bounds;
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

  /** The buffer the run's larger arrays are on (null: none is off the heap). */
  readonly #buffer: ArrayBuffer | null;

  /** `bounds`: a caller's that outlive the run (a rebuilt run goes on with them). */
  constructor(layout: Ad3Layout, bounds = new Bounds()) {
    this.layout = layout;
    this.bounds = bounds;
    const E = layout.edgeVariable.length;
    const V = layout.variables;
    const F = layout.factors.length;
    const [doubles, integers, bytes, buffer] = carveAll(
      [E, E, E, E, E, V, V, V, V, V, F, layout.maxSize, layout.unweighted ? 0 : V],
      [F, F, V],
      [F, F, V, V, V, V, V],
      layout.spare,
    );
    if (buffer === layout.spare) layout.spare = null;
    this.#buffer = buffer;
    const [
      lambda,
      q,
      lastInput,
      input,
      output,
      p,
      fix,
      seedDegree,
      shares,
      mapMean,
      boxRoot,
      oldQ,
      total,
    ] = doubles;
    const [active, toVisit, dirty] = integers;
    const [cached, visited, assignment, bestAssignment, isDirty, moved, lastScored] = bytes;
    this.#lastScored = lastScored;
    this.lambda = lambda;
    this.q = q;
    this.p = p;
    this.lastInput = lastInput.fill(Number.NaN);
    this.cached = cached;
    this.input = input;
    // The kernels' scratch, for the kinds the layout holds (a small graph is mostly set-up).
    const { kinds } = layout;
    const boxSize = kinds & ((1 << BOX) | (1 << UNIT_BOX)) ? layout.maxSize : 0;
    this.boxScratch = new BoxScratch(boxSize);
    this.#boxRoot = boxRoot.fill(Number.NaN);
    this.orOutScratch = kinds & (1 << OR_OUT) ? new OrOutScratch(layout.maxSize) : NO_OR_OUT;
    this.dense = kinds & (1 << DENSE) ? new DenseKernels(layout.denseTables) : NO_DENSE;
    this.output = output;
    // Views for the factors that are called (the kernels work on the buffers themselves): a run
    // over 80,000 small factors need not make 240,000 of them, nor one of only kernels any.
    this.inputs = calledViews(layout, input);
    this.outputs = calledViews(layout, output);
    this.qs = calledViews(layout, q);
    this.#solvers = activeSetSolvers(layout);
    this.fix = fix;
    this.assignment = assignment;
    this.bestAssignment = bestAssignment;
    this.seedDegree = seedDegree;
    this.mapMean = mapMean;
    this.shares = shares;
    this.#active = active;
    this.#toVisit = toVisit;
    this.#visited = visited;
    this.#dirty = dirty;
    this.#isDirty = isDirty;
    this.#moved = moved;
    this.#oldQ = oldQ;
    this.#total = total;
  }

  /** The quadratic penalty; a new one re-projects every factor (as AD3). */
  get eta(): number {
    return this.#eta;
  }

  set eta(value: number) {
    if (value === this.#eta) return;
    this.#eta = value;
    this.#scale = 1 / value;
    this.cached.fill(0);
    this.#everything = true;
    this.#inputsReady = false;
  }

  /** After p, λ or the fixings changed from outside the step: the next step is whole. */
  invalidate(): void {
    this.#everything = true;
    this.#inputsReady = false;
  }

  /** shares[i] = θ_i + fix_i shared equally among the factors of i (before each pass). */
  refreshShares(): void {
    const { degree, unary, variables } = this.layout;
    const { shares, fix } = this;
    this.#inputsReady = false;
    for (let i = 0; i < variables; i++) {
      const d = degree[i]!;
      shares[i] = (unary[i]! + fix[i]!) / (d === 0 ? 1 : d);
    }
  }

  /**
   * Gives the run's buffer to the layout's next run: call it only when nothing reads this run's
   * arrays any more (its results copied out).
   */
  release(): void {
    if (this.#buffer !== null) this.layout.spare = this.#buffer;
  }

  /**
   * The MAP pass at the current λ: the dual value into `dual` (and p from the maximisers when
   * `seed`); −∞ when a factor has no configuration. The closed-form families take their MAP in
   * place on the edge buffers; the others are called.
   */
  mapPass(hooks: PrimalHooks | undefined, seed: boolean): void {
    const layout = this.layout;
    const { factors, edgeStart, edgeVariable, degree, variables, kind } = layout;
    const { input, output, lambda, p, shares } = this;
    this.refreshShares();
    const seeding = seed ? (hooks?.seedFactors ?? factors.length) : 0;
    const seedDegree = this.seedDegree;
    if (seed) {
      p.fill(0);
      seedDegree.fill(0);
      this.#everything = true;
    }
    // A plain graph's pass also takes the mean of the maximisers (at the seeding pass, of the
    // vertices the MAPs picked, beside p's mean of the tied ones).
    const plain = hooks === undefined;
    const mapMean = this.mapMean;
    if (plain) mapMean.fill(0);
    let agree = true;
    let spread = false;
    let dual = 0;
    this.infeasible = false;
    for (let f = 0; f < factors.length; f++) {
      const at = edgeStart[f]!;
      const end = edgeStart[f + 1]!;
      for (let e = at; e < end; e++) input[e] = shares[edgeVariable[e]!]! + lambda[e]!;
      this.#map(f, kind[f]!);
      const value = this.#mapped;
      if (Number.isNaN(value) || value === POS_INF) {
        throw new LagrangeError(
          "bad-input",
          `AD3: factor ${f} ("${factors[f]!.name}") has a MAP value of ${value}; expected a finite number, or −∞ for no configuration (are its log-potentials finite?)`,
        );
      }
      if (value === NEG_INF) this.infeasible = true;
      dual += value;
      if (plain) for (let e = at; e < end; e++) mapMean[edgeVariable[e]!]! += output[e]!;
      if (f < seeding) {
        // Where a plain graph's factor has tied maximisers p starts from their mean: on a
        // colouring graph with no unaries, the centre the LP's optimum is (GEOM30a: converged in
        // 2 iterations, as the C++ AD3's, not 10); one vertex of the ties starts it far off.
        if (plain) spread = this.#spreadTies(f, kind[f]!) || spread;
        for (let e = at; e < end; e++) {
          const i = edgeVariable[e]!;
          p[i]! += output[e]!;
          seedDegree[i]!++;
        }
      }
    }
    for (let i = 0; i < variables; i++) {
      const d = degree[i]!;
      const theta = layout.unary[i]! + this.fix[i]!;
      // A variable fixed on adds its fixing to every score of its subtree: bound the original one.
      if (this.fix[i]! > 0) dual -= this.fix[i]!;
      if (d === 0) {
        dual += Math.max(0, theta);
        if (seed) p[i] = theta > 0 ? 1 : 0;
        if (plain) mapMean[i] = theta > 0 ? 1 : 0;
        continue;
      }
      if (seed && seedDegree[i]! > 0) p[i]! /= seedDegree[i]!;
      if (plain) {
        const mean = mapMean[i]! / d;
        mapMean[i] = mean;
        if (mean !== 0 && mean !== 1) agree = false;
      }
    }
    this.mapsAgree = plain && !seed && agree;
    this.seedSpread = seed && spread;
    this.dual = this.infeasible ? NEG_INF : dual;
  }

  /**
   * After factor f's MAP (#map): its tied maximisers' mean into the output buffer, where the kind
   * has them in closed form (dense tables, unit boxes); whether that changed the output.
   */
  #spreadTies(f: number, kind: number): boolean {
    const layout = this.layout;
    const at = layout.edgeStart[f]!;
    const size = layout.edgeStart[f + 1]! - at;
    const { input, output } = this;
    if (kind === UNIT_BOX) {
      const penalty = layout.boxPenalty[f]!;
      return spreadUnitBoxTies(input, layout.edgeCoefficient, output, at, size, penalty);
    }
    if (kind === DENSE)
      return this.dense.spreadTies(layout.denseIndex[f]!, input, output, at, size);
    return false;
  }

  /** Factor f's MAP at the adjustment in the input buffer (its maximiser into `output`). */
  mapFactor(f: number): number {
    this.#map(f, this.layout.kind[f]!);
    return this.#mapped;
  }

  /**
   * Factor f's MAP at the adjustment in the input buffer, into the output buffer; its value into
   * #mapped (a returned double is boxed where the call is not inlined).
   */
  #map(f: number, kind: number): void {
    const layout = this.layout;
    const at = layout.edgeStart[f]!;
    const size = layout.edgeStart[f + 1]! - at;
    const { input, output } = this;
    if (kind === UNIT_BOX) {
      const scratch = this.boxScratch;
      scratch.bounds[0] = layout.boxRhs[f]!;
      scratch.bounds[1] = layout.boxLower[f]!;
      scratch.bounds[2] = layout.boxPenalty[f]!;
      mapUnitBox(input, layout.edgeCoefficient, output, at, size, scratch);
      this.#mapped = scratch.bounds[3]!;
      return;
    }
    if (kind === PAIR) {
      const weight = this.boxScratch.bounds;
      weight[0] = layout.pairScore[f]!;
      mapPair(input, output, at, weight);
      this.#mapped = weight[1]!;
      return;
    }
    if (kind === OR_OUT) {
      mapOrOut(input, layout.edgeSign, output, at, size, this.orOutScratch);
      this.#mapped = this.orOutScratch.result[0]!;
      return;
    }
    if (kind === DENSE) {
      this.dense.map(layout.denseIndex[f]!, input, output, at, size);
      this.#mapped = this.dense.result[0]!;
      return;
    }
    this.#mapped = layout.factors[f]!.map(this.inputs[f]!, this.outputs[f]!);
  }

  /** One ADMM iteration; leaves the squared primal and dual residuals, summed over edges. */
  admmStep(): void {
    const layout = this.layout;
    const { edgeStart, edgeVariable, edgeFactor, varEdgeStart, varEdges } = layout;
    const { input, q, cached } = this;
    const active = this.#active;
    const dirty = this.#dirty;
    const isDirty = this.#isDirty;
    const moved = this.#moved;
    const oldQ = this.#oldQ;
    const whole = this.#everything;
    if (whole) {
      this.#everything = false;
      this.refreshShares();
    }
    // Where most edges are active anyway (every factor early on; densely shared variables), the
    // plain passes over every edge cost less than the bookkeeping that finds the quiet ones.
    let activeEdges = 0;
    for (let k = 0; k < this.#activeCount; k++) {
      const f = active[k]!;
      activeEdges += edgeStart[f + 1]! - edgeStart[f]!;
    }
    if (whole || 3 * activeEdges > input.length) {
      this.#fullStep();
      return;
    }
    const ready = this.#inputsReady;
    this.#inputsReady = false;
    // 1. The active factors: inputs, AD3's caching (an input within 1e-12 of the last one is the
    // same input), the projection; a variable whose copy moved is dirty.
    const activeCount = this.#activeCount;
    for (let k = 0; k < activeCount; k++) {
      const f = active[k]!;
      if (!this.#stale(f, ready)) continue;
      const at = edgeStart[f]!;
      const end = edgeStart[f + 1]!;
      for (let e = at; e < end; e++) oldQ[e - at] = q[e]!;
      this.#project(f);
      cached[f] = 1;
      for (let e = at; e < end; e++) {
        if (q[e] === oldQ[e - at]) continue;
        const i = edgeVariable[e]!;
        if (isDirty[i] === 0) {
          isDirty[i] = 1;
          dirty[this.#dirtyCount++] = i;
        }
      }
    }
    // 2. p of the dirty variables: their copies' weighted average, in edge order.
    this.dualResidual = 0;
    const dirtyCount = this.#dirtyCount;
    for (let k = 0; k < dirtyCount; k++) {
      const i = dirty[k]!;
      isDirty[i] = 0;
      this.#average(i);
    }
    // 3. λ on the edges of the active factors and of every factor a moved variable touches. Any
    // other edge has q_e = p_i: its λ stays.
    const visited = this.#visited;
    const toVisit = this.#toVisit;
    let visits = 0;
    for (let k = 0; k < activeCount; k++) {
      visited[active[k]!] = 1;
      toVisit[visits++] = active[k]!;
    }
    for (let k = 0; k < dirtyCount; k++) {
      const i = dirty[k]!;
      if (moved[i] === 0) continue;
      const end = varEdgeStart[i + 1]!;
      for (let r = varEdgeStart[i]!; r < end; r++) {
        const f = edgeFactor[varEdges[r]!]!;
        if (visited[f] === 0) {
          visited[f] = 1;
          toVisit[visits++] = f;
        }
      }
    }
    for (let k = 0; k < visits; k++) visited[toVisit[k]!] = 0;
    this.#updateLambda(toVisit, visits);
    // A variable's move is news for one step only.
    for (let k = 0; k < dirtyCount; k++) moved[dirty[k]!] = 0;
    this.#dirtyCount = 0;
  }

  /**
   * admmStep over every factor and variable, without what finds the quiet ones (no copy of q to
   * compare, no dirty list): on graphs of small factors (coref: 3 edges a factor, most active)
   * that bookkeeping had cost more than the edges. Two passes, as AD3: the projections, then one
   * per variable that averages its copies, moves λ on its edges and leaves the next step's inputs
   * (on AD3's graphs the three passes over the edges this replaced had cost as much as the
   * projections; one pass took 1–16 % off a solve, with the same p and λ to the bit).
   */
  #fullStep(): void {
    const F = this.layout.factors.length;
    const ready = this.#inputsReady;
    const cached = this.cached;
    // 1. The projections, where the input changed (AD3's caching).
    for (let f = 0; f < F; f++) {
      if (!this.#stale(f, ready)) continue;
      this.#project(f);
      cached[f] = 1;
    }
    // 2. p of every variable, λ on every edge, the next inputs.
    if (this.layout.unweighted) this.#consensusUnweighted();
    else this.#consensus();
    // 3. The active factors (an edge off p, a moved variable), for a step that skips the others.
    const active = this.#active;
    const keep = this.#visited;
    let next = 0;
    for (let f = 0; f < F; f++) {
      if (keep[f] === 1) {
        keep[f] = 0;
        active[next++] = f;
      }
    }
    this.#activeCount = next;
    this.#dirtyCount = 0;
    this.#inputsReady = true;
  }

  /**
   * Weighted consensus (the master over positions): p_i the weighted average of variable i's
   * copies, summed in edge order; then on each edge λ_e −= η·w_e (q_e − p_i), the factor marked to
   * keep (an edge off p, or p moved), and the factor's next input, which un-caches the factor where
   * it moved beyond AD3's tolerance of the input it was last projected at, and becomes that input.
   * (The factor projects at the next step, at these inputs unless a new η or a MAP pass has them
   * recomputed; an edge that moved less keeps its older one, as AD3's cache.) Leaves both
   * residuals. Three passes in the edges' own order (the copies summed by scatter, p, then λ and
   * the inputs factor by factor), not one per variable: there a count row's copies of an indicator
   * lie far apart in the edge buffers, and a pass per variable gathered 5 edges a variable from 8
   * arrays at ~21 ns an edge on UMass citations. The sums are the same, in the same order.
   */
  #consensus(): void {
    const layout = this.layout;
    const { edgeStart, edgeVariable, edgeWeight, inverseWeight, weightSum, degree, unary } = layout;
    const { variables } = layout;
    const { p, q, lambda, input, lastInput, shares, cached, fix } = this;
    const total = this.#total;
    const moved = this.#moved;
    const keep = this.#visited;
    const eta = this.#eta;
    const scale = this.#scale;
    const E = edgeVariable.length;
    total.fill(0);
    for (let e = 0; e < E; e++) total[edgeVariable[e]!]! += edgeWeight[e]! * q[e]!;
    let dualResidual = 0;
    for (let i = 0; i < variables; i++) {
      if (degree[i] === 0) {
        p[i] = unary[i]! + fix[i]! > 0 ? 1 : 0;
        continue;
      }
      const before = p[i]!;
      const value = total[i]! / weightSum[i]!;
      const change = value - before;
      dualResidual += weightSum[i]! * change * change;
      p[i] = value;
      moved[i] = value !== before ? 1 : 0;
    }
    let primalResidual = 0;
    const F = layout.factors.length;
    for (let f = 0; f < F; f++) {
      let kept = 0;
      let stale = false;
      const end = edgeStart[f + 1]!;
      for (let e = edgeStart[f]!; e < end; e++) {
        const i = edgeVariable[e]!;
        const value = p[i]!;
        const diff = q[e]! - value;
        const w = edgeWeight[e]!;
        let l = lambda[e]!;
        if (diff !== 0) {
          l -= eta * w * diff;
          lambda[e] = l;
          primalResidual += w * diff * diff;
          kept = 1;
        } else if (moved[i] === 1) kept = 1;
        const next = value + (shares[i]! + l) * scale * inverseWeight[e]!;
        input[e] = next;
        if (!(Math.abs(next - lastInput[e]!) <= CACHE_TOLERANCE)) {
          stale = true;
          lastInput[e] = next;
        }
      }
      if (kept === 1) keep[f] = 1;
      if (stale) cached[f] = 0;
    }
    // A variable's move is news for this step only (a sparse step reads the flags).
    moved.fill(0);
    this.primalResidual = primalResidual;
    this.dualResidual = dualResidual;
  }

  /**
   * {@link #consensus} where every edge weighs 1 (every plain factor graph): the same arithmetic
   * (the degree is the weights' sum), without a weight's load or a test of the flag per edge —
   * a loop of its own ran coref, grid10x10 and mln_large in 0.90–0.92 of the time.
   */
  #consensusUnweighted(): void {
    const layout = this.layout;
    const { varEdgeStart, varEdges, degree, unary, edgeFactor, variables } = layout;
    const { p, q, lambda, input, lastInput, shares, cached, fix } = this;
    const keep = this.#visited;
    const eta = this.#eta;
    const scale = this.#scale;
    let primalResidual = 0;
    let dualResidual = 0;
    for (let i = 0; i < variables; i++) {
      const before = p[i]!;
      const from = varEdgeStart[i]!;
      const end = varEdgeStart[i + 1]!;
      const d = degree[i]!;
      if (d === 0) {
        p[i] = unary[i]! + fix[i]! > 0 ? 1 : 0;
        continue;
      }
      let total = 0;
      for (let r = from; r < end; r++) total += q[varEdges[r]!]!;
      const value = total / d;
      const change = value - before;
      dualResidual += d * change * change;
      p[i] = value;
      const moved = value !== before;
      const share = shares[i]!;
      for (let r = from; r < end; r++) {
        const e = varEdges[r]!;
        const f = edgeFactor[e]!;
        const diff = q[e]! - value;
        let l = lambda[e]!;
        if (diff !== 0) {
          l -= eta * diff;
          lambda[e] = l;
          primalResidual += diff * diff;
          keep[f] = 1;
        } else if (moved) keep[f] = 1;
        const next = value + (share + l) * scale;
        input[e] = next;
        if (!(Math.abs(next - lastInput[e]!) <= CACHE_TOLERANCE)) {
          cached[f] = 0;
          lastInput[e] = next;
        }
      }
    }
    this.primalResidual = primalResidual;
    this.dualResidual = dualResidual;
  }

  /**
   * Whether factor f needs projecting (AD3's caching): its input moved beyond 1e-12 of the one it
   * was last projected at. `ready`: the last whole step left the inputs and the cache flags, the
   * inputs that moved already the last ones (#consensus: an uncached factor is projected at the
   * next step); otherwise they are computed here.
   */
  #stale(f: number, ready: boolean): boolean {
    if (!ready) return this.#refreshInput(f);
    return this.cached[f] === 0;
  }

  /**
   * Factor f's quadratic input, p_i + (θ_i/deg_i + λ_e)/(η·w_e) on each edge (weighted consensus,
   * see Ad3Layout: edge e's augmented term is (η·w_e/2)(q_e − p)²); whether it needs projecting:
   * not when it projected last at an input within 1e-12 of this one (AD3's caching).
   */
  #refreshInput(f: number): boolean {
    const { edgeStart, edgeVariable, inverseWeight, unweighted } = this.layout;
    const { input, lambda, p, lastInput, shares } = this;
    const scale = this.#scale;
    let same = this.cached[f] === 1;
    const end = edgeStart[f + 1]!;
    for (let e = edgeStart[f]!; e < end; e++) {
      const i = edgeVariable[e]!;
      const value =
        p[i]! + (shares[i]! + lambda[e]!) * scale * (unweighted ? 1 : inverseWeight[e]!);
      input[e] = value;
      if (!(Math.abs(value - lastInput[e]!) <= CACHE_TOLERANCE)) {
        lastInput[e] = value;
        same = false;
      }
    }
    return !same;
  }

  /**
   * p_i = the weighted average of variable i's copies, summed in edge order (a variable in no
   * factor: its score's sign); adds W_i (p_i − before)² to the dual residual, marks a move.
   */
  #average(i: number): void {
    const { varEdgeStart, varEdges, edgeWeight, weightSum, degree, unary, unweighted } =
      this.layout;
    const { p, q } = this;
    const before = p[i]!;
    let value: number;
    if (degree[i] === 0) value = unary[i]! + this.fix[i]! > 0 ? 1 : 0;
    else {
      let total = 0;
      const end = varEdgeStart[i + 1]!;
      for (let r = varEdgeStart[i]!; r < end; r++) {
        const e = varEdges[r]!;
        total += unweighted ? q[e]! : edgeWeight[e]! * q[e]!;
      }
      value = total / weightSum[i]!;
      const change = value - before;
      this.dualResidual += weightSum[i]! * change * change;
    }
    p[i] = value;
    this.#moved[i] = value === before ? 0 : 1;
  }

  /**
   * λ_e −= η·w_e (q_e − p_i) on the edges of factors[0 … count) (each one once), leaving the
   * primal residual; a factor with an edge still off p, or a moved variable, is active next step.
   * One loop over them all: on graphs of small factors a call per factor cost more than its edges.
   */
  #updateLambda(factors: Int32Array, count: number): void {
    const { edgeStart, edgeVariable, edgeWeight, unweighted } = this.layout;
    const { q, p, lambda } = this;
    const moved = this.#moved;
    const active = this.#active;
    const eta = this.#eta;
    let primalResidual = 0;
    let next = 0;
    for (let k = 0; k < count; k++) {
      const f = factors[k]!;
      let keep = false;
      let residual = 0;
      const end = edgeStart[f + 1]!;
      for (let e = edgeStart[f]!; e < end; e++) {
        const i = edgeVariable[e]!;
        const diff = q[e]! - p[i]!;
        if (diff !== 0) {
          const w = unweighted ? 1 : edgeWeight[e]!;
          lambda[e]! -= eta * w * diff;
          residual += w * diff * diff;
          keep = true;
        } else if (moved[i] === 1) keep = true;
      }
      primalResidual += residual;
      if (keep) active[next++] = f;
    }
    this.primalResidual = primalResidual;
    this.#activeCount = next;
  }

  /** Factor f's quadratic step on the input buffer into q, by its kind. */
  #project(f: number): void {
    const layout = this.layout;
    // 1/η is read here, not passed: a double argument to a call that is not inlined is boxed.
    const scale = this.#scale;
    const { edgeStart, uniformWeight } = layout;
    const at = edgeStart[f]!;
    const size = edgeStart[f + 1]! - at;
    const kind = layout.kind[f]!;
    if (kind === BOX || kind === UNIT_BOX) {
      const scratch = this.boxScratch;
      const bounds = scratch.bounds;
      const penalty = layout.boxPenalty[f]!;
      bounds[0] = layout.boxRhs[f]!;
      bounds[1] = layout.boxLower[f]!;
      bounds[2] = penalty === POS_INF ? POS_INF : (penalty * scale) / uniformWeight[f]!;
      if (kind === UNIT_BOX) {
        bounds[4] = this.#boxRoot[f]!;
        projectUnitBox(this.input, layout.edgeCoefficient, this.q, at, size, scratch);
        this.#boxRoot[f] = bounds[3]!;
      } else projectBoxConstraint(this.input, layout.edgeCoefficient, this.q, at, size, scratch);
    } else if (kind === PAIR) {
      const weight = this.boxScratch.bounds;
      weight[0] = (layout.pairScore[f]! * scale) / uniformWeight[f]!;
      projectPair(this.input, this.q, at, weight);
    } else if (kind === OR_OUT) {
      projectOrOut(this.input, layout.edgeSign, this.q, at, size, this.orOutScratch);
    } else if (kind === DENSE) {
      this.dense.scale[0] = scale / uniformWeight[f]!;
      this.dense.project(layout.denseIndex[f]!, this.input, this.q, at, size);
    } else {
      const solver = this.#solvers[f];
      const out = this.qs[f]!;
      if (solver === null || solver === undefined) {
        layout.factors[f]!.project!(this.inputs[f]!, scale / uniformWeight[f]!, out);
      } else solver.project(this.inputs[f]!, scale, out);
    }
  }

  /**
   * Rounds p, or other values per variable in [0, 1] (one-hot groups: their largest; others at
   * ½) into `assignment`, scores it and keeps it if best.
   */
  roundAndScore(p: Float64Array = this.p): void {
    const { assignment } = this;
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
    // Near a fixed point the roundings repeat: an assignment scored last is offered already.
    const last = this.#lastScored;
    if (this.#scoredAny) {
      let same = true;
      for (let i = 0; i < variables && same; i++) same = assignment[i] === last[i];
      if (same) return;
    }
    last.set(assignment);
    this.#scoredAny = true;
    let total = 0;
    for (let i = 0; i < variables; i++) if (assignment[i] === 1) total += unary[i]!;
    const { kind, edgeCoefficient, edgeSign, boxRhs, boxLower, boxPenalty, pairScore } =
      this.layout;
    for (let f = 0; f < factors.length && total > NEG_INF; f++) {
      const at = edgeStart[f]!;
      const end = edgeStart[f + 1]!;
      const k = kind[f]!;
      if (k === UNIT_BOX) {
        let sum = 0;
        for (let e = at; e < end; e++) sum += edgeCoefficient[e]! * assignment[edgeVariable[e]!]!;
        const excess = sum - boxRhs[f]!;
        const penalty = boxPenalty[f]!;
        if (penalty === POS_INF) {
          const equality = boxLower[f] === NEG_INF;
          if (equality ? excess !== 0 : excess > 0) total = NEG_INF;
        } else if (excess > 0) total -= penalty * excess;
      } else if (k === PAIR) {
        if (assignment[edgeVariable[at]!] === 1 && assignment[edgeVariable[at + 1]!] === 1) {
          total += pairScore[f]!;
        }
      } else if (k === OR_OUT) {
        // The output literal (the last) is on exactly when an input literal is.
        let any = 0;
        for (let e = at; e < end - 1; e++) {
          if ((assignment[edgeVariable[e]!]! ^ edgeSign[e]!) === 1) any = 1;
        }
        const e = end - 1;
        if ((assignment[edgeVariable[e]!]! ^ edgeSign[e]!) !== any) total = NEG_INF;
      } else if (k === DENSE) {
        this.dense.score(this.layout.denseIndex[f]!, assignment, edgeVariable);
        total += this.dense.result[0]!;
      } else {
        const z = this.outputs[f]!;
        for (let e = at; e < end; e++) z[e - at] = assignment[edgeVariable[e]!]!;
        total += factors[f]!.score(z);
      }
    }
    if (total > this.bounds.bestPrimal) {
      this.bounds.bestPrimal = total;
      this.bestAssignment.set(assignment);
    }
  }
}
