/**
 * The line searches of libLBFGS, step for step: More-Thuente (libLBFGS's default), backtracking
 * with the strong Wolfe condition, and OWL-QN's backtracking with trial points projected onto an
 * orthant and the Armijo condition.
 *
 * A search is a coroutine: it writes a trial point into x and yields {@link EVALUATE}; the
 * driver answers with f(x), having filled g with ∇f(x). It returns the number of evaluations, or
 * a negative error code ({@link lineSearchError} says what went wrong) and then x is undefined.
 */
import { dot, norm1 } from "./vectors.js";

export type LineSearch = "more-thuente" | "backtracking-strong-wolfe";

/** What a search yields to have f and ∇f computed at x. */
export const EVALUATE = 0;

const ERR_INCREASE_GRADIENT = -1;
const ERR_MINIMUM_STEP = -2;
const ERR_MAXIMUM_STEP = -3;
const ERR_MAXIMUM_LINESEARCH = -4;
const ERR_ROUNDING = -5;
const ERR_WIDTH_TOO_SMALL = -6;
const ERR_NOT_FINITE = -7;
const ERR_OUT_OF_INTERVAL = -8;
const ERR_INVALID_STEP = -9;

const LINE_SEARCH_ERRORS: Record<number, string> = {
  [ERR_INCREASE_GRADIENT]: "the search direction is not a descent direction",
  [ERR_MINIMUM_STEP]: "the step reached the minimum step",
  [ERR_MAXIMUM_STEP]: "the step reached the maximum step",
  [ERR_MAXIMUM_LINESEARCH]: "the line search reached its maximum number of trial points",
  [ERR_ROUNDING]: "rounding errors prevent further progress",
  [ERR_WIDTH_TOO_SMALL]: "the interval of uncertainty became too small",
  [ERR_NOT_FINITE]: "the objective is not finite at the trial point",
  [ERR_OUT_OF_INTERVAL]: "the trial step left the interval of uncertainty",
  [ERR_INVALID_STEP]: "invalid step",
};

/** Why a search returned the error code `code`. */
export function lineSearchError(code: number): string {
  return LINE_SEARCH_ERRORS[code] ?? `code ${code}`;
}

export interface LineSearchSettings {
  /** Coefficient of the L1 term; when > 0 the search is OWL-QN's. */
  readonly l1: number;
  readonly lineSearch: LineSearch;
  readonly maxLineSearch: number;
  readonly ftol: number;
  readonly gtol: number;
  readonly xtol: number;
  readonly minStep: number;
  readonly maxStep: number;
}

/** The interval of uncertainty of the More-Thuente search: best step x, other end y, trial t. */
export interface Interval {
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

export function emptyInterval(): Interval {
  return { x: 0, fx: 0, dx: 0, y: 0, fy: 0, dy: 0, t: 0, ft: 0, dt: 0, bracketed: false };
}

/** The minimiser's state a search reads and updates. */
export interface LineSearchState {
  /** f at the start on entry; f at the last trial point on return. */
  f: number;
  /** The initial step on entry; the step taken on return. */
  step: number;
  /** The start point and the search direction. */
  readonly xp: Float64Array;
  readonly d: Float64Array;
  /** The gradient at the start on entry; each evaluation refills it at the trial point. */
  readonly g: Float64Array;
  /** OWL-QN: the pseudo-gradient at the start. */
  readonly pg: Float64Array;
  /** Scratch of the More-Thuente search. */
  readonly interval: Interval;
  /** Scratch of OWL-QN: the orthant the trial points are projected onto. */
  readonly orthant: Float64Array;
}

/**
 * Searches from w.xp along w.d, writing the trial points into x: OWL-QN's projected backtracking
 * when `st.l1` > 0, else the search `st.lineSearch`.
 */
export function* lineSearch(
  x: Float64Array,
  w: LineSearchState,
  st: LineSearchSettings,
): Generator<number, number, number> {
  if (!(w.step > 0)) return ERR_INVALID_STEP;
  if (st.l1 > 0) return yield* lineSearchOwlqn(x, w, st);
  const dgInit = dot(w.g, w.d);
  if (dgInit > 0) return ERR_INCREASE_GRADIENT;
  if (st.lineSearch === "more-thuente") return yield* lineSearchMoreThuente(x, w, st, dgInit);
  return yield* lineSearchBacktracking(x, w, st, dgInit);
}

function setTrialPoint(x: Float64Array, xp: Float64Array, d: Float64Array, step: number): void {
  for (let i = 0; i < x.length; i++) x[i] = xp[i]! + step * d[i]!;
}

/** The error code of a backtracking search that may not shrink or grow the step again, or 0. */
function backtrackingLimit(step: number, count: number, st: LineSearchSettings): number {
  if (step < st.minStep) return ERR_MINIMUM_STEP;
  if (step > st.maxStep) return ERR_MAXIMUM_STEP;
  if (count >= st.maxLineSearch) return ERR_MAXIMUM_LINESEARCH;
  return 0;
}

/** libLBFGS `line_search_backtracking` with the strong Wolfe condition. */
function* lineSearchBacktracking(
  x: Float64Array,
  w: LineSearchState,
  st: LineSearchSettings,
  dgInit: number,
): Generator<number, number, number> {
  const { g, d, xp } = w;
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
    const limit = backtrackingLimit(w.step, count, st);
    if (limit !== 0) return limit;
    w.step *= width;
  }
}

