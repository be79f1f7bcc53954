import type { HalfStepper } from "./half-stepper.js";
import { SimdStepper } from "./simd-stepper.js";

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
  #stepper: HalfStepper<BcrfWorkspace> | undefined;

  /** `simd: false` keeps the half-steps in JavaScript (default: WebAssembly SIMD when present). */
  constructor(options: { readonly simd?: boolean } = {}) {
    this.#simd = options.simd !== false;
  }

  /** The half-step kernel of this workspace: WebAssembly SIMD when present, else JavaScript. */
  stepper(): HalfStepper<BcrfWorkspace> {
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

/** The JavaScript kernel, cluster by cluster on the calling thread. */
export const JS_STEPPER: HalfStepper<BcrfWorkspace> = {
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
export function normaliseBlock(ws: BcrfWorkspace, j: number): void {
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
