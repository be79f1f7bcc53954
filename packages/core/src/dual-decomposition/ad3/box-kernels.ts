/**
 * The validation and the box kernels AD3's logic factors share: for a single constraint over the
 * box [0,1]^n, clip(v − μ·a) and the exact multiplier μ from the sorted breakpoints of the
 * piecewise-linear, nonincreasing a·z(μ) (the quadratic projection), and the box LP's maximiser
 * through its one-dimensional Lagrangian dual (the MAP).
 */

import { ProblemValidationError } from "../../errors.js";
import { carveAll } from "./typed-arena.js";

// ---------------------------------------------------------------------------------------------
// Validation

export function checkSize(where: string, size: number, min: number): void {
  if (!Number.isInteger(size) || size < min) {
    throw new ProblemValidationError(`${where}.size`, `expected an integer ≥ ${min}, got ${size}`);
  }
}

/** Literal signs: 1 where the variable is negated, XOR-ed with `flip(i)` (AD3's derived types). */
export function literalSigns(
  where: string,
  size: number,
  negated: Uint8Array | undefined,
  flip: (i: number) => boolean,
): Uint8Array {
  if (negated !== undefined && negated.length !== size) {
    throw new ProblemValidationError(
      `${where}.negated`,
      `expected ${size} entries (one per variable), got ${negated.length}`,
    );
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const given = negated !== undefined && negated[i] !== 0;
    out[i] = given !== flip(i) ? 1 : 0;
  }
  return out;
}

export const noFlip = (): boolean => false;

export function checkFinite(path: string, x: number): void {
  if (!Number.isFinite(x))
    throw new ProblemValidationError(path, `expected a finite number, got ${x}`);
}

// ---------------------------------------------------------------------------------------------
// Kernels shared by the single-constraint factors

export function clip01(x: number): number {
  return x <= 0 ? 0 : Math.min(x, 1);
}

/** clip(v − μ a): a zero coefficient ignores μ, so μ = ±∞ stays well defined. */
function stepped(v: number, a: number, mu: number): number {
  return a === 0 ? clip01(v) : clip01(v - mu * a);
}

/**
 * The projection's scratch: breakpoints and their slope changes, for factors of up to `size`
 * variables (allocated once per run, shared by every factor).
 */
export class BoxScratch {
  readonly key: Float64Array;
  readonly delta: Float64Array;
  readonly active: Int32Array;
  /**
   * In: the constraint's rhs, μ's range [lo, hi] (lo = −∞: an equality; hi: the penalty, ∞ when
   * hard), set before every call (a projection may move lo up); [4] a guess at a unit box's μ
   * (NaN: none; the factor's last one, from its caller). Out: [3] the MAP's maximum, or the
   * projection's μ. Doubles passed to or returned from a call the compiler does not inline are
   * boxed, one allocation each: the kernels trade them through here.
   */
  readonly bounds: Float64Array = Float64Array.of(0, 0, 0, 0, Number.NaN);
  constructor(size: number) {
    const [doubles, integers] = carveAll([2 * size + 2, 2 * size + 2], [size], []);
    [this.key, this.delta] = doubles;
    [this.active] = integers;
  }
}

/**
 * Projects v[start … start+n) onto box ∩ {a·z ≤ rhs} (lo = 0) or {a·z = rhs} (lo = −∞), with
 * hi = ∞ for a hard constraint and the penalty for a soft one (rhs, lo, hi: `scratch.bounds`),
 * writing q[start …]: q = clip(v − μa)
 * where h(μ) = a·clip(v − μa) is nonincreasing and μ = lo when h(lo) ≤ rhs, hi when h(hi) ≥ rhs,
 * else the root of h(μ) = rhs. a, v and q are read at the same offsets (a run's edge buffers).
 *
 * Only coordinates whose linear piece meets (lo, hi) can move the root: the others are constant
 * there, so a row over hundreds of indicators most of which sit at 0 sorts only the few that do
 * not (O(n + m log m), m the moving ones). A scan over the sorted breakpoints finds the linear
 * piece that holds the root; μ then comes in closed form from the piece's unclipped coordinates.
 */