/** libLBFGS `line_search_backtracking_owlqn`: trial points projected onto the chosen orthant. */
function* lineSearchOwlqn(
  x: Float64Array,
  w: LineSearchState,
  st: LineSearchSettings,
): Generator<number, number, number> {
  const { d, xp, pg } = w;
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
    const limit = backtrackingLimit(w.step, count, st);
    if (limit !== 0) return limit;
    w.step *= 0.5;
  }
}

/**
 * θ, a = θ/s and γ = s·√max(0, a² − (du/s)(dv/s)) ≥ 0 of the cubic interpolating (u, fu, du) and
 * (v, fv, dv), with s the largest of |θ|, |du|, |dv| (the scaling keeps the root from overflowing).
 */
function cubicTerms(
  u: number,
  fu: number,
  du: number,
  v: number,
  fv: number,
  dv: number,
): [theta: number, a: number, gamma: number] {
  const theta = ((fu - fv) * 3) / (v - u) + du + dv;
  const s = Math.max(Math.abs(theta), Math.abs(du), Math.abs(dv));
  const a = theta / s;
  return [theta, a, s * Math.sqrt(Math.max(0, a * a - (du / s) * (dv / s)))];
}

/** Minimiser of the cubic interpolating (u, fu, du) and (v, fv, dv). */
function cubicMinimizer(u: number, fu: number, du: number, v: number, fv: number, dv: number) {
  const [theta, , root] = cubicTerms(u, fu, du, v, fv, dv);
  const gamma = v < u ? -root : root;
  const p = gamma - du + theta;
  const q = gamma - du + gamma + dv;
  return u + (p / q) * (v - u);
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
  const [theta, a, root] = cubicTerms(u, fu, du, v, fv, dv);
  const gamma = u < v ? -root : root;
  const p = gamma - dv + theta;
  const q = gamma - dv + gamma + du;
  const r = p / q;
  if (r < 0 && gamma !== 0) return v - r * (v - u);
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
  w: LineSearchState,
  st: LineSearchSettings,
  dgInit: number,
): Generator<number, number, number> {
  const { g, d, xp } = w;
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

    // In stage 1, while f is above the sufficient-decrease line but not above f(stx), the
    // interval is updated on the modified function ψ(α) = f(α) − α·ftol·f'(0), which predicts
    // the step better; otherwise on f itself (a slope of 0, which changes no value).
    const slope = stage1 && ftest1 < f && f <= fx ? dgTest : 0;
    u.bracketed = bracketed;
    u.t = stp;
    u.x = stx;
    u.fx = fx - stx * slope;
    u.dx = dgx - slope;
    u.y = sty;
    u.fy = fy - sty * slope;
    u.dy = dgy - slope;
    u.ft = f - stp * slope;
    u.dt = dg - slope;
    uinfo = updateTrialInterval(u, stmin, stmax);
    stx = u.x;
    sty = u.y;
    fx = u.fx + stx * slope;
    fy = u.fy + sty * slope;
    dgx = u.dx + slope;
    dgy = u.dy + slope;
    bracketed = u.bracketed;
    stp = u.t;

    if (bracketed) {
      if (0.66 * prevWidth <= Math.abs(sty - stx)) stp = stx + 0.5 * (sty - stx);
      prevWidth = width;
      width = Math.abs(sty - stx);
    }
  }
}
