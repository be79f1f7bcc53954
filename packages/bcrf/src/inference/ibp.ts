/**
 * Bcrf inference (corro, Algorithm 1): the KL projection of exp(w/τ) onto the marginal polytope
 * of the chain, by iterative Bregman projections alternating between the odd and the even inner
 * position clusters. w is the (n−1)×L×L transition-score layout of the paper, with the model's
 * local scores folded into it: w[j, a, b] = trans(j+1, a, b) + local[j, a] (+ local[n−1, b] in the
 * last block). At convergence the result does not depend on that split of the local scores
 * (⟨q, w⟩ only sees node marginals, equal on both sides of a projected cluster).
 *
 * Why the iterate is kept factorised. Every projection of cluster c multiplies the columns of
 * block c−1 and the rows of block c by per-label factors (App. F: q̂ = q·e^{±σ}/Z), so each block
 * stays q_j = diag(x_j) · K_j · diag(y_j), where K_j = exp((trans_j − max)/τ) is the model's one
 * shared transition matrix (or the position's own block). A projection then needs two L×L
 * matrix–vector products and O(L) scalings — the work of one forward-backward step — instead of
 * rewriting 2·L² entries with an exp each; the n·L exps of the local scores are all the exps
 * there are. The per-block log shifts of the exps are irrelevant: a projection's output does not
 * depend on the scale of its two input blocks.
 *
 * −∞ is handled exactly before iterating: labels that lie on no feasible path (forward or
 * backward unreachable through allowed, finite arcs) get zero scalings, so every surviving node
 * has incoming and outgoing mass and no projection divides by zero (the notes' NaN case);
 * a chain with no feasible labelling is reported infeasible. Should a node's mass underflow in
 * floating point mid-run, the node is dropped (its mass is < 1e-300 of its neighbours'); should a
 * whole cluster underflow, the sequence is re-run by the log-domain kernel.
 *
 * One "iteration" is one half-step, as Algorithm 1 counts: iteration 1 projects the odd clusters
 * (positions 3, 5, … in the paper's 1-based numbering), iteration 2 the even ones (2, 4, …).
 */

import { type BcrfWorkspace, normaliseBlock } from "./bcrf-workspace.js";
import type { ChainInput } from "./chain-input.js";
import type { HalfStepper } from "./half-stepper.js";
import type { IbpOptions, IbpResult, IbpStatus } from "./ibp-types.js";
import { allProjected, logDomainIbp, reportHalfStep } from "./log-domain.js";

const NEG = Number.NEGATIVE_INFINITY;

export const BCRF_DEFAULT_ITERATIONS = 10;
/** The paper's decoding temperature (τ⁻¹ = 10, all experiments). */
export const BCRF_DECODING_TEMPERATURE = 0.1;

/**
 * Runs Bcrf inference on one sequence: `ws.marginals` receives the tag marginals of
 * ∇B_Y(w/τ) as approximated by `iterations` half-steps. Never produces NaN: an infeasible chain
 * (no labelling avoids −∞) returns status "infeasible" with all marginals 0.
 */
