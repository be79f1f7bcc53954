/**
 * Limited-memory BFGS and OWL-QN, following libLBFGS (the optimiser inside CRFsuite) step for step:
 * the two-loop recursion over `memory` (s, y) pairs and, for an L1 term, the orthant-wise variant
 * (pseudo-gradient, direction constrained to the pseudo-gradient's orthant); the line searches
 * are in line-search.ts.
 *
 * The algorithm is written once as a generator that yields whenever it needs f and ∇f at the
 * current point; a synchronous driver and an asynchronous one (for objectives computed on worker
 * threads, and to let timers and AbortSignals fire between iterations) both run it.
 */
import { AbortError, yieldToEventLoop } from "@lagrange/core";
import {
  EVALUATE,
  emptyInterval,
  type LineSearch,
  type LineSearchSettings,
  lineSearch,
  lineSearchError,
} from "./line-search.js";
import { dot, norm1 } from "./vectors.js";

export type { LineSearch } from "./line-search.js";

/** Fills `gradient` with ∇f(x) (overwriting it) and returns f(x). */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;
export type AsyncObjective = (x: Float64Array, gradient: Float64Array) => number | Promise<number>;

export interface LbfgsOptions {
  /** Number of (s, y) correction pairs kept (CRFsuite `memory`, default 6). */
  readonly memory?: number;
  /** Stop when ‖g‖ / max(1, ‖x‖) ≤ epsilon (default 1e-5). */
  readonly epsilon?: number;
  /** Stop when (f_{k−period} − f_k) / |f_k| < delta (CRFsuite `stop` = 10, `delta` = 1e-5); 0 disables. */
  readonly period?: number;
  readonly delta?: number;
  /** Maximum number of iterations (default: unlimited, as CRFsuite). */
  readonly maxIterations?: number;
  /** Coefficient of an L1 term c·‖x‖₁; when > 0 the orthant-wise method (OWL-QN) is used. */
  readonly l1?: number;
  /** Line search for the smooth case (OWL-QN always backtracks). Default "more-thuente". */
  readonly lineSearch?: LineSearch;
  /** Maximum trial points per line search (CRFsuite: 20). */
  readonly maxLineSearch?: number;
  /** Sufficient-decrease (Armijo) constant, default 1e-4. */
  readonly ftol?: number;
  /** Curvature constant of the Wolfe condition, default 0.9. */
  readonly gtol?: number;
  readonly xtol?: number;
  readonly minStep?: number;
  readonly maxStep?: number;
  /** Called after each iteration; returning false stops the run (status "stopped"). */
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are the usual case
  readonly onIteration?: (progress: LbfgsIteration) => boolean | void;
  /** Checked before every evaluation; an aborted signal throws the core's AbortError. */
  readonly signal?: AbortSignal;
}

export interface LbfgsIteration {
  readonly iteration: number;
  /** Objective value, the L1 term included. */
  readonly f: number;
  readonly xNorm: number;
  /** Norm of the gradient (of the pseudo-gradient under OWL-QN). */
  readonly gradientNorm: number;
  readonly step: number;
  readonly lineSearchEvaluations: number;
  /** The current point (the minimiser's own buffer: copy it to keep it). */
  readonly x: Float64Array;
}

export type LbfgsStatus =
  /** ‖g‖ / max(1, ‖x‖) ≤ epsilon. */
  | "converged"
  /** The relative decrease over `period` iterations fell below `delta` (CRFsuite's usual exit). */
  | "no-progress"
  | "max-iterations"
  /** `onIteration` returned false. */
  | "stopped"
  | "already-minimized"
  /** The line search could not find an acceptable step; x is the last accepted point. */
  | "line-search-failed";

export interface LbfgsResult {
  readonly status: LbfgsStatus;
  /** Objective at the returned x (the L1 term included). */
  readonly f: number;
  readonly iterations: number;
  readonly evaluations: number;
  /** Why the line search failed, when it did. */
  readonly message?: string;
}

