import {
  checkOptionBounds,
  ETA_OPTION,
  MAX_ITERATIONS_OPTION,
  type OptionBounds,
  TOLERANCE_OPTION,
} from "../../decoder-options.js";
import { LagrangeError } from "../../errors.js";
import { deadlineOf, type SolutionStatus, type SolveOptions } from "../../solver.js";
import { DEFAULT_TOLERANCE } from "../bounds.js";
import { RunControl } from "../run-control.js";
import { Ad3Layout, Ad3Run, type PrimalHooks } from "./admm.js";
import type { BinaryProblem } from "./binary-factor.js";
import { decodesCheaply, SequentialDecoder } from "./sequential-decoding.js";

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
   * factor–variable edges) are both below this and, on a plain factor graph, the dual has settled
   * (moved by at most a tenth of this, relative, since the MAP pass before): the relaxation is
   * solved (default 1e-6).
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
   * step's rule, for the decoders whose policy sets it, counted where the dual is seen (on a
   * plain factor graph the passes may back off near the fixed point: see `dualEvery`).
   */
  readonly stallIterations?: number;
  /**
   * Take the dual (a MAP call per factor) at least every this many iterations (default 50, as AD3;
   * every 5 near the fixed point, on a plain factor graph backing off up to this while the
   * passes find neither a lower dual nor a lower residual and the gap is not nearly closed); it
   * is also taken at the first, whenever the best primal improves, when the relaxation is
   * solved, at the end and, on a plain factor graph, when both residuals have halved since the
   * last one. The master over positions takes it every 5.
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

/** AD3's iteration cap when none is given (as ad3_multi). */
export const AD3_MAX_ITERATIONS = 1000;

const DEFAULTS = {
  maxIterations: AD3_MAX_ITERATIONS,
  eta: 1,
  residualThreshold: 1e-6,
  maxNodes: 1000,
  dualEvery: 50,
  adaptEvery: 10,
};

/** The range η may take (given or adapted): beyond it the quadratic terms lose all precision. */
const MIN_ETA = ETA_OPTION.min!;
const MAX_ETA = ETA_OPTION.max!;

/** AD3's options a caller may give: the master's declared ones, and its own threshold. */
const AD3_OPTION_BOUNDS: readonly OptionBounds[] = [
  MAX_ITERATIONS_OPTION,
  TOLERANCE_OPTION,
  ETA_OPTION,
  { key: "residualThreshold", type: "number", min: 0 },
];

/**
 * A plain graph's run is solved when, besides the residuals, the dual moved by at most this
 * fraction of the residual threshold (relative) since the last MAP pass: 1e-7 at the default.
 * Residuals of 1e-6 can leave the dual still falling: srl_fract_003 stopped 2.3e-6 above the
 * LP's value, and reached it 35 iterations later. (Scaled with the threshold, so that a loose one
 * still stops early.)
 */
const DUAL_SETTLED = 0.1;

/** Residuals within this factor of the stopping threshold count as near the fixed point. */
const NEAR_SOLVED = 1000;

/** Near the fixed point, MAP passes this many iterations apart while the run progresses. */
const NEAR_SPACING = 5;

/**
 * A gap within this fraction of the dual (relative) may close at any pass: near the fixed point
 * the dual at λ_t wanders by ~1e-4 around the LP's value, and one low pass certifies.
 */
const CLOSE_GAP = 1e-3;

export interface Ad3RunResult {
  readonly status: SolutionStatus;
  readonly iterations: number;
  /** The hooks' `separate` added a constraint the run left out: rebuild the run and go on. */
  readonly separated: boolean;
}

/**
 * Runs AD3 on `run` until certified, solved (residuals below the threshold), out of iterations or
 * time, or stopped by `onIteration`. Bounds accumulate in `run.bounds`.
 * `maxIterations` caps this run: each branch-and-bound node gets it afresh (as ad3_multi), the
 * search being bounded by `maxNodes` and the deadline. `warm`: p and λ come from a run this one
 * continues (rebuilt with more factors), so the first MAP pass keeps p instead of seeding it.
 */