export function projectBoxConstraint(
  v: Float64Array,
  a: Float64Array,
  q: Float64Array,
  start: number,
  n: number,
  scratch: BoxScratch,
): void {
  boxRoot(v, a, start, start + n, scratch);
  const mu = scratch.bounds[3]!;
  for (let e = start; e < start + n; e++) q[e] = stepped(v[e]!, a[e]!, mu);
}

/** {@link projectBoxConstraint}'s μ, into bounds[3]. */
function boxRoot(
  v: Float64Array,
  a: Float64Array,
  start: number,
  end: number,
  scratch: BoxScratch,
): void {
  const { bounds } = scratch;
  const rhs = bounds[0]!;
  const hi = bounds[2]!;
  let atLo = 0;
  if (bounds[1] === Number.NEGATIVE_INFINITY) {
    // An equality: every coordinate moves somewhere, so bracket the root from below first. At the
    // last coordinate's lower breakpoint c, h(c) ≥ rhs holds for a simplex (XOR) and often
    // otherwise; then the root lies above c (the new lo) and the coordinates off there drop out.
    let c = Number.NEGATIVE_INFINITY;
    for (let e = start; e < end; e++) {
      const ai = a[e]!;
      if (ai === 0) continue;
      atLo += Math.max(ai, 0);
      c = Math.max(c, ai > 0 ? (v[e]! - 1) / ai : v[e]! / ai);
    }
    if (atLo > rhs && c > Number.NEGATIVE_INFINITY) {
      let atC = 0;
      for (let e = start; e < end; e++) {
        const ai = a[e]!;
        if (ai !== 0) atC += ai * stepped(v[e]!, ai, c);
      }
      if (atC >= rhs) {
        bounds[1] = c;
        atLo = atC;
      }
    }
  } else {
    const given = bounds[1]!;
    for (let e = start; e < end; e++) {
      const ai = a[e]!;
      if (ai !== 0) atLo += ai * stepped(v[e]!, ai, given);
    }
  }
  const lo = bounds[1]!;
  // Most calls end here: the constraint holds at μ = lo (or binds at μ = hi).
  if (atLo <= rhs) {
    bounds[3] = lo;
    return;
  }
  const highest = hi === Number.POSITIVE_INFINITY;
  let atHi = 0;
  for (let e = start; e < end; e++) {
    const ai = a[e]!;
    if (ai !== 0) atHi += highest ? Math.min(ai, 0) : ai * stepped(v[e]!, ai, hi);
  }
  if (atHi >= rhs) {
    bounds[3] = hi;
    return;
  }
  // The coordinates constant on (lo, hi) set aside; the others' breakpoints become events.
  const { key, delta, active } = scratch;
  let fixedOn = 0;
  let moving = 0;
  let events = 0;
  let slope = 0;
  for (let e = start; e < end; e++) {
    const ai = a[e]!;
    if (ai === 0) continue;
    const vi = v[e]!;
    const x0 = vi / ai;
    const x1 = (vi - 1) / ai;
    const lower = ai > 0 ? x1 : x0;
    const upper = ai > 0 ? x0 : x1;
    if (upper <= lo || lower >= hi) {
      // Off for a > 0 past its upper breakpoint, on before its lower one (a < 0: the reverse).
      if ((ai > 0 && lower >= hi) || (ai < 0 && upper <= lo)) fixedOn += ai;
      continue;
    }
    active[moving++] = e;
    const a2 = ai * ai;
    if (lower > lo) {
      key[events] = lower;
      delta[events++] = -a2;
    } else slope -= a2;
    if (upper < hi) {
      key[events] = upper;
      delta[events++] = a2;
    }
  }
  sortPairs(key, delta, events);
  // Walk up from lo: the root lies on the first piece where h falls to rhs.
  let from = lo;
  let value = atLo;
  let to = Number.POSITIVE_INFINITY;
  for (let k = 0; k < events; k++) {
    const at = key[k]!;
    const next = slope === 0 ? value : value + slope * (at - from);
    if (next <= rhs) {
      to = at;
      break;
    }
    from = at;
    value = next;
    slope += delta[k]!;
  }
  to = Math.min(to, hi);
  // Closed form on the piece (from, to): Σ_on a_i + Σ_between a_i (v_i − μ a_i) = rhs.
  const inside = Number.isFinite(to) ? 0.5 * (from + to) : from + 1;
  let numerator = fixedOn - rhs;
  let denominator = 0;
  for (let k = 0; k < moving; k++) {
    const e = active[k]!;
    const ai = a[e]!;
    const x = v[e]! - inside * ai;
    if (x >= 1) numerator += ai;
    else if (x > 0) {
      numerator += ai * v[e]!;
      denominator += ai * ai;
    }
  }
  const mu = denominator > 0 ? numerator / denominator : to;
  bounds[3] = Math.min(Math.max(mu, from), to);
}

