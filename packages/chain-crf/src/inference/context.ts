import { MaskCopy } from "./mask-copy.js";
import { instantiateSimd, type SimdKernels } from "./simd.js";

export interface InferenceContextOptions {
  /** Use the WebAssembly SIMD products when the runtime has them. Default true. */
  readonly simd?: boolean;
}

/**
 * Scratch buffers for the chain kernels, sized for a maximum length and label count and grown
 * (never shrunk) on demand. One context per thread; a kernel call allocates nothing once the
 * context is large enough. With SIMD, the forward-backward buffers are views on the context's own
 * WebAssembly memory, so the SIMD products read and write them in place.
 */
export class InferenceContext {
  capacity = 0;
  L = 0;
  /** Viterbi scores / forward messages (scaled), n·L. */
  delta: Float64Array = new Float64Array(0);
  back: Int32Array = new Int32Array(0);
  alpha: Float64Array = new Float64Array(0);
  beta: Float64Array = new Float64Array(0);
  /** Per-position scaling factors of the forward pass (1 / Σ_t alpha). */
  scale: Float64Array = new Float64Array(0);
  /** exp(unary − per-position max), n·L. */
  expUnary: Float64Array = new Float64Array(0);
  /** exp(transition − max), L·L or (n−1)·L·L when position-specific. */
  expTransition: Float64Array = new Float64Array(0);
  /** Transposed exp-transitions for the forward pass. */
  transposed: Float64Array = new Float64Array(0);
  /** The raw transition block behind expTransition (shared case), to skip recomputing it. */
  transitionCache: Float64Array = new Float64Array(0);
  transitionCacheValid = false;
  transitionCacheMask: Uint8Array = new Uint8Array(0);
  transitionCacheMasked = false;
  transitionCacheMax = 0;
  /**
   * Set by a caller that runs many chains under one shared transition block and mask (a training
   * pass): the cached exponentials are then reused without comparing the L² inputs per chain,
   * which at 131 labels cost more than the chain's own exponentials. Clear the cache
   * (transitionCacheValid = false) when setting it, and unset it afterwards.
   */
  transitionsFixed = false;
  /** expUnary·beta rows of the backward pass, n·L (for the pairwise sums). */
  next: Float64Array = new Float64Array(0);
  /** Token marginals p(y_i = t), n·L, valid after forward-backward. */
  marginals: Float64Array = new Float64Array(0);
  /** Σ_i p(y_{i-1} = a, y_i = b), L·L, valid after forward-backward with pairwise counts. */
  pairwise: Float64Array = new Float64Array(0);
  /** L-sized work rows. */
  work: Float64Array = new Float64Array(0);
  work2: Float64Array = new Float64Array(0);
  /** k-best lists: scores n·L·k and back-pointers (prev label · k + rank). */
  kDelta: Float64Array = new Float64Array(0);
  kBack: Int32Array = new Int32Array(0);
  kHeads: Int32Array = new Int32Array(0);
  kCapacity = 0;
  /**
   * Allowed predecessors per label, CSR style, of the transition mask last given to
   * {@link predecessors}: label b's are predLabels[predOffsets[b] … predOffsets[b+1]), ascending,
   * with predPairs = a·L + b.
   */
  predOffsets: Int32Array = new Int32Array(0);
  predLabels: Int32Array = new Int32Array(0);
  predPairs: Int32Array = new Int32Array(0);
  /** Labels in score order, L (the bounded Viterbi recursion). */
  order: Int32Array = new Int32Array(0);
  readonly #predMask = new MaskCopy();
  /** The SIMD kernels and the byte offsets of the shared buffers in their memory. */
  simd: SimdKernels | null = null;
  alphaPtr = 0;
  betaPtr = 0;
  expUnaryPtr = 0;
  nextPtr = 0;
  pairwisePtr = 0;
  expTransitionPtr = 0;
  transposedPtr = 0;
  scalePtr = 0;
  marginalsPtr = 0;
  /** Where the whole-chain SIMD kernels leave their one result (8 bytes). */
  statusPtr = 0;
  status: Float64Array = new Float64Array(1);
  readonly #wantSimd: boolean;
  #simdTried = false;

  constructor(capacity = 64, L = 0, options: InferenceContextOptions = {}) {
    this.#wantSimd = options.simd !== false;
    if (L > 0) this.ensure(capacity, L);
  }

  /** Whether the SIMD products are in use (after the first `ensure`). */
  get usesSimd(): boolean {
    return this.simd !== null;
  }