export function runAd3(
  run: Ad3Run,
  options: Ad3Options,
  hooks: PrimalHooks | undefined,
  iterationOffset = 0,
  warm = false,
): Ad3RunResult {
  const maxIterations = options.maxIterations ?? DEFAULTS.maxIterations;
  const threshold = options.residualThreshold ?? DEFAULTS.residualThreshold;
  const adapt = options.adaptEta ?? true;
  const control = new RunControl(options);
  const stallIterations = options.stallIterations ?? 0;
  const dualEvery = options.dualEvery ?? DEFAULTS.dualEvery;
  const adaptEvery = options.adaptEvery ?? DEFAULTS.adaptEvery;
  const primalRatio = options.primalRatio ?? 100;
  const edges = Math.max(1, run.layout.edgeVariable.length);
  const { bounds } = run;
  bounds.tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  // Progress is counted in MAP passes, not iterations: the dual is only seen at those.
  bounds.lastProgress = 0;
  let dualPasses = 0;
  run.eta = options.eta ?? DEFAULTS.eta;

  let iterations = 0;
  let status: SolutionStatus = "iteration-limit";
  let divergence = NEG_INF;
  let dual = POS_INF;
  let lastCheck = 1;
  let checkedResidual = POS_INF;
  let settling = false;
  let nearSpacing = NEAR_SPACING;
  let lastLook = 1;
  let leastResidual = POS_INF;
  // (A master with its own candidates rounds them itself.)
  // (Not at a branch-and-bound node: it starts from its parent's λ, away from λ = 0.)
  const decodes = hooks === undefined && iterationOffset === 0 && decodesCheaply(run.layout);
  run.diverged = false;
  for (let t = 1; t <= maxIterations; t++) {
    if (control.timeUp(t)) {
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
    const significant = bounds.significance();
    const primalBefore = bounds.bestPrimal;
    // Residuals below the threshold, and (below) a dual that has stopped falling: the LP solved.
    const converging = t > 1 && residualPrimal < threshold && residualDual < threshold;
    // The dual and a plain graph's rounding each cost about an iteration: take them where they
    // can close the gap — when the residuals have halved since the last look (early, often; near
    // a fixed point, rarely), when the run ends, and at least every `dualEvery` iterations. A
    // fixed every-5 schedule spent a fifth of a run's time on bounds that could not certify.
    const residual = Math.max(residualPrimal, residualDual);
    // Near the fixed point λ settles and the best dual is the LP's value: look every 5 there.
    const near = residual <= NEAR_SOLVED * threshold;
    const spacing = near ? Math.min(NEAR_SPACING, dualEvery) : dualEvery;
    // (A master with its own candidates counts its stall rule in MAP passes: it keeps its
    // every-`dualEvery` schedule, so the rule, and which runs certify, stay as they were.)
    // (Converged residuals with the dual still falling: the passes keep their every-5 spacing.)
    const ends = (converging && !settling) || t === maxIterations;
    const due = hooks === undefined ? t - lastCheck >= spacing : t % spacing === 0;
    const halved = hooks === undefined && t > 1 && residual <= 0.5 * checkedResidual;
    const checkpoint = ends || due || halved;
    // On a plain graph the MAP pass at a checkpoint of the every-5 spacing alone backs off, twice
    // as far apart after each pass that found neither a lower dual nor a residual lower than any
    // pass before (up to `dualEvery`); the rounding keeps its every 5, and a rounding that finds a
    // better primal still brings the dual. A run whose residuals stall short of the threshold
    // (coref: 100× it, from iteration 230 to its cap of 1,000) had spent a sixth of its time on
    // passes every 5 iterations that found nothing (165 passes; now 73). (Backing off on the dual
    // alone slowed the runs that converge, SRL's and the grids': 2–20 % more iterations; backing
    // off the rounding too certified frustrated grids later.)
    const backedOff =
      due &&
      !ends &&
      !halved &&
      near &&
      nearSpacing > NEAR_SPACING &&
      t - lastLook < nearSpacing &&
      !(bounds.bestDual - bounds.bestPrimal <= CLOSE_GAP * Math.max(1, Math.abs(bounds.bestDual)));
    if (checkpoint) {
      lastCheck = t;
      checkedResidual = residual;
    }
    // A master with its own candidates (positions) rounds every iteration: rounding is what
    // certifies there, and costs a labelling's score. A plain factor graph rounds at checkpoints.
    if (t > 1 && (hooks !== undefined || checkpoint)) roundPosteriors(run, hooks);
    // The dual also comes at the start and whenever the primal improved: then it may certify.
    const improved = bounds.bestPrimal > primalBefore;
    const mapped = t === 1 || improved || (checkpoint && !backedOff);
    let solved = false;
    if (mapped) {
      lastLook = t;
      const lastDual = dual;
      run.mapPass(hooks, t === 1 && !warm);
      dual = run.dual;
      // (A master with its own candidates keeps the residuals' rule: its runs stop, separate
      // and certify as they did.)
      solved =
        converging &&
        (hooks !== undefined ||
          Math.abs(lastDual - dual) <= DUAL_SETTLED * threshold * Math.max(1, Math.abs(dual)));
      settling = converging && !solved;
      if (dual === NEG_INF) {
        bounds.bestDual = NEG_INF;
        return { status: "infeasible", iterations: iterationOffset + t, separated: false };
      }
      dualPasses++;
      const bestBefore = bounds.bestDual;
      bounds.seeDual(dual, dualPasses, significant);
      if (hooks === undefined && t > 1) {
        const stalled = bounds.bestDual >= bestBefore && residual >= leastResidual;
        nearSpacing = stalled ? Math.min(2 * nearSpacing, dualEvery) : NEAR_SPACING;
        if (residual < leastResidual) leastResidual = residual;
      }
      if (t === 1) divergence = dual - 1e6 * (1 + Math.abs(dual));
      hooks?.afterMapPass?.();
      // The first pass's posteriors are its maximisers' mean. Later, where a plain graph's
      // factors all choose the same labelling, it is optimal, often long before the posteriors
      // round to an optimum (deer: 11 iterations, not 86; parsing02: 35, not 78). (Rounding
      // the maximisers where they disagree certified nothing more on AD3's graphs and cost
      // SRL's a tenth of their time in scoring.)
      if (t === 1) {
        roundPosteriors(run, hooks);
        // (Where p spread over tied maximisers, the vertices the MAPs picked too: as before.)
        if (run.seedSpread) run.roundAndScore(run.mapMean);
      } else if (run.mapsAgree) run.roundAndScore(run.mapMean);
      // Where rounding leaves the first pass uncertified, the stronger decoding, where it is
      // cheap. Only there: at λ = 0 a relaxation tight from the start has its optimal dual, and
      // the decoding resolves the factors' ties; at a later pass (Family2Dominant's second) λ
      // has left the optimum the dual will come back to only as the run converges.
      if (t === 1 && decodes && !bounds.certified()) new SequentialDecoder(run).decode();
    }
    bounds.seePrimal(primalBefore, dualPasses, significant);
    // Inside branch and bound a node's dual bounds only its subtree: report the search's bound.
    const bound = run.searchBound < POS_INF ? run.searchBound : bounds.bestDual;
    const stop = control.report(
      bounds.certified(),
      iterationOffset + t,
      bound,
      bounds.bestPrimal,
      bound - bounds.bestPrimal,
      run.eta,
      t === 1 ? 0 : Math.round(residualPrimal * edges),
    );
    if (stop !== null) {
      run.stopRequested ||= control.stopRequested;
      status = stop;
      break;
    }
    const stalled = stallIterations > 0 && dualPasses - bounds.lastProgress >= stallIterations;
    // Where the run would end uncertified, a left-out constraint the posteriors break: this
    // fixed point is not the LP's. Only there: early posteriors break many a constraint the
    // solution meets (on UMass citations, separating at every MAP pass took in half of the rows
    // and ran twice as long; separating once within 100× the threshold was tried and gained
    // nothing over this).
    if (mapped && (solved || stalled || t === maxIterations) && hooks?.separate?.(run.p) === true) {
      return { status: "iteration-limit", iterations: iterationOffset + t, separated: true };
    }
    if (bounds.bestPrimal === NEG_INF && bounds.bestDual < divergence) {
      run.diverged = true;
      status = "converged";
      break;
    }
    if (solved || stalled) {
      status = "converged";
      break;
    }
    if (t > 1 && adapt && t % adaptEvery === 0) {
      // Residual balancing (Boyd et al. 2011, §3.4.1) with AD3's asymmetric thresholds: every
      // `adaptEvery` iterations, not every one — on AD3's graphs that converges in half the
      // iterations and settles the grids that otherwise oscillate to the cap.
      // A new η re-projects every factor (the run's setter; as AD3).
      if (residualPrimal > primalRatio * residualDual && run.eta * 2 <= MAX_ETA) run.eta *= 2;
      else if (residualDual > 10 * residualPrimal && run.eta / 2 >= MIN_ETA) run.eta /= 2;
    }
  }
  return { status, iterations: iterationOffset + iterations, separated: false };
}

/** A primal candidate from the posteriors: the caller's rounding, else the run's own. */
function roundPosteriors(run: Ad3Run, hooks: PrimalHooks | undefined): void {
  if (hooks === undefined) run.roundAndScore();
  else hooks.round(run.p);
}

/**
 * A problem over binary variables compiled once for AD3: its factors laid out on flat edge arrays
 * and its dense tables enumerated, what ad3_multi builds as it reads a graph. Solve it as often as
 * needed: each solve starts afresh (its own multipliers, posteriors and active sets). It keeps
 * the problem's unaries, one-hot groups and factors as they are, not copies: change them, compile
 * again.
 */
export interface CompiledBinaryProblem {
  readonly variables: number;
  readonly factorCount: number;
  /** Factor–variable edges. */
  readonly edges: number;
  /** Only {@link compileBinaryProblem} makes one. */
  readonly [compiled]: true;
}

declare const compiled: unique symbol;

/** Each compiled problem's layout, out of the caller's reach. */
const layouts = new WeakMap<CompiledBinaryProblem, Ad3Layout>();

/** Compiles `problem` for {@link solveBinaryProblem} (bad problems are clear errors here). */
export function compileBinaryProblem(problem: BinaryProblem): CompiledBinaryProblem {
  const layout = new Ad3Layout(problem);
  const made = Object.freeze({
    variables: layout.variables,
    factorCount: layout.factors.length,
    edges: layout.edgeVariable.length,
  }) as CompiledBinaryProblem;
  layouts.set(made, layout);
  return made;
}

/**
 * AD3 on a problem over binary variables (a factor graph read from AD3's `.fg` or UAI files, or
 * built from logic factors), with branch and bound when `exact`; the problem as given, or
 * compiled once by {@link compileBinaryProblem} for many solves.
 */
export function solveBinaryProblem(
  problem: BinaryProblem | CompiledBinaryProblem,
  options: Ad3Options = {},
): BinarySolution {
  checkOptionBounds(AD3_OPTION_BOUNDS, options);
  const run = new Ad3Run(layoutOf(problem));
  let solution: BinarySolution;
  if (options.exact === true) {
    // One deadline for every node of the search.
    solution = branchAndBound(run, { ...options, deadline: deadlineOf(options) }, undefined);
  } else {
    const result = runAd3(run, options, undefined);
    solution = solutionOf(run, result.status, result.iterations, 1, run.p.slice(), run.eta);
  }
  // (Not on a throw: a run stopped half-way gives nothing back, and the next makes its own.)
  run.release();
  return solution;
}

function layoutOf(problem: BinaryProblem | CompiledBinaryProblem): Ad3Layout {
  if ("factors" in problem && Array.isArray(problem.factors)) return new Ad3Layout(problem);
  const layout = layouts.get(problem as CompiledBinaryProblem);
  if (layout === undefined) {
    throw new LagrangeError(
      "bad-input",
      "AD3: expected a BinaryProblem (variables, factors) or a problem compileBinaryProblem made (by this copy of @lagrange/core)",
    );
  }
  return layout;
}

function solutionOf(
  run: Ad3Run,
  status: SolutionStatus,
  iterations: number,
  nodes: number,
  posteriors: Float64Array,
  eta: number,
): BinarySolution {
  return {
    assignment: run.bestAssignment.slice(),
    ...run.bounds.outcome(status, iterations),
    posteriors,
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
  const { bounds } = run;
  const rootDual = bounds.bestDual;
  const big =
    1e3 * (1 + Math.abs(rootDual) + Math.abs(bounds.bestPrimal > NEG_INF ? bounds.bestPrimal : 0));
  const { fix, lambda } = run;
  const E = lambda.length;
  let nodes = 1;
  let complete = true;
  let timedOut = false;
  // A subtree whose bound the best primal certifies holds nothing better.
  const prune = (bound: number): boolean => bounds.certified(bound);
  // Depth-first; each level saves its multipliers and posteriors for its two children.
  run.searchBound = rootDual;
  const visit = (savedLambda: Float64Array, savedP: Float64Array): void => {
    let branch = mostFractional(run.p, fix);
    if (branch < 0) {
      // Integral posteriors close a subtree only when its bound is met: a node stopped by its
      // cap (or a false convergence) may round to 0/1 with the gap still open. Then branch on the
      // free variable whose copies disagree most — any variable splits the subtree soundly.
      if (prune(bounds.bestDual)) return;
      branch = mostDisputed(run);
      if (branch < 0) {
        // A leaf: every variable fixed, the subtree is one assignment — score it and close it.
        for (let i = 0; i < run.p.length; i++) run.p[i] = fix[i]! > 0 ? 1 : 0;
        if (hooks === undefined) run.roundAndScore();
        else hooks.round(run.p);
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
      run.invalidate();
      bounds.bestDual = POS_INF;
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
      } else if (run.diverged && bounds.bestPrimal === NEG_INF) {
        // No assignment in this subtree, by the evidence above (not a proof).
        complete = false;
      } else if (
        result.status !== "infeasible" &&
        result.status !== "optimal" &&
        !run.diverged &&
        !prune(bounds.bestDual)
      ) {
        visit(lambda.slice(0, E), run.p.slice());
      }
      fix[branch] = 0;
    }
  };
  visit(lambda.slice(0, E), run.p.slice());
  run.searchBound = POS_INF;
  // A finished search proves its best assignment optimal.
  const proven = complete && bounds.bestPrimal > NEG_INF;
  bounds.bestDual = proven ? bounds.bestPrimal : rootDual;
  const status: SolutionStatus = proven ? "optimal" : timedOut ? "time-limit" : "iteration-limit";
  return solutionOf(run, status, iterations, nodes, posteriors, rootEta);
}