/** Newton passes of {@link unitRoot} before it sorts. */
const NEWTON_PASSES = 6;

/** Whether every coefficient is ±1 (then {@link projectUnitBox} applies). */
export function unitCoefficients(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 1 && a[i] !== -1) return false;
  return true;
}

/**
 * {@link projectBoxConstraint} for coefficients that are all ±1 (XOR, AtMostOne, OR, IMPLY, BUDGET,
 * and most constraint rows): in t-space, t = v where a = 1 and 1 − v where a = −1, every
 * coordinate is clip(t − μ) and the constraint reads Σ clip(t − μ) = rhs + #(a = −1) — a capped
 * simplex. No divisions; the moving coordinates' t are sorted once (each coordinate's two
 * breakpoints t − 1 and t keep that order), and a scan over both event streams carries the piece's
 * state (how many are on, how many between and their Σ t), so μ comes out of the piece it lies on.
 */
export function projectUnitBox(
  v: Float64Array,
  a: Float64Array,
  q: Float64Array,
  start: number,
  n: number,
  scratch: BoxScratch,
): void {
  const bounds = scratch.bounds;
  if (bounds[4] === 0 && bounds[1] === 0) {
    // An inequality row whose μ was 0 is most often slack still (coref's ORs: two projections in
    // three): then μ = 0 and q = clip(v), one light pass instead of a Newton pass.
    let activity = 0;
    for (let e = start; e < start + n; e++) {
      const z = Math.min(Math.max(v[e]!, 0), 1);
      q[e] = z;
      activity += a[e]! < 0 ? -z : z;
    }
    if (activity <= bounds[0]!) {
      bounds[3] = 0;
      return;
    }
  }
  unitRoot(v, a, start, start + n, scratch);
  const mu = bounds[3]!;
  for (let e = start; e < start + n; e++) {
    const x = a[e]! < 0 ? v[e]! + mu : v[e]! - mu;
    q[e] = Math.min(Math.max(x, 0), 1);
  }
}

/**
 * {@link projectUnitBox}'s μ, into bounds[3]: Newton steps on φ(μ) = Σ clip(t − μ) = target from
 * the guess in bounds[4] (a factor's μ moves little between ADMM iterations; on UMass citations'
 * count rows 1.2 passes a projection), each one pass over the coordinates: a step that stays on
 * the linear piece it starts on is exact, and μ = lo or hi where the root lies beyond. Where they
 * do not settle, {@link sortedRoot}.
 */
