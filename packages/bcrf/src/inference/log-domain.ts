/**
 * The same iterative Bregman projections on the dense (n−1)×L×L log-iterate, in the numerically
 * stable form of the notes (§2.4, §9.2–9.3): every entry of the two blocks a cluster touches is
 * rewritten with log-sum-exps. About L× slower than the factorised kernel, it cannot underflow:
 * the factorised kernel hands a sequence over to it when a whole cluster's mass underflows, and
 * the tests use it as an independent reference.
 */

import type { BcrfWorkspace } from "./bcrf-workspace.js";
import type { ChainInput } from "./chain-input.js";
import type { IbpOptions, IbpResult, IbpStatus } from "./ibp-types.js";

const NEG = Number.NEGATIVE_INFINITY;

export function logDomainIbp(input: ChainInput, options: IbpOptions, ws: BcrfWorkspace): IbpResult {
  const { n, L } = input;
  const tau = options.temperature ?? 1;
  const iterations = options.iterations ?? 10;
  const tolerance = options.tolerance ?? 0;
  const LL = L * L;
  ws.ensure(n, L, 1);
  ws.ensureDense(n, L);
  ws.factored = false;
  ws.temperature = tau;
  const mu = ws.marginals;
  if (n === 1) {
    let m = NEG;
    for (let t = 0; t < L; t++) m = Math.max(m, input.local[input.localBase + t]! / tau);
    if (m === NEG) return fail(ws, n, L);
    let s = 0;
    for (let t = 0; t < L; t++) s += Math.exp(input.local[input.localBase + t]! / tau - m);
    for (let t = 0; t < L; t++) mu[t] = Math.exp(input.local[input.localBase + t]! / tau - m) / s;
    return { status: "converged", iterations: 0, violation: 0 };
  }
  const w = ws.folded;
  foldScores(input, w);
  if (!pruneDense(w, n, L, ws.reach, ws.coreach)) return fail(ws, n, L);
  const lq = ws.logQ;
  const blocks = n - 1;
  for (let q = 0; q < blocks * LL; q++) lq[q] = w[q]! / tau;
  const projected = ws.projected;
  projected.fill(0, 0, blocks);
  let status: IbpStatus = "iteration-limit";
  let violation = n === 2 ? 0 : Number.POSITIVE_INFINITY;
  let done = 0;
  if (n === 2) {
    normaliseLogBlock(lq, 0, LL);
    projected[0] = 1;
    status = "converged";
  } else {
    for (let it = 1; it <= iterations; it++) {
      const first = it % 2 === 1 ? 2 : 1;
      let measured = 0;
      // A half-step with no cluster of its parity measures nothing until every block was
      // produced by a projection (before that, blocks carry the raw scale of exp(w/τ)).
      let complete = allProjected(projected, blocks);
      for (let p = first; p <= n - 2; p += 2) {
        const v = projectLogCluster(lq, p, L, ws);
        if (v < 0) complete = false;
        else if (v > measured) measured = v;
      }
      done = it;
      violation = reportHalfStep(options, it, complete, measured);
      if (tolerance > 0 && violation <= tolerance) {
        status = "converged";
        break;
      }
    }
  }
  for (let j = 0; j < blocks; j++) if (projected[j] === 0) normaliseLogBlock(lq, j * LL, LL);
  for (let i = 0; i < n - 1; i++) {
    for (let t = 0; t < L; t++) {
      let s = 0;
      for (let u = 0; u < L; u++) s += Math.exp(lq[i * LL + t * L + u]!);
      mu[i * L + t] = s;
    }
  }
  const last = (n - 2) * LL;
  for (let t = 0; t < L; t++) {
    let s = 0;
    for (let a = 0; a < L; a++) s += Math.exp(lq[last + a * L + t]!);
    mu[(n - 1) * L + t] = s;
  }
  return { status, iterations: done, violation };
}

/**
 * w[j, a, b] = trans(j+1, a, b) + local[j, a] (+ local[n−1, b] when j = n−2); −∞ for forbidden
 * pairs. Dense (n−1)·L·L from 0.
 */
export function foldScores(input: ChainInput, w: Float64Array): void {
  const { n, L, local, localBase, transition, transitionBase, transitionStride, allowed } = input;
  const LL = L * L;
  for (let j = 0; j < n - 1; j++) {
    const tb = transitionBase + j * transitionStride;
    const lastBlock = j === n - 2;
    for (let a = 0; a < L; a++) {
      const la = local[localBase + j * L + a]!;
      for (let b = 0; b < L; b++) {
        let v = transition[tb + a * L + b]! + la;
        if (lastBlock) v += local[localBase + (n - 1) * L + b]!;
        if (allowed !== null && allowed[a * L + b] === 0) v = NEG;
        w[j * LL + a * L + b] = v;
      }
    }
  }
}

