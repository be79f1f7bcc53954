/**
 * Limited-memory BFGS and OWL-QN, following libLBFGS (the optimiser inside CRFsuite) step for step:
 * the two-loop recursion over `memory` (s, y) pairs, the More-Thuente line search (libLBFGS's
 * default), libLBFGS's backtracking line search with the strong Wolfe condition, and for an L1
 * term the orthant-wise variant (pseudo-gradient, direction constrained to the pseudo-gradient's
 * orthant, trial points projected onto the orthant, backtracking with the Armijo condition).
 *
 * The algorithm is written once as a generator that yields whenever it needs f and ∇f at the
 * current point; a synchronous driver and an asynchronous one (for objectives computed on worker
 * threads, and to let timers and AbortSignals fire between iterations) both run it.
 */
import { AbortError } from "@lagrange/core";
import { yieldToEventLoop } from "./common.ts";

/** Fills `gradient` with ∇f(x) (overwriting it) and returns f(x). */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;
export type AsyncObjective = (x: Float64Array, gradient: Float64Array) => number | Promise<number>;

export type LineSearch = "more-thuente" | "backtracking-strong-wolfe";

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

const EVALUATE = 0;
const ITERATION_DONE = 1;

const LINE_SEARCH_ERRORS: Record<number, string> = {
  [-1]: "the search direction is not a descent direction",
  [-2]: "the step reached the minimum step",
  [-3]: "the step reached the maximum step",
  [-4]: "the line search reached its maximum number of trial points",
  [-5]: "rounding errors prevent further progress",
  [-6]: "the interval of uncertainty became too small",
  [-7]: "the objective is not finite at the trial point",
  [-8]: "the trial step left the interval of uncertainty",
  [-9]: "invalid step",
};
const ERR_INCREASE_GRADIENT = -1;
const ERR_MINIMUM_STEP = -2;
const ERR_MAXIMUM_STEP = -3;
const ERR_MAXIMUM_LINESEARCH = -4;
const ERR_ROUNDING = -5;
const ERR_WIDTH_TOO_SMALL = -6;
const ERR_NOT_FINITE = -7;
const ERR_OUT_OF_INTERVAL = -8;
const ERR_INVALID_STEP = -9;

interface Settings {
  readonly m: number;
  readonly epsilon: number;
  readonly period: number;
  readonly delta: number;
  readonly maxIterations: number;
  readonly l1: number;
  readonly lineSearch: LineSearch;
  readonly maxLineSearch: number;
  readonly ftol: number;
  readonly gtol: number;
  readonly xtol: number;
  readonly minStep: number;
  readonly maxStep: number;
}