/** What the minimiser yields after each iteration (the async driver lets the event loop run). */
const ITERATION_DONE = 1;

/** The (s, y) pairs kept when the caller names no `memory` (CRFsuite's default). */
export const DEFAULT_LBFGS_MEMORY = 6;

interface Settings extends LineSearchSettings {
  readonly m: number;
  readonly epsilon: number;
  readonly period: number;
  readonly delta: number;
  readonly maxIterations: number;
}

function resolveSettings(o: LbfgsOptions): Settings {
  const s: Settings = {
    m: o.memory ?? DEFAULT_LBFGS_MEMORY,
    epsilon: o.epsilon ?? 1e-5,
    period: o.period ?? 10,
    delta: o.delta ?? 1e-5,
    maxIterations: o.maxIterations ?? Number.POSITIVE_INFINITY,
    l1: o.l1 ?? 0,
    lineSearch: o.lineSearch ?? "more-thuente",
    maxLineSearch: o.maxLineSearch ?? 20,
    ftol: o.ftol ?? 1e-4,
    gtol: o.gtol ?? 0.9,
    xtol: o.xtol ?? 1e-16,
    minStep: o.minStep ?? 1e-20,
    maxStep: o.maxStep ?? 1e20,
  };
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new RangeError(`lbfgs options: ${what}`);
  };
  check(Number.isInteger(s.m) && s.m >= 1, `memory must be an integer ≥ 1, got ${s.m}`);
  check(s.epsilon >= 0, `epsilon must be ≥ 0, got ${s.epsilon}`);
  check(
    Number.isInteger(s.period) && s.period >= 0,
    `period must be an integer ≥ 0, got ${s.period}`,
  );
  check(s.delta >= 0, `delta must be ≥ 0, got ${s.delta}`);
  check(s.maxIterations >= 1, `maxIterations must be ≥ 1, got ${s.maxIterations}`);
  check(s.l1 >= 0 && Number.isFinite(s.l1), `l1 must be a finite number ≥ 0, got ${s.l1}`);
  check(
    s.lineSearch === "more-thuente" || s.lineSearch === "backtracking-strong-wolfe",
    `unknown lineSearch ${String(s.lineSearch)}`,
  );
  check(s.maxLineSearch >= 1, `maxLineSearch must be ≥ 1, got ${s.maxLineSearch}`);
  check(0 < s.ftol && s.ftol < 0.5, `ftol must lie in (0, 0.5), got ${s.ftol}`);
  check(s.ftol < s.gtol && s.gtol < 1, `gtol must lie in (ftol, 1), got ${s.gtol}`);
  check(0 < s.minStep && s.minStep < s.maxStep, "need 0 < minStep < maxStep");
  return s;
}

/** Every buffer the run needs, allocated once. */
class Workspace {
  readonly g: Float64Array;
  readonly xp: Float64Array;
  readonly gp: Float64Array;
  readonly d: Float64Array;
  /** Pseudo-gradient (OWL-QN) — aliases g in the smooth case. */
  readonly pg: Float64Array;
  /** Orthant chosen for the trial points (OWL-QN). */
  readonly orthant: Float64Array;
  readonly s: Float64Array[];
  readonly y: Float64Array[];
  readonly ys: Float64Array;
  readonly alpha: Float64Array;
  readonly pastF: Float64Array;
  /** Scratch of the More-Thuente search. */
  readonly interval = emptyInterval();
  f = 0;
  step = 0;
  evaluations = 0;
  iterations = 0;

  constructor(n: number, st: Settings) {
    this.g = new Float64Array(n);
    this.xp = new Float64Array(n);
    this.gp = new Float64Array(n);
    this.d = new Float64Array(n);
    this.pg = st.l1 > 0 ? new Float64Array(n) : this.g;
    this.orthant = st.l1 > 0 ? new Float64Array(n) : new Float64Array(0);
    this.s = [];
    this.y = [];
    for (let j = 0; j < st.m; j++) {
      this.s.push(new Float64Array(n));
      this.y.push(new Float64Array(n));
    }
    this.ys = new Float64Array(st.m);
    this.alpha = new Float64Array(st.m);
    this.pastF = new Float64Array(Math.max(1, st.period));
  }
}