/** Sets arcs on no feasible path to −∞; false when no labelling is feasible. */
function pruneDense(
  w: Float64Array,
  n: number,
  L: number,
  reach: Uint8Array,
  coreach: Uint8Array,
): boolean {
  const LL = L * L;
  for (let t = 0; t < L; t++) reach[t] = 1;
  for (let i = 1; i < n; i++) {
    for (let b = 0; b < L; b++) {
      let ok = 0;
      for (let a = 0; a < L && ok === 0; a++) {
        if (reach[(i - 1) * L + a] === 1 && w[(i - 1) * LL + a * L + b]! > NEG) ok = 1;
      }
      reach[i * L + b] = ok;
    }
  }
  for (let t = 0; t < L; t++) coreach[(n - 1) * L + t] = reach[(n - 1) * L + t]!;
  for (let i = n - 2; i >= 0; i--) {
    for (let a = 0; a < L; a++) {
      let ok = 0;
      for (let b = 0; b < L && ok === 0; b++) {
        if (coreach[(i + 1) * L + b] === 1 && w[i * LL + a * L + b]! > NEG) ok = 1;
      }
      coreach[i * L + a] = ok && reach[i * L + a] === 1 ? 1 : 0;
    }
  }
  let any = false;
  for (let j = 0; j < n - 1; j++) {
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const q = j * LL + a * L + b;
        if (coreach[j * L + a] === 0 || coreach[(j + 1) * L + b] === 0) w[q] = NEG;
        else if (w[q]! > NEG && j === 0) any = true;
      }
    }
  }
  return any;
}

/** The notes' stable projection of cluster p; the violation before it (−1: never projected). */
function projectLogCluster(lq: Float64Array, p: number, L: number, ws: BcrfWorkspace): number {
  const LL = L * L;
  const inB = (p - 1) * LL;
  const outB = p * LL;
  const a = ws.left;
  const b = ws.right;
  const mt = ws.work;
  for (let t = 0; t < L; t++) {
    let m = NEG;
    for (let s = 0; s < L; s++) m = Math.max(m, lq[inB + s * L + t]!);
    let sum = 0;
    if (m > NEG) for (let s = 0; s < L; s++) sum += Math.exp(lq[inB + s * L + t]! - m);
    a[t] = m === NEG ? NEG : m + Math.log(sum);
    m = NEG;
    for (let u = 0; u < L; u++) m = Math.max(m, lq[outB + t * L + u]!);
    sum = 0;
    if (m > NEG) for (let u = 0; u < L; u++) sum += Math.exp(lq[outB + t * L + u]! - m);
    b[t] = m === NEG ? NEG : m + Math.log(sum);
  }
  let violation = -1;
  if (ws.projected[p - 1] === 1 && ws.projected[p] === 1) {
    let total = 0;
    violation = 0;
    for (let t = 0; t < L; t++) {
      const ea = Math.exp(a[t]!);
      total += ea;
      violation = Math.max(violation, Math.abs(ea - Math.exp(b[t]!)));
    }
    violation = Math.max(violation, Math.abs(total - 1));
  }
  // logZ = logsumexp_t (a_t + b_t)/2 over live nodes; a dead side kills the node (notes §9.3).
  let m = NEG;
  for (let t = 0; t < L; t++) {
    mt[t] = a[t] === NEG || b[t] === NEG ? NEG : (a[t]! + b[t]!) / 2;
    m = Math.max(m, mt[t]!);
  }
  let sum = 0;
  if (m > NEG) for (let t = 0; t < L; t++) sum += Math.exp(mt[t]! - m);
  const logZ = m + Math.log(sum);
  for (let t = 0; t < L; t++) {
    const dead = mt[t] === NEG;
    const target = dead ? 0 : mt[t]! - logZ;
    for (let s = 0; s < L; s++) {
      const q = inB + s * L + t;
      lq[q] = dead || lq[q] === NEG ? NEG : lq[q]! - a[t]! + target;
    }
    for (let u = 0; u < L; u++) {
      const q = outB + t * L + u;
      lq[q] = dead || lq[q] === NEG ? NEG : lq[q]! - b[t]! + target;
    }
  }
  ws.projected[p - 1] = 1;
  ws.projected[p] = 1;
  return violation;
}

function normaliseLogBlock(lq: Float64Array, base: number, size: number): void {
  let m = NEG;
  for (let q = 0; q < size; q++) m = Math.max(m, lq[base + q]!);
  if (m === NEG) return;
  let s = 0;
  for (let q = 0; q < size; q++) s += Math.exp(lq[base + q]! - m);
  const shift = m + Math.log(s);
  for (let q = 0; q < size; q++) lq[base + q]! -= shift;
}

function fail(ws: BcrfWorkspace, n: number, L: number): IbpResult {
  ws.marginals.fill(0, 0, n * L);
  ws.logQ.fill(NEG, 0, Math.max(1, n - 1) * L * L);
  return { status: "infeasible", iterations: 0, violation: Number.POSITIVE_INFINITY };
}

/** Whether every block came from a projection (none still carries the raw scale of exp(w/τ)). */
export function allProjected(projected: Uint8Array, blocks: number): boolean {
  for (let j = 0; j < blocks; j++) if (projected[j] === 0) return false;
  return true;
}

/**
 * Half-step `it`'s violation, reported to `onIteration`: the largest one measured when the
 * half-step's blocks were all projected (`complete`), else +∞. Both kernels stop on it.
 */
export function reportHalfStep(
  options: IbpOptions,
  it: number,
  complete: boolean,
  measured: number,
): number {
  const violation = complete ? measured : Number.POSITIVE_INFINITY;
  options.onIteration?.(it, violation);
  return violation;
}