function resolveSettings(o: LbfgsOptions): Settings {
  const s: Settings = {
    m: o.memory ?? 6,
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
  readonly interval: Interval = {
    x: 0,
    fx: 0,
    dx: 0,
    y: 0,
    fy: 0,
    dy: 0,
    t: 0,
    ft: 0,
    dt: 0,
    bracketed: false,
  };
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

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function norm1(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.abs(x[i]!);
  return s;
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
    let ls: number;
    if (owl) ls = yield* lineSearchOwlqn(x, d, xp, pg, w, st);
    else if (st.lineSearch === "more-thuente")
      ls = yield* lineSearchMoreThuente(x, g, d, xp, w, st);
    else ls = yield* lineSearchBacktracking(x, g, d, xp, w, st);
    if (ls < 0) {
      x.set(xp);
      g.set(gp);
      w.f = fPrevious;
      return { status: "line-search-failed", message: LINE_SEARCH_ERRORS[ls] ?? `code ${ls}` };
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

function setTrialPoint(x: Float64Array, xp: Float64Array, d: Float64Array, step: number): void {
  for (let i = 0; i < x.length; i++) x[i] = xp[i]! + step * d[i]!;
}

/** libLBFGS `line_search_backtracking` with the strong Wolfe condition. */
function* lineSearchBacktracking(
  x: Float64Array,
  g: Float64Array,
  d: Float64Array,
  xp: Float64Array,
  w: Workspace,
  st: Settings,
): Generator<number, number, number> {
  if (!(w.step > 0)) return ERR_INVALID_STEP;
  const dgInit = dot(g, d);
  if (dgInit > 0) return ERR_INCREASE_GRADIENT;
  const fInit = w.f;
  const dgTest = st.ftol * dgInit;
  let count = 0;
  for (;;) {
    setTrialPoint(x, xp, d, w.step);
    const f: number = yield EVALUATE;
    count++;
    if (!Number.isFinite(f)) return ERR_NOT_FINITE;
    w.f = f;
    let width: number;
    if (f > fInit + w.step * dgTest) width = 0.5;
    else {
      const dg = dot(g, d);
      if (dg < st.gtol * dgInit) width = 2.1;
      else if (dg > -st.gtol * dgInit) width = 0.5;
      else return count;
    }
    if (w.step < st.minStep) return ERR_MINIMUM_STEP;
    if (w.step > st.maxStep) return ERR_MAXIMUM_STEP;
    if (count >= st.maxLineSearch) return ERR_MAXIMUM_LINESEARCH;
    w.step *= width;
  }
}

/** libLBFGS `line_search_backtracking_owlqn`: trial points projected onto the chosen orthant. */
function* lineSearchOwlqn(
  x: Float64Array,
  d: Float64Array,
  xp: Float64Array,
  pg: Float64Array,
  w: Workspace,
  st: Settings,
): Generator<number, number, number> {
  if (!(w.step > 0)) return ERR_INVALID_STEP;
  const n = x.length;
  const orthant = w.orthant;
  for (let i = 0; i < n; i++) orthant[i] = xp[i] === 0 ? -pg[i]! : xp[i]!;
  const fInit = w.f;
  const c = st.l1;
  let count = 0;
  for (;;) {
    setTrialPoint(x, xp, d, w.step);
    for (let i = 0; i < n; i++) if (x[i]! * orthant[i]! <= 0) x[i] = 0;
    let f: number = yield EVALUATE;
    count++;
    f += c * norm1(x);
    if (!Number.isFinite(f)) return ERR_NOT_FINITE;
    w.f = f;
    let dgTest = 0;
    for (let i = 0; i < n; i++) dgTest += (x[i]! - xp[i]!) * pg[i]!;
    if (f <= fInit + st.ftol * dgTest) return count;
    if (w.step < st.minStep) return ERR_MINIMUM_STEP;
    if (w.step > st.maxStep) return ERR_MAXIMUM_STEP;
    if (count >= st.maxLineSearch) return ERR_MAXIMUM_LINESEARCH;
    w.step *= 0.5;
  }
}

/** The interval of uncertainty of the More-Thuente search: best step x, other end y, trial t. */
interface Interval {
  x: number;
  fx: number;
  dx: number;
  y: number;
  fy: number;
  dy: number;
  t: number;
  ft: number;
  dt: number;
  bracketed: boolean;
}

/** Minimiser of the cubic interpolating (u, fu, du) and (v, fv, dv). */
function cubicMinimizer(u: number, fu: number, du: number, v: number, fv: number, dv: number) {
  const d = v - u;
  const theta = ((fu - fv) * 3) / d + du + dv;
  const s = Math.max(Math.abs(theta), Math.abs(du), Math.abs(dv));
  const a = theta / s;
  let gamma = s * Math.sqrt(Math.max(0, a * a - (du / s) * (dv / s)));
  if (v < u) gamma = -gamma;
  const p = gamma - du + theta;
  const q = gamma - du + gamma + dv;
  return u + (p / q) * d;
}

/** Cubic minimiser that falls back to the interval end the cubic tends towards. */
function cubicMinimizer2(
  u: number,
  fu: number,
  du: number,
  v: number,
  fv: number,
  dv: number,
  xmin: number,
  xmax: number,
) {
  const d = v - u;
  const theta = ((fu - fv) * 3) / d + du + dv;
  const s = Math.max(Math.abs(theta), Math.abs(du), Math.abs(dv));
  const a = theta / s;
  let gamma = s * Math.sqrt(Math.max(0, a * a - (du / s) * (dv / s)));
  if (u < v) gamma = -gamma;
  const p = gamma - dv + theta;
  const q = gamma - dv + gamma + du;
  const r = p / q;
  if (r < 0 && gamma !== 0) return v - r * d;
  return a < 0 ? xmax : xmin;
}

function quadMinimizer(u: number, fu: number, du: number, v: number, fv: number) {
  const a = v - u;
  return u + (du / ((fu - fv) / a + du) / 2) * a;
}

function secantMinimizer(u: number, du: number, v: number, dv: number) {
  const a = u - v;
  return v + (dv / (dv - du)) * a;
}

/** libLBFGS `update_trial_interval` (More & Thuente's dcstep). Returns 0 or an error code. */
function updateTrialInterval(u: Interval, tmin: number, tmax: number): number {
  const dsign = u.dt * (u.dx / Math.abs(u.dx)) < 0;
  if (u.bracketed) {
    if (u.t <= Math.min(u.x, u.y) || Math.max(u.x, u.y) <= u.t) return ERR_OUT_OF_INTERVAL;
    if (0 <= u.dx * (u.t - u.x)) return ERR_INCREASE_GRADIENT;
    if (tmax < tmin) return ERR_INVALID_STEP;
  }
  let bound: boolean;
  let next: number;
  if (u.fx < u.ft) {
    // Higher function value: the minimum is bracketed.
    u.bracketed = true;
    bound = true;
    const mc = cubicMinimizer(u.x, u.fx, u.dx, u.t, u.ft, u.dt);
    const mq = quadMinimizer(u.x, u.fx, u.dx, u.t, u.ft);
    next = Math.abs(mc - u.x) < Math.abs(mq - u.x) ? mc : mc + 0.5 * (mq - mc);
  } else if (dsign) {
    // Lower value, derivatives of opposite sign: bracketed.
    u.bracketed = true;
    bound = false;
    const mc = cubicMinimizer(u.x, u.fx, u.dx, u.t, u.ft, u.dt);
    const mq = secantMinimizer(u.x, u.dx, u.t, u.dt);
    next = Math.abs(mc - u.t) > Math.abs(mq - u.t) ? mc : mq;
  } else if (Math.abs(u.dt) < Math.abs(u.dx)) {
    // Lower value, same sign, derivative magnitude decreasing.
    bound = true;
    const mc = cubicMinimizer2(u.x, u.fx, u.dx, u.t, u.ft, u.dt, tmin, tmax);
    const mq = secantMinimizer(u.x, u.dx, u.t, u.dt);
    if (u.bracketed) next = Math.abs(u.t - mc) < Math.abs(u.t - mq) ? mc : mq;
    else next = Math.abs(u.t - mc) > Math.abs(u.t - mq) ? mc : mq;
  } else {
    // Lower value, same sign, derivative magnitude not decreasing.
    bound = false;
    if (u.bracketed) next = cubicMinimizer(u.t, u.ft, u.dt, u.y, u.fy, u.dy);
    else next = u.x < u.t ? tmax : tmin;
  }

  if (u.fx < u.ft) {
    u.y = u.t;
    u.fy = u.ft;
    u.dy = u.dt;
  } else {
    if (dsign) {
      u.y = u.x;
      u.fy = u.fx;
      u.dy = u.dx;
    }
    u.x = u.t;
    u.fx = u.ft;
    u.dx = u.dt;
  }

  if (tmax < next) next = tmax;
  if (next < tmin) next = tmin;
  if (u.bracketed && bound) {
    const mq = u.x + 0.66 * (u.y - u.x);
    if (u.x < u.y) {
      if (mq < next) next = mq;
    } else if (next < mq) next = mq;
  }
  u.t = next;
  return 0;
}

/** libLBFGS `line_search_morethuente`. */
function* lineSearchMoreThuente(
  x: Float64Array,
  g: Float64Array,
  d: Float64Array,
  xp: Float64Array,
  w: Workspace,
  st: Settings,
): Generator<number, number, number> {
  if (!(w.step > 0)) return ERR_INVALID_STEP;
  const dgInit = dot(g, d);
  if (dgInit > 0) return ERR_INCREASE_GRADIENT;
  let count = 0;
  let bracketed = false;
  let stage1 = true;
  let uinfo = 0;
  const fInit = w.f;
  const dgTest = st.ftol * dgInit;
  let width = st.maxStep - st.minStep;
  let prevWidth = 2 * width;
  // Best step (stx) and other end of the interval (sty), with their values and derivatives.
  let stx = 0;
  let fx = fInit;
  let dgx = dgInit;
  let sty = 0;
  let fy = fInit;
  let dgy = dgInit;
  const u = w.interval;
  let stp = w.step;
  for (;;) {
    let stmin: number;
    let stmax: number;
    if (bracketed) {
      stmin = Math.min(stx, sty);
      stmax = Math.max(stx, sty);
    } else {
      stmin = stx;
      stmax = stp + 4 * (stp - stx);
    }
    if (stp < st.minStep) stp = st.minStep;
    if (st.maxStep < stp) stp = st.maxStep;
    if (
      (bracketed &&
        (stp <= stmin || stmax <= stp || st.maxLineSearch <= count + 1 || uinfo !== 0)) ||
      (bracketed && stmax - stmin <= st.xtol * stmax)
    ) {
      stp = stx;
    }

    setTrialPoint(x, xp, d, stp);
    w.step = stp;
    const f: number = yield EVALUATE;
    count++;
    if (!Number.isFinite(f)) return ERR_NOT_FINITE;
    w.f = f;
    const dg = dot(g, d);
    const ftest1 = fInit + stp * dgTest;

    if (bracketed && (stp <= stmin || stmax <= stp || uinfo !== 0)) return ERR_ROUNDING;
    if (stp === st.maxStep && f <= ftest1 && dg <= dgTest) return ERR_MAXIMUM_STEP;
    if (stp === st.minStep && (ftest1 < f || dgTest <= dg)) return ERR_MINIMUM_STEP;
    if (bracketed && stmax - stmin <= st.xtol * stmax) return ERR_WIDTH_TOO_SMALL;
    if (st.maxLineSearch <= count) return ERR_MAXIMUM_LINESEARCH;
    if (f <= ftest1 && Math.abs(dg) <= st.gtol * -dgInit) return count;

    if (stage1 && f <= ftest1 && Math.min(st.ftol, st.gtol) * dgInit <= dg) stage1 = false;

    u.bracketed = bracketed;
    u.t = stp;
    if (stage1 && ftest1 < f && f <= fx) {
      // The modified function ψ(α) = f(α) − f(0) − ftol·α·f'(0) predicts the step.
      u.x = stx;
      u.fx = fx - stx * dgTest;
      u.dx = dgx - dgTest;
      u.y = sty;
      u.fy = fy - sty * dgTest;
      u.dy = dgy - dgTest;
      u.ft = f - stp * dgTest;
      u.dt = dg - dgTest;
      uinfo = updateTrialInterval(u, stmin, stmax);
      stx = u.x;
      sty = u.y;
      fx = u.fx + stx * dgTest;
      fy = u.fy + sty * dgTest;
      dgx = u.dx + dgTest;
      dgy = u.dy + dgTest;
    } else {
      u.x = stx;
      u.fx = fx;
      u.dx = dgx;
      u.y = sty;
      u.fy = fy;
      u.dy = dgy;
      u.ft = f;
      u.dt = dg;
      uinfo = updateTrialInterval(u, stmin, stmax);
      stx = u.x;
      fx = u.fx;
      dgx = u.dx;
      sty = u.y;
      fy = u.fy;
      dgy = u.dy;
    }
    bracketed = u.bracketed;
    stp = u.t;

    if (bracketed) {
      if (0.66 * prevWidth <= Math.abs(sty - stx)) stp = stx + 0.5 * (sty - stx);
      prevWidth = width;
      width = Math.abs(sty - stx);
    }
  }
}

function checkStart(x: Float64Array): void {
  if (x.length === 0) throw new RangeError("lbfgs: x must have at least one variable");
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) throw new RangeError(`lbfgs: x[${i}] is not finite (${x[i]})`);
  }
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
  checkStart(x);
  const st = resolveSettings(options);
  const w = new Workspace(x.length, st);
  const steps = lbfgsSteps(x, st, w, options.onIteration);
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
  checkStart(x);
  const st = resolveSettings(options);
  const w = new Workspace(x.length, st);
  const steps = lbfgsSteps(x, st, w, options.onIteration);
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