function unitRoot(
  v: Float64Array,
  a: Float64Array,
  start: number,
  end: number,
  scratch: BoxScratch,
): void {
  const bounds = scratch.bounds;
  const lo = bounds[1]!;
  const hi = bounds[2]!;
  const guess = bounds[4]!;
  let mu =
    guess >= lo && guess <= hi ? guess : lo > Number.NEGATIVE_INFINITY ? lo : Math.min(0, hi);
  let target = bounds[0]!;
  for (let pass = 0; pass < NEWTON_PASSES; pass++) {
    // At μ: φ; right of μ the coordinates with 0 < t − μ ≤ 1 move, left of it those with
    // 0 ≤ t − μ < 1; the pieces end at the nearest breakpoints (t − 1 or t) either side.
    let phi = 0;
    let onRight = 0;
    let sumRight = 0;
    let movingRight = 0;
    let onLeft = 0;
    let sumLeft = 0;
    let movingLeft = 0;
    let above = Number.POSITIVE_INFINITY;
    let below = Number.NEGATIVE_INFINITY;
    let negatives = 0;
    for (let e = start; e < end; e++) {
      const negative = a[e]! < 0;
      if (negative) negatives++;
      const t = negative ? 1 - v[e]! : v[e]!;
      const x = t - mu;
      if (x > 1) {
        phi += 1;
        onRight++;
        onLeft++;
        if (t - 1 < above) above = t - 1;
      } else if (x > 0) {
        phi += x;
        movingRight++;
        sumRight += t;
        if (t < above) above = t;
        if (x === 1) onLeft++;
        else {
          movingLeft++;
          sumLeft += t;
          if (t - 1 > below) below = t - 1;
        }
      } else if (x === 0) {
        movingLeft++;
        sumLeft += t;
        if (t - 1 > below) below = t - 1;
      } else if (t > below) below = t;
    }
    // (Accumulated, not assigned: a double merged with an integer is boxed on every call.)
    if (pass === 0) target += negatives;
    if (phi > target) {
      // The root is right of μ: on the piece [μ, above] φ = onRight + sumRight − movingRight·μ.
      if (mu >= hi) {
        bounds[3] = hi;
        return;
      }
      if (movingRight === 0) {
        mu = above;
      } else {
        const root = (onRight + sumRight - target) / movingRight;
        if (root <= above || above >= hi) {
          bounds[3] = Math.min(Math.max(root, mu), hi);
          return;
        }
        mu = Math.min(root, hi);
      }
    } else if (phi < target) {
      if (mu <= lo) {
        bounds[3] = lo;
        return;
      }
      if (movingLeft === 0) {
        mu = below;
      } else {
        const root = (onLeft + sumLeft - target) / movingLeft;
        if (root >= below || below <= lo) {
          bounds[3] = Math.max(Math.min(root, mu), lo);
          return;
        }
        mu = Math.max(root, lo);
      }
    } else {
      bounds[3] = mu;
      return;
    }
    if (!(mu > Number.NEGATIVE_INFINITY && mu < Number.POSITIVE_INFINITY)) break;
  }
  sortedRoot(v, a, start, end, scratch);
}

/**
 * {@link projectUnitBox}'s μ by sorting the coordinates that move in (lo, hi), a scan over both
 * event streams carrying the piece's state: where Newton steps do not settle.
 */
function sortedRoot(
  v: Float64Array,
  a: Float64Array,
  start: number,
  end: number,
  scratch: BoxScratch,
): void {
  const { bounds, key } = scratch;
  let target = bounds[0]!;
  const hi = bounds[2]!;
  let atLo = 0;
  let top = Number.NEGATIVE_INFINITY;
  const lowest = bounds[1] === Number.NEGATIVE_INFINITY;
  const given = bounds[1]!;
  for (let e = start; e < end; e++) {
    const negative = a[e]! < 0;
    const t = negative ? 1 - v[e]! : v[e]!;
    if (negative) target += 1;
    top = Math.max(top, t);
    // (An equality counts every literal on at μ = −∞; accumulated, not assigned from n: a double
    // merged with an integer argument is boxed on every call.)
    atLo += lowest ? 1 : Math.min(Math.max(t - given, 0), 1);
  }
  if (lowest) {
    // At c = max t − 1 the largest coordinate is fully on, so Σ ≥ 1: for a simplex (target 1)
    // the root lies above c (the new lo), and the coordinates off there drop out of the search.
    const c = top - 1;
    let atC = 0;
    for (let e = start; e < end; e++) {
      const t = a[e]! < 0 ? 1 - v[e]! : v[e]!;
      atC += Math.min(Math.max(t - c, 0), 1);
    }
    if (atC >= target) {
      bounds[1] = c;
      atLo = atC;
    }
  }
  const lo = bounds[1]!;
  if (atLo <= target) {
    bounds[3] = lo;
    return;
  }
  if (hi === Number.POSITIVE_INFINITY) {
    if (target <= 0) {
      bounds[3] = hi;
      return;
    }
  } else {
    let atHi = 0;
    for (let e = start; e < end; e++) {
      const t = a[e]! < 0 ? 1 - v[e]! : v[e]!;
      atHi += Math.min(Math.max(t - hi, 0), 1);
    }
    if (atHi >= target) {
      bounds[3] = hi;
      return;
    }
  }
  // Coordinates on throughout (lo, hi) count once; those off there not at all.
  let fixedOn = 0;
  let m = 0;
  for (let e = start; e < end; e++) {
    const t = a[e]! < 0 ? 1 - v[e]! : v[e]!;
    if (t <= lo) continue;
    if (t - 1 >= hi) fixedOn++;
    else key[m++] = t;
  }
  sortPairs(key, null, m);
  // At μ = lo: coordinates with t − 1 ≤ lo are between (value t − μ), the rest on.
  let on = 0;
  let between = 0;
  let sum = 0;
  let upper = 0;
  for (let k = 0; k < m; k++) {
    const t = key[k]!;
    if (t - 1 <= lo) {
      between++;
      sum += t;
    } else on++;
  }
  let lower = m - on;
  let mu = hi;
  for (;;) {
    // The next event: a coordinate leaving (its t) or one starting to move (its t − 1).
    const nextUpper = upper < m ? key[upper]! : Number.POSITIVE_INFINITY;
    const nextLower = lower < m ? key[lower]! - 1 : Number.POSITIVE_INFINITY;
    const next = Math.min(nextUpper, nextLower, hi);
    const atNext = fixedOn + on + sum - between * next;
    if (atNext <= target || next === hi) {
      if (between > 0) mu = (fixedOn + on + sum - target) / between;
      mu = Math.min(mu, next);
      break;
    }
    if (nextLower <= nextUpper) {
      on--;
      between++;
      sum += key[lower++]!;
    } else {
      between--;
      sum -= key[upper++]!;
    }
  }
  bounds[3] = Math.max(mu, lo);
}