/** Minimum-norm subgradient of f + c‖x‖₁ (Andrew & Gao 2007), as libLBFGS computes it. */
function pseudoGradient(pg: Float64Array, x: Float64Array, g: Float64Array, c: number): void {
  for (let i = 0; i < x.length; i++) {
    const xi = x[i]!;
    const gi = g[i]!;
    if (xi < 0) pg[i] = gi - c;
    else if (xi > 0) pg[i] = gi + c;
    else if (gi < -c) pg[i] = gi + c;
    else if (gi > c) pg[i] = gi - c;
    else pg[i] = 0;
  }
}

/** One run of L-BFGS/OWL-QN as a coroutine: yields EVALUATE to get f at x (g filled by the driver). */
function* lbfgsSteps(
  x: Float64Array,
  st: Settings,
  w: Workspace,
  onIteration: LbfgsOptions["onIteration"],
): Generator<number, { status: LbfgsStatus; message?: string }, number> {
  const n = x.length;
  const { g, xp, gp, d, pg } = w;
  const c = st.l1;
  const owl = c > 0;

  let fx: number = yield EVALUATE;
  if (owl) {
    fx += c * norm1(x);
    pseudoGradient(pg, x, g, c);
  }
  w.f = fx;
  if (!Number.isFinite(fx)) {
    return { status: "line-search-failed", message: "the objective is not finite at the start" };
  }
  w.pastF[0] = fx;
  for (let i = 0; i < n; i++) d[i] = -pg[i]!;
  let xNorm = Math.sqrt(dot(x, x));
  let gNorm = Math.sqrt(dot(pg, pg));
  if (gNorm / Math.max(1, xNorm) <= st.epsilon) return { status: "already-minimized" };

  w.step = 1 / Math.sqrt(dot(d, d));
  let k = 1;
  let end = 0;
  let stored = 0;
  for (;;) {
    xp.set(x);
    gp.set(g);
    const fPrevious = fx;
    w.f = fx;
    const ls = yield* lineSearch(x, w, st);
    if (ls < 0) {
      x.set(xp);
      g.set(gp);
      w.f = fPrevious;
      return { status: "line-search-failed", message: lineSearchError(ls) };
    }
    fx = w.f;
    if (owl) pseudoGradient(pg, x, g, c);
    w.iterations = k;

    xNorm = Math.sqrt(dot(x, x));
    gNorm = Math.sqrt(dot(pg, pg));
    if (onIteration) {
      const go = onIteration({
        iteration: k,
        f: fx,
        xNorm,
        gradientNorm: gNorm,
        step: w.step,
        lineSearchEvaluations: ls,
        x,
      });
      if (go === false) return { status: "stopped" };
    }
    yield ITERATION_DONE;

    if (gNorm / Math.max(1, xNorm) <= st.epsilon) return { status: "converged" };
    if (st.period > 0) {
      if (st.period <= k) {
        const rate = (w.pastF[k % st.period]! - fx) / Math.abs(fx);
        if (rate < st.delta) return { status: "no-progress" };
      }
      w.pastF[k % st.period] = fx;
    }
    if (k >= st.maxIterations) return { status: "max-iterations" };

    // s = x − xp, y = g − gp (the gradient of the smooth part, also under OWL-QN).
    const sEnd = w.s[end]!;
    const yEnd = w.y[end]!;
    let ys = 0;
    let yy = 0;
    for (let i = 0; i < n; i++) {
      const si = x[i]! - xp[i]!;
      const yi = g[i]! - gp[i]!;
      sEnd[i] = si;
      yEnd[i] = yi;
      ys += yi * si;
      yy += yi * yi;
    }
    k++;
    // A pair without positive curvature would make the implicit Hessian indefinite; libLBFGS
    // never meets one with the Wolfe line search, OWL-QN's backtracking can.
    const usable = ys > 0 && Number.isFinite(ys) && yy > 0;
    if (usable) {
      w.ys[end] = ys;
      end = (end + 1) % st.m;
      if (stored < st.m) stored++;
    }

    for (let i = 0; i < n; i++) d[i] = -pg[i]!;
    let j = end;
    for (let b = 0; b < stored; b++) {
      j = (j + st.m - 1) % st.m;
      const sj = w.s[j]!;
      const yj = w.y[j]!;
      const a = dot(sj, d) / w.ys[j]!;
      w.alpha[j] = a;
      for (let i = 0; i < n; i++) d[i] = d[i]! - a * yj[i]!;
    }
    if (usable) {
      const scale = ys / yy;
      for (let i = 0; i < n; i++) d[i] = d[i]! * scale;
    }
    for (let b = 0; b < stored; b++) {
      const sj = w.s[j]!;
      const yj = w.y[j]!;
      const beta = dot(yj, d) / w.ys[j]!;
      const coef = w.alpha[j]! - beta;
      for (let i = 0; i < n; i++) d[i] = d[i]! + coef * sj[i]!;
      j = (j + 1) % st.m;
    }
    if (owl) {
      for (let i = 0; i < n; i++) if (d[i]! * pg[i]! >= 0) d[i] = 0;
    }
    w.step = stored > 0 ? 1 : 1 / Math.sqrt(Math.max(dot(d, d), Number.MIN_VALUE));
  }
}