  /**
   * Lays out alpha, beta, expUnary, next, marginals, scale, pairwise and the transition blocks in
   * SIMD memory.
   */
  #layoutSimd(capacity: number, nl: number, LL: number, transitions: number): void {
    if (!this.#simdTried) {
      this.#simdTried = true;
      if (this.#wantSimd) this.simd = instantiateSimd(1);
    }
    let simd = this.simd;
    if (simd === null) return;
    const doubles = 5 * nl + capacity + 1 + LL + 2 * transitions;
    const bytes = doubles * 8;
    const have = simd.memory.buffer.byteLength;
    if (bytes > have) {
      // A fresh instance of the size needed (at least twice the old): memories are reserved at
      // their size, not grown (see instantiateKernel). The module compiled once already.
      const pages = Math.max(Math.ceil(bytes / 65536), (2 * have) / 65536);
      simd = this.simd = instantiateSimd(pages)!;
    }
    const buffer = simd.memory.buffer;
    let at = 0;
    const take = (length: number): [Float64Array, number] => {
      const view = new Float64Array(buffer, at, length);
      const ptr = at;
      at += length * 8;
      return [view, ptr];
    };
    [this.alpha, this.alphaPtr] = take(nl);
    [this.beta, this.betaPtr] = take(nl);
    [this.expUnary, this.expUnaryPtr] = take(nl);
    [this.next, this.nextPtr] = take(nl);
    [this.marginals, this.marginalsPtr] = take(nl);
    [this.scale, this.scalePtr] = take(capacity);
    [this.status, this.statusPtr] = take(1);
    [this.pairwise, this.pairwisePtr] = take(LL);
    [this.expTransition, this.expTransitionPtr] = take(transitions);
    [this.transposed, this.transposedPtr] = take(transitions);
    this.transitionCacheValid = false;
  }

  /** Makes room for sequences of length n over L labels. */
  ensure(n: number, L: number): void {
    if (n <= this.capacity && L === this.L) return;
    const cap = Math.max(n, L === this.L ? this.capacity * 2 : 0, 16);
    this.capacity = cap;
    this.L = L;
    const nl = cap * L;
    this.delta = new Float64Array(nl);
    this.back = new Int32Array(nl);
    this.alpha = new Float64Array(nl);
    this.beta = new Float64Array(nl);
    this.scale = new Float64Array(cap);
    this.expUnary = new Float64Array(nl);
    this.expTransition = new Float64Array(L * L);
    this.transposed = new Float64Array(L * L);
    this.transitionCache = new Float64Array(L * L);
    this.transitionCacheMask = new Uint8Array(L * L);
    this.transitionCacheValid = false;
    this.marginals = new Float64Array(nl);
    this.next = new Float64Array(nl);
    this.pairwise = new Float64Array(L * L);
    this.work = new Float64Array(L);
    this.work2 = new Float64Array(L);
    this.order = new Int32Array(L);
    this.kHeads = new Int32Array(L);
    this.kCapacity = 0;
    this.#layoutSimd(cap, nl, L * L, L * L);
  }

  /** Room for position-specific exponentiated transitions of an n-token chain. */
  ensureTransitions(n: number, L: number): void {
    const need = Math.max(1, n - 1) * L * L;
    if (this.expTransition.length < need) {
      this.expTransition = new Float64Array(need);
      this.transposed = new Float64Array(need);
      this.transitionCacheValid = false;
      this.#layoutSimd(this.capacity, this.capacity * L, L * L, need);
    }
  }

  /**
   * Builds (or reuses, when the mask's contents are unchanged) the predecessor lists of `allowed`;
   * returns the number of allowed pairs. Comparing L² bytes costs what one position of the dense
   * recursion costs, so a sentence pays it once and every position then walks only allowed pairs.
   */
  predecessors(allowed: Uint8Array, L: number): number {
    const LL = L * L;
    if (this.#predMask.matches(allowed, L)) return this.predOffsets[L]!;
    if (this.predOffsets.length < L + 1) this.predOffsets = new Int32Array(L + 1);
    let nnz = 0;
    for (let ab = 0; ab < LL; ab++) if (allowed[ab] !== 0) nnz++;
    if (this.predLabels.length < nnz) {
      this.predLabels = new Int32Array(nnz);
      this.predPairs = new Int32Array(nnz);
    }
    const offsets = this.predOffsets;
    let k = 0;
    for (let b = 0; b < L; b++) {
      offsets[b] = k;
      for (let a = 0; a < L; a++) {
        if (allowed[a * L + b] === 0) continue;
        this.predLabels[k] = a;
        this.predPairs[k] = a * L + b;
        k++;
      }
    }
    offsets[L] = k;
    this.#predMask.set(allowed, L);
    return k;
  }

  /** Room for k-best lists of length n, L labels, k entries each. */
  ensureKBest(n: number, L: number, k: number): void {
    this.ensure(n, L);
    const need = this.capacity * L * k;
    if (this.kDelta.length < need || this.kCapacity !== k) {
      this.kDelta = new Float64Array(need);
      this.kBack = new Int32Array(need);
      this.kCapacity = k;
    }
  }
}