/**
 * The MAP of a unit-coefficient box factor (see {@link projectUnitBox}): maximise adj·z (less
 * penalty·max(0, a·z − rhs) when soft) over the box cut by the constraint. In t-space a literal
 * gains g = ±adj; the largest gains fill the rhs (a fractional rhs leaves one literal fractional,
 * as the box LP does), then a soft constraint takes the literals whose gain beats the penalty.
 * Writes z to out[start …] and the maximum (−∞: no point of the box meets a hard constraint) to
 * bounds[3].
 */
export function mapUnitBox(
  adj: Float64Array,
  a: Float64Array,
  out: Float64Array,
  start: number,
  n: number,
  scratch: BoxScratch,
): void {
  const end = start + n;
  const { bounds, key, delta } = scratch;
  const rhs = bounds[0]!;
  const equality = bounds[1] === Number.NEGATIVE_INFINITY;
  const penalty = bounds[2]!;
  const hard = penalty === Number.POSITIVE_INFINITY;
  let target = rhs;
  let constant = 0;
  let m = 0;
  // Literals worth more than a soft row's penalty are taken whatever the count: at once, with no
  // sorting (on UMass citations' count rows a third of the literals, far more than the count).
  let overPenalty = 0;
  let gained = 0;
  for (let e = start; e < end; e++) {
    const negative = a[e]! < 0;
    const gain = negative ? -adj[e]! : adj[e]!;
    if (negative) {
      target += 1;
      constant += adj[e]!;
    }
    if (gain > penalty) {
      overPenalty++;
      gained += gain;
      out[e] = negative ? 0 : 1;
      continue;
    }
    // Every other literal starts off: z = 0, or 1 where negated.
    out[e] = negative ? 1 : 0;
    // Only a literal that gains can be worth taking, unless an equality must be filled.
    if (gain > 0 || equality) {
      key[m] = -gain;
      delta[m++] = e;
    }
  }
  if ((hard && target < 0) || (equality && target > n)) {
    // No point of the box meets it: the least-violating vertex, every literal off.
    for (let e = start; e < end; e++) out[e] = a[e]! < 0 ? 1 : 0;
    bounds[3] = Number.NEGATIVE_INFINITY;
    return;
  }
  // The others fill what the count leaves, best first: ⌈that⌉ of them (a fractional rhs leaves
  // the last fractional). An XOR or AtMostOne takes one: a scan for the best beats sorting.
  let remaining = target - overPenalty;
  const wanted = Math.min(m, Math.max(Math.ceil(remaining), 0));
  if (wanted > 0) {
    if (wanted <= SELECT_AT_MOST && wanted < m) selectBest(key, delta, wanted, m);
    else sortPairs(key, delta, m);
  }
  let taken = overPenalty;
  for (let k = 0; k < wanted && remaining > 0; k++) {
    const lit = Math.min(remaining, 1);
    remaining -= lit;
    taken += lit;
    gained += -key[k]! * lit;
    const e = delta[k]!;
    out[e] = a[e]! < 0 ? 1 - lit : lit;
  }
  let value = constant + gained;
  if (!hard && taken > target) value -= penalty * (taken - target);
  bounds[3] = value;
}