export function bcrfInference(
  input: ChainInput,
  options: IbpOptions,
  ws: BcrfWorkspace,
  stepper: HalfStepper<BcrfWorkspace> = ws.stepper(),
): IbpResult {
  const { n, L } = input;
  const tau = options.temperature ?? 1;
  if (!(tau > 0) || !Number.isFinite(tau)) {
    throw new RangeError(`temperature must be a finite number > 0, got ${tau}`);
  }
  const iterations = options.iterations ?? BCRF_DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 0) {
    throw new RangeError(`iterations must be an integer ≥ 0, got ${iterations}`);
  }
  const tolerance = options.tolerance ?? 0;
  const shared = input.transitionStride === 0;
  ws.ensure(n, L, shared ? 1 : Math.max(1, n - 1));
  ws.temperature = tau;
  ws.sharedKernel = shared;
  ws.factored = true;
  const forbiddenLabel = checkLocal(input);
  if (n > 1) prepareKernel(input, ws, tau);
  // Exact −∞ structure first: labels on no feasible path are dead, and a chain without one is
  // infeasible. Then the exps, shifted by the best live label of each position, so a dead label
  // holding a position's maximum cannot push its live neighbours below the float range.
  if (forbiddenLabel || (n > 1 && ws.kernelForbidden)) {
    if (!pruneExact(input, ws)) return infeasible(ws, n, L);
  } else {
    ws.reach.fill(1, 0, n * L);
    ws.coreach.fill(1, 0, n * L);
  }
  const underflow = prepareLocal(input, ws, tau);
  ws.hasZeros =
    forbiddenLabel || underflow || (n > 1 && (ws.kernelForbidden || ws.kernelUnderflow));
  if (n === 1) {
    normaliseRow(ws.expLocal, 0, L, ws.marginals, 0);
    return { status: "converged", iterations: 0, violation: 0 };
  }
  // A live label or pair whose exp underflowed carries < e^−745 of its position's (block's) best
  // mass and drops out — unless that leaves no path: then the log-domain kernel takes over.
  if ((underflow || ws.kernelUnderflow) && !prune(ws, n, L)) {
    return logDomainIbp(input, options, ws);
  }
  const { rowScale: x, colScale: y, projected } = ws;
  // x_j = exp(local_j), y_j = 1 but for the last block, which also carries the last position.
  const blocks = n - 1;
  for (let j = 0; j < blocks; j++) {
    const base = j * L;
    for (let t = 0; t < L; t++) {
      x[base + t] = ws.reach[base + t] === 0 ? 0 : ws.expLocal[base + t]!;
      y[base + t] = ws.coreach[base + L + t] === 0 ? 0 : 1;
    }
    projected[j] = 0;
  }
  const lastBase = (n - 2) * L;
  for (let t = 0; t < L; t++) y[lastBase + t]! *= ws.expLocal[(n - 1) * L + t]!;
  let status: IbpStatus = "iteration-limit";
  let violation = n === 2 ? 0 : Number.POSITIVE_INFINITY;
  let done = 0;
  if (n === 2) {
    // One block and no inner cluster: the polytope is the simplex, q = softmax(w/τ).
    normaliseBlock(ws, 0);
    projected[0] = 1;
    status = "converged";
  } else {
    stepper.begin?.(ws, n);
    for (let it = 1; it <= iterations; it++) {
      // Odd half-steps project 1-based clusters 3, 5, … = 0-based positions 2, 4, …
      const first = it % 2 === 1 ? 2 : 1;
      let measured = 0;
      // A half-step with no cluster of its parity measures nothing until every block was
      // produced by a projection (before that, blocks carry the raw scale of exp(w/τ)).
      let complete = allProjected(projected, blocks);
      const v = stepper.step(ws, first, n);
      // A whole cluster underflowed: redo the sequence exactly in the log domain, reporting only
      // the half-steps not reported yet.
      if (Number.isNaN(v)) return logDomainIbp(input, afterIteration(options, it - 1), ws);
      if (v < 0) complete = false;
      else measured = v;
      done = it;
      violation = reportHalfStep(options, it, complete, measured);
      if (tolerance > 0 && violation <= tolerance) {
        status = "converged";
        break;
      }
    }
    stepper.end?.(ws, n);
  }
  // Blocks no projection reached (fewer than two half-steps) are normalised on their own.
  for (let j = 0; j < blocks; j++) if (projected[j] === 0) normaliseBlock(ws, j);
  nodeMarginals(ws, n, L);
  return { status, iterations: done, violation };
}

/** `options` whose onIteration skips the first `reported` half-steps (already reported). */
function afterIteration(options: IbpOptions, reported: number): IbpOptions {
  const report = options.onIteration;
  if (report === undefined || reported === 0) return options;
  return { ...options, onIteration: (i, v) => (i > reported ? report(i, v) : undefined) };
}

