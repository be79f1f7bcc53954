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
import type { ChainInput } from "./chain-input.js";
import { allProjected, logDomainIbp, reportHalfStep } from "./log-domain.js";
import { SimdStepper } from "./simd-stepper.js";

const NEG = Number.NEGATIVE_INFINITY;

export interface IbpOptions {
  /** Half-steps (Algorithm 1's iterations k); the cap when a tolerance is given. Default 10. */
  readonly iterations?: number;
  /**
   * Stop early once the iterate entering a half-step violates none of the marginal constraints
   * (Σ_in = 1 at a cluster, in = out at a node) by more than this. Default 0: run all iterations.
   */
  readonly tolerance?: number;
  /** τ: the projection of exp(w/τ); 1 for training, 0.1 (τ⁻¹ = 10, the paper's) for decoding. */
  readonly temperature?: number;
  /**
   * Called after every half-step with its number and the largest constraint violation of the
   * iterate it started from (+∞ until both sides of every cluster were projected once).
   */
  readonly onIteration?: (iteration: number, violation: number) => void;
}

export type IbpStatus = "converged" | "iteration-limit" | "infeasible";

export interface IbpResult {
  readonly status: IbpStatus;
  /** Half-steps run. */
  readonly iterations: number;
  /** Largest constraint violation last measured (+∞ when never measured, 0 for n ≤ 2). */
  readonly violation: number;
}

export const BCRF_DEFAULT_ITERATIONS = 10;
/** The paper's decoding temperature (τ⁻¹ = 10, all experiments). */
export const BCRF_DECODING_TEMPERATURE = 0.1;

/**
 * Scratch and results of one Bcrf inference, grown on demand (one per thread). After
 * {@link bcrfInference}: `marginals[i·L + t]` the tag marginals (from the outgoing transition
 * block, the incoming one at the last position, as the paper's decoding rule reads them), and
 * the iterate's factors, from which {@link materializeBlock} gives any block q_j.
 */
export class BcrfWorkspace {
  n = 0;
  L = 0;
  temperature = 1;
  /** Whether K is one shared L×L block (else (n−1)·L·L, one per position). */
  sharedKernel = true;
  /** exp((trans − max)/τ): L·L shared or (n−1)·L·L; entries of forbidden pairs are 0. */
  kernel: Float64Array = new Float64Array(0);
  /** Log of the kernel entries (−∞ for 0), for the value and the log-domain fallback. */
  logKernel: Float64Array = new Float64Array(0);
  /** Row factors x_j (n−1)·L and column factors y_j (n−1)·L of the blocks. */
  rowScale: Float64Array = new Float64Array(0);
  colScale: Float64Array = new Float64Array(0);
  /** 1 once a projection produced the block (its scale is then meaningful). */
  projected: Uint8Array = new Uint8Array(0);
  /** Tag marginals, n·L. */
  marginals: Float64Array = new Float64Array(0);
  /** Folded scores w (n−1)·L·L (−∞ for dead arcs), filled by the log-domain fallback and `value`. */
  folded: Float64Array = new Float64Array(0);
  /** Whether the factors are valid (false after the log-domain kernel: then `logQ` holds q). */
  factored = true;
  /** log q, (n−1)·L·L, written by the log-domain kernel. */
  logQ: Float64Array = new Float64Array(0);
  /** Per-position local scores / τ minus their row max, then their exps (n·L). */
  expLocal: Float64Array = new Float64Array(0);
  /** Whether some label or pair carries no mass (forbidden, dead, or underflowed). */
  hasZeros = false;
  /** Whether some pair of the kernel is forbidden / whether some allowed pair's exp is 0. */
  kernelForbidden = false;
  kernelUnderflow = false;
  /** The transition block and τ the shared kernel was last computed from (decoding reuses it). */
  kernelSource: Float64Array = new Float64Array(0);
  kernelTemperature = 0;
  kernelMask: Uint8Array = new Uint8Array(0);
  kernelMasked = false;
  kernelL = 0;
  /** Node reachability from the start / to the end (n·L). */
  reach: Uint8Array = new Uint8Array(0);
  coreach: Uint8Array = new Uint8Array(0);
  /** L-sized rows. */
  left: Float64Array = new Float64Array(0);
  right: Float64Array = new Float64Array(0);
  work: Float64Array = new Float64Array(0);
  #capacity = 0;
  #capacityL = 0;
  #kernelCapacity = 0;
  readonly #simd: boolean;
  #stepper: HalfStepper | undefined;

  /** `simd: false` keeps the half-steps in JavaScript (default: WebAssembly SIMD when present). */
  constructor(options: { readonly simd?: boolean } = {}) {
    this.#simd = options.simd !== false;
  }