/**
 * After {@link mapUnitBox} at the same adj (its penalty given): where literals that the count did
 * not take gain exactly what the last one it took gains (within 1e-12, relative), the taken share
 * spreads over all of them — the mean of the maximisers that differ only among those literals, a
 * point of the optimal face (an XOR over equal scores: each 1/k; the whole face's mean on a hard
 * equality row). Returns whether it did. A fractional or empty vertex stays as it is.
 */
export function spreadUnitBoxTies(
  adj: Float64Array,
  a: Float64Array,
  out: Float64Array,
  start: number,
  n: number,
  penalty: number,
): boolean {
  const end = start + n;
  // The least gain the count took (literals over a soft row's penalty are taken whatever it is).
  let cut = Number.POSITIVE_INFINITY;
  for (let e = start; e < end; e++) {
    const negative = a[e]! < 0;
    const on = negative ? 1 - out[e]! : out[e]!;
    if (on !== 0 && on !== 1) return false;
    const gain = negative ? -adj[e]! : adj[e]!;
    if (on === 1 && gain <= penalty && gain < cut) cut = gain;
  }
  if (cut === Number.POSITIVE_INFINITY) return false;
  const slack = 1e-12 * (1 + Math.abs(cut));
  let tied = 0;
  let taken = 0;
  for (let e = start; e < end; e++) {
    const negative = a[e]! < 0;
    const gain = negative ? -adj[e]! : adj[e]!;
    if (gain > penalty || Math.abs(gain - cut) > slack) continue;
    tied++;
    if ((negative ? 1 - out[e]! : out[e]!) === 1) taken++;
  }
  if (tied === taken) return false;
  const share = taken / tied;
  for (let e = start; e < end; e++) {
    const negative = a[e]! < 0;
    const gain = negative ? -adj[e]! : adj[e]!;
    if (gain > penalty || Math.abs(gain - cut) > slack) continue;
    out[e] = negative ? 1 - share : share;
  }
  return true;
}

/** Up to this many best literals, a MAP selects them (k scans) rather than sorting all. */
const SELECT_AT_MOST = 4;

/**
 * Moves the k smallest keys (values along) to keys[0 … k), ascending, in k scans; stable (the
 * others shift rather than swap), so ties fall as the sort's insertion pass lets them.
 */
function selectBest(keys: Float64Array, values: Float64Array, k: number, m: number): void {
  for (let j = 0; j < k; j++) {
    let best = j;
    for (let i = j + 1; i < m; i++) if (keys[i]! < keys[best]!) best = i;
    const key = keys[best]!;
    const value = values[best]!;
    for (let i = best; i > j; i--) {
      keys[i] = keys[i - 1]!;
      values[i] = values[i - 1]!;
    }
    keys[j] = key;
    values[j] = value;
  }
}

/**
 * Sorts keys[0 … m) ascending, moving values[] (when given) along, in place and without
 * allocating: insertion sort for the short runs most factors have, heapsort beyond.
 */
export function sortPairs(keys: Float64Array, values: Float64Array | null, m: number): void {
  if (m <= 24) {
    for (let i = 1; i < m; i++) {
      const k = keys[i]!;
      const x = values === null ? 0 : values[i]!;
      let j = i - 1;
      while (j >= 0 && keys[j]! > k) {
        keys[j + 1] = keys[j]!;
        if (values !== null) values[j + 1] = values[j]!;
        j--;
      }
      keys[j + 1] = k;
      if (values !== null) values[j + 1] = x;
    }
    return;
  }
  for (let i = (m >> 1) - 1; i >= 0; i--) siftDown(keys, values, i, m);
  for (let end = m - 1; end > 0; end--) {
    const k = keys[0]!;
    keys[0] = keys[end]!;
    keys[end] = k;
    if (values !== null) {
      const x = values[0]!;
      values[0] = values[end]!;
      values[end] = x;
    }
    siftDown(keys, values, 0, end);
  }
}