/**
 * Throws on what the kernels cannot take (sizes, NaN or +∞ local scores); returns whether some
 * local score is −∞ (a forbidden label).
 */
function checkLocal(input: ChainInput): boolean {
  const { n, L, local, localBase } = input;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(L) || L < 1) {
    throw new RangeError(`expected integers n ≥ 1 and L ≥ 1, got n = ${n}, L = ${L}`);
  }
  if (local.length < localBase + n * L) {
    throw new RangeError(
      `local scores: expected ${n * L} entries from ${localBase}, got ${local.length - localBase}`,
    );
  }
  const needed =
    input.transitionBase +
    (input.transitionStride === 0 ? L * L : (n - 1) * input.transitionStride);
  if (n > 1 && input.transition.length < needed) {
    throw new RangeError(
      `transition scores: expected ${needed - input.transitionBase} entries from ${input.transitionBase}, got ${input.transition.length - input.transitionBase}`,
    );
  }
  let forbidden = false;
  for (let q = 0; q < n * L; q++) {
    const v = local[localBase + q]!;
    if (v === NEG) forbidden = true;
    else if (!(v < Number.POSITIVE_INFINITY)) {
      throw new RangeError(
        `local score at position ${Math.floor(q / L)}, label ${q % L} is ${v}; expected a finite number or −∞`,
      );
    }
  }
  return forbidden;
}

/**
 * exp((local − best live label)/τ) per position, 0 for dead labels (ws.reach after pruning);
 * returns whether some live label's exp underflowed to 0.
 */
function prepareLocal(input: ChainInput, ws: BcrfWorkspace, tau: number): boolean {
  const { n, L, local, localBase } = input;
  const e = ws.expLocal;
  const alive = ws.reach;
  let underflow = false;
  for (let i = 0; i < n; i++) {
    const row = i * L;
    let m = NEG;
    for (let t = 0; t < L; t++) {
      const v = local[localBase + row + t]!;
      if (v > m && alive[row + t] === 1) m = v;
    }
    for (let t = 0; t < L; t++) {
      if (alive[row + t] === 0) {
        e[row + t] = 0;
        continue;
      }
      const v = Math.exp((local[localBase + row + t]! - m) / tau);
      e[row + t] = v;
      if (v === 0) underflow = true;
    }
  }
  return underflow;
}

/**
 * Forward and backward reachability through finite local scores and allowed pairs: a label
 * lives when some feasible labelling uses it. False when none exists.
 */
function pruneExact(input: ChainInput, ws: BcrfWorkspace): boolean {
  const { n, L, local, localBase } = input;
  const { reach, coreach, logKernel: logK } = ws;
  const LL = L * L;
  const stride = ws.sharedKernel ? 0 : LL;
  for (let t = 0; t < L; t++) reach[t] = local[localBase + t]! > NEG ? 1 : 0;
  for (let i = 1; i < n; i++) {
    const kb = (i - 1) * stride;
    for (let b = 0; b < L; b++) {
      let ok = 0;
      if (local[localBase + i * L + b]! > NEG) {
        for (let a = 0; a < L; a++) {
          if (reach[(i - 1) * L + a] === 1 && logK[kb + a * L + b]! > NEG) {
            ok = 1;
            break;
          }
        }
      }
      reach[i * L + b] = ok;
    }
  }
  let any = false;
  for (let t = 0; t < L; t++) {
    coreach[(n - 1) * L + t] = reach[(n - 1) * L + t]!;
    if (reach[(n - 1) * L + t] === 1) any = true;
  }
  if (!any) return false;
  for (let i = n - 2; i >= 0; i--) {
    const kb = i * stride;
    for (let a = 0; a < L; a++) {
      let ok = 0;
      if (reach[i * L + a] === 1) {
        for (let b = 0; b < L; b++) {
          if (coreach[(i + 1) * L + b] === 1 && logK[kb + a * L + b]! > NEG) {
            ok = 1;
            break;
          }
        }
      }
      coreach[i * L + a] = ok;
    }
  }
  for (let q = 0; q < n * L; q++) if (coreach[q] === 0) reach[q] = 0;
  return true;
}