  /** The half-step kernel of this workspace: WebAssembly SIMD when present, else JavaScript. */
  stepper(): HalfStepper {
    this.#stepper ??= (this.#simd ? SimdStepper.create() : null) ?? JS_STEPPER;
    return this.#stepper;
  }

  ensure(n: number, L: number, kernelBlocks: number): void {
    if (n > this.#capacity || L > this.#capacityL) {
      const cap = Math.max(n, this.#capacity, 8);
      const capL = Math.max(L, this.#capacityL);
      this.#capacity = cap;
      this.#capacityL = capL;
      const nodes = cap * capL;
      this.rowScale = new Float64Array(nodes);
      this.colScale = new Float64Array(nodes);
      this.projected = new Uint8Array(cap);
      this.marginals = new Float64Array(nodes);
      this.expLocal = new Float64Array(nodes);
      this.reach = new Uint8Array(nodes);
      this.coreach = new Uint8Array(nodes);
      this.left = new Float64Array(capL);
      this.right = new Float64Array(capL);
      this.work = new Float64Array(capL);
      this.folded = new Float64Array(0);
      this.logQ = new Float64Array(0);
    }
    const kernelSize = kernelBlocks * L * L;
    if (kernelSize > this.#kernelCapacity) {
      this.#kernelCapacity = Math.max(kernelSize, 2 * this.#kernelCapacity);
      this.kernel = new Float64Array(this.#kernelCapacity);
      this.logKernel = new Float64Array(this.#kernelCapacity);
      this.kernelTemperature = 0;
    }
    this.n = n;
    this.L = L;
  }

  /** Room for (n−1)·L·L dense entries in `folded` and `logQ`. */
  ensureDense(n: number, L: number): void {
    const need = Math.max(1, n - 1) * L * L;
    if (this.folded.length < need) {
      const size = Math.max(need, Math.max(1, this.#capacity - 1) * this.#capacityL ** 2);
      this.folded = new Float64Array(size);
      this.logQ = new Float64Array(size);
    }
  }
}

/**
 * Runs Bcrf inference on one sequence: `ws.marginals` receives the tag marginals of
 * ∇B_Y(w/τ) as approximated by `iterations` half-steps. Never produces NaN: an infeasible chain
 * (no labelling avoids −∞) returns status "infeasible" with all marginals 0.
 */
export function bcrfInference(
  input: ChainInput,
  options: IbpOptions,
  ws: BcrfWorkspace,
  stepper: HalfStepper = ws.stepper(),
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

/**
 * One half-step: projects every cluster of the parity whose first (0-based) position is `first`
 * (1 or 2) on a chain of n positions. Returns the largest violation measured before the
 * projections, −1 when some cluster's blocks had never been projected, NaN when a cluster
 * underflowed. The clusters of one half-step touch disjoint blocks, so they may run in any order
 * or on several threads (see the parallel kernel).
 */
export interface HalfStepper {
  /** Before the first half-step of a sequence (after the factors are initialised). */
  begin?(ws: BcrfWorkspace, n: number): void;
  step(ws: BcrfWorkspace, first: number, n: number): number;
  /** After the last half-step: the factors must be back in `ws`. */
  end?(ws: BcrfWorkspace, n: number): void;
}

/** The JavaScript kernel, cluster by cluster on the calling thread. */
export const JS_STEPPER: HalfStepper = {
  step: (ws, first, n) => projectClusterRange(ws, first, 0, clusterCount(first, n)),
};

/** Number of clusters of a half-step: positions first, first + 2, … ≤ n − 2. */
export function clusterCount(first: number, n: number): number {
  return n - 2 >= first ? ((n - 2 - first) >> 1) + 1 : 0;
}

/** Projects clusters [from, to) (in the half-step's order) of the half-step starting at `first`. */
export function projectClusterRange(
  ws: BcrfWorkspace,
  first: number,
  from: number,
  to: number,
): number {
  let measured = 0;
  let complete = true;
  for (let c = from; c < to; c++) {
    const v = projectCluster(ws, first + 2 * c);
    if (Number.isNaN(v)) return Number.NaN;
    if (v < 0) complete = false;
    else if (v > measured) measured = v;
  }
  return complete ? measured : -1;
}

/**
 * Projects cluster p (0-based inner position, 1 ≤ p ≤ n−2): rescales column t of block p−1 and
 * row t of block p so both carry √(a_t·b_t)/Z, Z = Σ_t √(a_t·b_t). Returns the largest
 * violation of the cluster's constraints before the projection (−1 when a block had never been
 * projected, so its scale means nothing), or NaN when the whole cluster underflowed.
 */
function projectCluster(ws: BcrfWorkspace, p: number): number {
  const L = ws.L;
  const LL = L * L;
  const { kernel: K, rowScale: x, colScale: y, left: a, right: b } = ws;
  const inBlock = p - 1;
  const inK = ws.sharedKernel ? 0 : inBlock * LL;
  const outK = ws.sharedKernel ? 0 : p * LL;
  const xi = inBlock * L; // row factors of block p−1
  const yi = inBlock * L; // column factors of block p−1
  const xo = p * L;
  const yo = p * L;
  // a[t] = y_{p−1}[t] · Σ_s x_{p−1}[s] K[s, t]: the incoming mass of node t.
  for (let t = 0; t < L; t++) a[t] = 0;
  for (let s = 0; s < L; s++) {
    const xs = x[xi + s]!;
    if (xs === 0) continue;
    const row = inK + s * L;
    for (let t = 0; t < L; t++) a[t]! += xs * K[row + t]!;
  }
  // b[t] = x_p[t] · Σ_u K[t, u] y_p[u]: the outgoing mass.
  let inTotal = 0;
  let z = 0;
  for (let t = 0; t < L; t++) {
    const at = a[t]! * y[yi + t]!;
    a[t] = at;
    inTotal += at;
    let bt = 0;
    const xt = x[xo + t]!;
    if (xt !== 0) {
      const row = outK + t * L;
      for (let u = 0; u < L; u++) bt += K[row + u]! * y[yo + u]!;
      bt *= xt;
    }
    b[t] = bt;
    if (at > 0 && bt > 0 && at < Number.POSITIVE_INFINITY && bt < Number.POSITIVE_INFINITY) {
      z += Math.sqrt(at) * Math.sqrt(bt);
    }
  }
  if (!(z > 0) || z === Number.POSITIVE_INFINITY) return Number.NaN;
  let violation = -1;
  if (ws.projected[inBlock] === 1 && ws.projected[p] === 1) {
    violation = Math.abs(inTotal - 1);
    for (let t = 0; t < L; t++) {
      const d = Math.abs(a[t]! - b[t]!);
      if (d > violation) violation = d;
    }
  }
  const invZ = 1 / z;
  for (let t = 0; t < L; t++) {
    const at = a[t]!;
    const bt = b[t]!;
    if (at > 0 && bt > 0 && at < Number.POSITIVE_INFINITY && bt < Number.POSITIVE_INFINITY) {
      const r = Math.sqrt(bt / at);
      y[yi + t]! *= r * invZ;
      x[xo + t]! *= invZ / r;
    } else {
      // Mass on one side only (underflow): the node carries nothing representable.
      y[yi + t] = 0;
      x[xo + t] = 0;
    }
  }
  ws.projected[inBlock] = 1;
  ws.projected[p] = 1;
  return violation;
}

/** Scales block j's row factors so the block sums to 1. */
function normaliseBlock(ws: BcrfWorkspace, j: number): void {
  const L = ws.L;
  const K = ws.kernel;
  const kb = ws.sharedKernel ? 0 : j * L * L;
  const x = ws.rowScale;
  const y = ws.colScale;
  let total = 0;
  for (let a = 0; a < L; a++) {
    const xa = x[j * L + a]!;
    if (xa === 0) continue;
    let s = 0;
    for (let b = 0; b < L; b++) s += K[kb + a * L + b]! * y[j * L + b]!;
    total += xa * s;
  }
  const inv = total > 0 ? 1 / total : 0;
  for (let a = 0; a < L; a++) x[j * L + a]! *= inv;
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

/**
 * Writes block j of the iterate, q_j[a·L + b] (probabilities), into out[at …]. Valid after a
 * feasible {@link bcrfInference} on n ≥ 2.
 */
export function materializeBlock(
  ws: BcrfWorkspace,
  j: number,
  out: Float64Array,
  at: number,
): void {
  const L = ws.L;
  const LL = L * L;
  if (!ws.factored) {
    for (let ab = 0; ab < LL; ab++) out[at + ab] = Math.exp(ws.logQ[j * LL + ab]!);
    return;
  }
  const K = ws.kernel;
  const kb = ws.sharedKernel ? 0 : j * LL;
  const x = ws.rowScale;
  const y = ws.colScale;
  for (let a = 0; a < L; a++) {
    const xa = x[j * L + a]!;
    for (let b = 0; b < L; b++) out[at + a * L + b] = xa * K[kb + a * L + b]! * y[j * L + b]!;
  }
}