function siftDown(keys: Float64Array, values: Float64Array | null, root: number, m: number): void {
  const k = keys[root]!;
  const x = values === null ? 0 : values[root]!;
  let i = root;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= m) break;
    if (child + 1 < m && keys[child + 1]! > keys[child]!) child++;
    if (keys[child]! <= k) break;
    keys[i] = keys[child]!;
    if (values !== null) values[i] = values[child]!;
    i = child;
  }
  keys[i] = k;
  if (values !== null) values[i] = x;
}

/**
 * max over z ∈ [0,1]^n of adj·z − c·max(0, a·z − rhs) (c = ∞: subject to a·z ≤ rhs), through its
 * Lagrangian dual min over μ ∈ [0, c] of g(μ) = μ·rhs + Σ max(0, adj_i − μ a_i): convex piecewise
 * linear with breakpoints adj_i/a_i; the smallest point whose right slope is ≥ 0 is a minimiser.
 * The primal: z_i = 1 where adj_i − μa_i > 0, 0 where < 0, and the ties filled to a·z = rhs.
 * Returns μ (∞ when the hard constraint is infeasible in the box, z then the least-violating
 * vertex). Ratios and ties are compared as the stored ratio values, so a tie is exact.
 */
export function boxLpMax(
  adj: Float64Array,
  a: Float64Array,
  n: number,
  rhs: number,
  c: number,
  ratio: Float64Array,
  points: Float64Array,
  out: Float64Array,
): number {
  let minimum = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    ratio[i] = ai === 0 ? 0 : adj[i]! / ai;
    if (ai < 0) minimum += ai;
  }
  if (c === Number.POSITIVE_INFINITY && minimum > rhs) {
    for (let i = 0; i < n; i++) {
      const ai = a[i]!;
      out[i] = ai > 0 ? 0 : ai < 0 ? 1 : adj[i]! > 0 ? 1 : 0;
    }
    return Number.POSITIVE_INFINITY;
  }
  let m = 0;
  points[m++] = 0;
  for (let i = 0; i < n; i++) {
    const r = ratio[i]!;
    // A ratio that overflowed to ∞ stays a point of a hard constraint: its minimiser may be there.
    if (a[i] !== 0 && r > 0 && (r < c || r === Number.POSITIVE_INFINITY)) points[m++] = r;
  }
  if (Number.isFinite(c)) points[m++] = c;
  // Only the m points found are sorted, in place.
  sortPairs(points, null, m);
  let mu: number;
  if (rightSlope(a, ratio, n, rhs, points[m - 1]!) < 0) mu = points[m - 1]!;
  else {
    // Smallest point with slope ≥ 0: invariant slope(points[i1]) ≥ 0, slope(points[i0]) < 0.
    let i0 = -1;
    let i1 = m - 1;
    while (i1 - i0 > 1) {
      const mid = (i0 + i1) >> 1;
      if (rightSlope(a, ratio, n, rhs, points[mid]!) >= 0) i1 = mid;
      else i0 = mid;
    }
    mu = points[i1]!;
  }
  let used = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    const r = ratio[i]!;
    let z: number;
    if (ai === 0) z = adj[i]! > 0 ? 1 : 0;
    else if (ai > 0) z = r > mu ? 1 : 0;
    else z = r < mu ? 1 : r > mu ? 0 : 1; // a tie starts at the smallest a·z (z = 1 when a < 0)
    out[i] = z;
    used += ai * z;
  }
  let remaining = rhs - used;
  for (let i = 0; i < n && remaining > 0; i++) {
    const ai = a[i]!;
    if (ai === 0 || ratio[i] !== mu) continue;
    const width = Math.abs(ai);
    const fraction = remaining >= width ? 1 : remaining / width;
    out[i] = ai > 0 ? fraction : 1 - fraction;
    remaining -= fraction * width;
  }
  return mu;
}

/** Right derivative at μ of μ·rhs + Σ max(0, adj_i − μ a_i). */
export function rightSlope(
  a: Float64Array,
  ratio: Float64Array,
  n: number,
  rhs: number,
  mu: number,
) {
  let s = rhs;
  for (let i = 0; i < n; i++) {
    const ai = a[i]!;
    if (ai > 0) {
      if (ratio[i]! > mu) s -= ai;
    } else if (ai < 0) {
      if (ratio[i]! <= mu) s -= ai;
    }
  }
  return s;
}