/**
 * K = exp((trans − max)/τ), 0 where forbidden; the shared block once (and again only when the
 * block, its mask or τ change), else one per position. Sets `kernelForbidden` (some pair is −∞
 * or masked) and `kernelUnderflow` (some allowed pair's exp is 0).
 */
function prepareKernel(input: ChainInput, ws: BcrfWorkspace, tau: number): void {
  const { n, L, transition, transitionBase, transitionStride, allowed } = input;
  const LL = L * L;
  const blocks = transitionStride === 0 ? 1 : n - 1;
  const K = ws.kernel;
  const logK = ws.logKernel;
  if (blocks === 1 && sameKernel(ws, input, tau)) return;
  let forbidden = false;
  let underflow = false;
  for (let j = 0; j < blocks; j++) {
    const src = transitionBase + j * transitionStride;
    const dst = j * LL;
    let m = NEG;
    for (let ab = 0; ab < LL; ab++) {
      const v = transition[src + ab]!;
      if (!(v < Number.POSITIVE_INFINITY) && v !== NEG) {
        throw new RangeError(
          `transition score ${Math.floor(ab / L)} → ${ab % L}${blocks > 1 ? ` at position ${j + 1}` : ""} is ${v}; expected a finite number or −∞`,
        );
      }
      if (v > m && (allowed === null || allowed[ab] !== 0)) m = v;
    }
    // A block with every pair forbidden: K = 0, found infeasible by the pruning.
    if (m === NEG) m = 0;
    for (let ab = 0; ab < LL; ab++) {
      const v = transition[src + ab]!;
      if (v === NEG || (allowed !== null && allowed[ab] === 0)) {
        K[dst + ab] = 0;
        logK[dst + ab] = NEG;
        forbidden = true;
      } else {
        const e = (v - m) / tau;
        logK[dst + ab] = e;
        K[dst + ab] = Math.exp(e);
        if (K[dst + ab] === 0) underflow = true;
      }
    }
  }
  ws.kernelForbidden = forbidden;
  ws.kernelUnderflow = underflow;
  if (blocks === 1) {
    if (ws.kernelSource.length < LL) {
      ws.kernelSource = new Float64Array(LL);
      ws.kernelMask = new Uint8Array(LL);
    }
    ws.kernelSource.set(transition.subarray(transitionBase, transitionBase + LL));
    ws.kernelMasked = allowed !== null;
    if (allowed !== null) ws.kernelMask.set(allowed.subarray(0, LL));
    ws.kernelTemperature = tau;
    ws.kernelL = L;
  } else {
    ws.kernelTemperature = 0;
  }
}

/** Whether the shared kernel in `ws` was computed from the same block, mask and τ (by content). */
function sameKernel(ws: BcrfWorkspace, input: ChainInput, tau: number): boolean {
  const LL = input.L * input.L;
  if (ws.kernelTemperature !== tau || ws.kernelL !== input.L) return false;
  const mask = input.allowed;
  if ((mask !== null) !== ws.kernelMasked) return false;
  if (mask !== null) {
    const kept = ws.kernelMask;
    for (let ab = 0; ab < LL; ab++) if ((mask[ab] === 0) !== (kept[ab] === 0)) return false;
  }
  const src = ws.kernelSource;
  const t = input.transition;
  const base = input.transitionBase;
  for (let ab = 0; ab < LL; ab++) if (src[ab] !== t[base + ab]) return false;
  return true;
}