function checkStart(x: Float64Array): void {
  if (x.length === 0) throw new RangeError("lbfgs: x must have at least one variable");
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) throw new RangeError(`lbfgs: x[${i}] is not finite (${x[i]})`);
  }
}

function startRun(x: Float64Array, options: LbfgsOptions) {
  checkStart(x);
  const st = resolveSettings(options);
  const w = new Workspace(x.length, st);
  return { w, steps: lbfgsSteps(x, st, w, options.onIteration) };
}

function result(w: Workspace, done: { status: LbfgsStatus; message?: string }): LbfgsResult {
  const base = {
    status: done.status,
    f: w.f,
    iterations: w.iterations,
    evaluations: w.evaluations,
  };
  return done.message === undefined ? base : { ...base, message: done.message };
}

/**
 * Minimises f from the starting point `x`, which is updated in place and holds the solution on
 * return. The objective fills its gradient argument (a buffer owned by the minimiser).
 */
export function minimizeLbfgsSync(
  x: Float64Array,
  objective: Objective,
  options: LbfgsOptions = {},
): LbfgsResult {
  const { w, steps } = startRun(x, options);
  let r = steps.next();
  while (!r.done) {
    if (options.signal?.aborted) throw new AbortError();
    if (r.value === EVALUATE) {
      w.evaluations++;
      r = steps.next(objective(x, w.g));
    } else r = steps.next(0);
  }
  return result(w, r.value);
}

/**
 * As {@link minimizeLbfgsSync} for an objective that may be asynchronous (computed on worker
 * threads); it also yields to the event loop after every iteration so that timers and abort
 * signals fire during a long run.
 */
export async function minimizeLbfgs(
  x: Float64Array,
  objective: AsyncObjective,
  options: LbfgsOptions = {},
): Promise<LbfgsResult> {
  const { w, steps } = startRun(x, options);
  let r = steps.next();
  while (!r.done) {
    if (options.signal?.aborted) throw new AbortError();
    if (r.value === EVALUATE) {
      w.evaluations++;
      const f = objective(x, w.g);
      r = steps.next(typeof f === "number" ? f : await f);
    } else {
      await yieldToEventLoop();
      r = steps.next(0);
    }
  }
  return result(w, r.value);
}