/**
 * Forward and backward reachability of the nodes through arcs of positive kernel and local mass;
 * false when no labelling is feasible. A zero exp(local) (underflow far below the row max) counts
 * as forbidden too: such a label carries no mass the floating point could represent.
 */
function prune(ws: BcrfWorkspace, n: number, L: number): boolean {
  const { reach, coreach, expLocal: e, kernel: K } = ws;
  const LL = L * L;
  const stride = ws.sharedKernel ? 0 : LL;
  for (let t = 0; t < L; t++) reach[t] = e[t]! > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) {
    const kb = (i - 1) * stride;
    const prev = (i - 1) * L;
    const row = i * L;
    for (let b = 0; b < L; b++) {
      let ok = 0;
      if (e[row + b]! > 0) {
        for (let a = 0; a < L; a++) {
          if (reach[prev + a] === 1 && K[kb + a * L + b]! > 0) {
            ok = 1;
            break;
          }
        }
      }
      reach[row + b] = ok;
    }
  }
  const lastRow = (n - 1) * L;
  let any = false;
  for (let t = 0; t < L; t++) {
    coreach[lastRow + t] = reach[lastRow + t]!;
    if (reach[lastRow + t] === 1) any = true;
  }
  if (!any) return false;
  for (let i = n - 2; i >= 0; i--) {
    const kb = i * stride;
    const row = i * L;
    const next = row + L;
    for (let a = 0; a < L; a++) {
      let ok = 0;
      if (reach[row + a] === 1) {
        for (let b = 0; b < L; b++) {
          if (coreach[next + b] === 1 && K[kb + a * L + b]! > 0) {
            ok = 1;
            break;
          }
        }
      }
      coreach[row + a] = ok;
    }
  }
  // A node lives when it is on some feasible path.
  for (let q = 0; q < n * L; q++) if (coreach[q] === 0) reach[q] = 0;
  return true;
}

function normaliseRow(src: Float64Array, base: number, L: number, out: Float64Array, at: number) {
  let s = 0;
  for (let t = 0; t < L; t++) s += src[base + t]!;
  for (let t = 0; t < L; t++) out[at + t] = src[base + t]! / s;
}

/** μ_i(t) = Σ_u q_i[t, u] for i < n−1, μ_{n−1}(t) = Σ_s q_{n−2}[s, t] (the paper's rule). */
function nodeMarginals(ws: BcrfWorkspace, n: number, L: number): void {
  const { kernel: K, rowScale: x, colScale: y, marginals: mu } = ws;
  const LL = L * L;
  for (let i = 0; i < n - 1; i++) {
    const kb = ws.sharedKernel ? 0 : i * LL;
    for (let t = 0; t < L; t++) {
      const xt = x[i * L + t]!;
      let s = 0;
      if (xt !== 0) {
        const row = kb + t * L;
        for (let u = 0; u < L; u++) s += K[row + u]! * y[i * L + u]!;
      }
      mu[i * L + t] = xt * s;
    }
  }
  const last = n - 2;
  const kb = ws.sharedKernel ? 0 : last * LL;
  const row = (n - 1) * L;
  for (let t = 0; t < L; t++) mu[row + t] = 0;
  for (let s = 0; s < L; s++) {
    const xs = x[last * L + s]!;
    if (xs === 0) continue;
    for (let t = 0; t < L; t++) mu[row + t]! += xs * K[kb + s * L + t]!;
  }
  for (let t = 0; t < L; t++) mu[row + t]! *= y[last * L + t]!;
}

function infeasible(ws: BcrfWorkspace, n: number, L: number): IbpResult {
  ws.marginals.fill(0, 0, n * L);
  ws.factored = true;
  ws.rowScale.fill(0, 0, Math.max(1, n - 1) * L);
  ws.colScale.fill(0, 0, Math.max(1, n - 1) * L);
  return { status: "infeasible", iterations: 0, violation: Number.POSITIVE_INFINITY };
}
