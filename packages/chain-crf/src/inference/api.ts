import { type ChainScores, ProblemValidationError, validateChainScores } from "@lagrange/core";
import { InferenceContext } from "./context.js";
import { forwardBackwardKernel } from "./forward-backward.js";
import { kBestKernel } from "./kbest.js";
import { scoreView } from "./score.js";
import { type ChainView, emptyView, setViewFromScores } from "./view.js";
import { viterbiKernel } from "./viterbi.js";

/** Options shared by the convenience functions over a core {@link ChainScores}. */
export interface ChainInferenceOptions {
  /** Added to the unary scores, n·L (a dual-decomposition multiplier term). */
  readonly adjustment?: Float64Array;
  /** Per position a label id to force, or −1 for a free position (forced decoding, partial labels). */
  readonly fixed?: ArrayLike<number>;
  /** Labels allowed at the first / last position (1 = allowed), L each. */
  readonly allowedStart?: Uint8Array;
  readonly allowedEnd?: Uint8Array;
  /** Scratch buffers to reuse across calls; a fresh one is made when absent. */
  readonly context?: InferenceContext;
}

export interface ViterbiResult {
  readonly labels: Int32Array;
  /** Score of `labels`; −∞ when no labelling is feasible. */
  readonly score: number;
}

export interface ForwardBackwardResult {
  /** log Σ_y exp(score(y)); −∞ when no labelling is feasible. */
  readonly logPartition: number;
  /** p(y_i = t) at [i*L + t]. */
  readonly marginals: Float64Array;
  /** p(y_{i-1} = a, y_i = b) at [(i-1)*L*L + a*L + b], when asked for. */
  readonly pairwise?: Float64Array;
}

export interface KBestResult {
  /** Labellings in non-increasing score order (fewer than k when fewer are feasible). */
  readonly labels: Int32Array[];
  readonly scores: number[];
}

/** Viterbi and k-best use no SIMD products: skip the WebAssembly memory. */
function viterbiContext(): InferenceContext {
  return new InferenceContext(64, 0, { simd: false });
}

function prepare(scores: ChainScores, options: ChainInferenceOptions): ChainView {
  validateChainScores(scores);
  const { n, L } = scores;
  const v = setViewFromScores(emptyView(), scores);
  if (options.adjustment !== undefined) {
    if (options.adjustment.length !== n * L) {
      throw new ProblemValidationError(
        "adjustment",
        `expected length n·L = ${n * L}, got ${options.adjustment.length}`,
      );
    }
    v.adjustment = options.adjustment;
  }
  if (options.fixed !== undefined) {
    const fixed = options.fixed;
    if (fixed.length !== n) {
      throw new ProblemValidationError("fixed", `expected ${n} entries, got ${fixed.length}`);
    }
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const y = fixed[i]!;
      if (!Number.isInteger(y) || y < -1 || y >= L) {
        throw new ProblemValidationError(
          `fixed[${i}]`,
          `expected −1 (free) or a label id in 0..${L - 1}, got ${y}`,
        );
      }
      out[i] = y;
    }
    v.fixed = out;
  }
  for (const key of ["allowedStart", "allowedEnd"] as const) {
    const mask = options[key];
    if (mask === undefined) continue;
    if (mask.length !== L) {
      throw new ProblemValidationError(key, `expected length L = ${L}, got ${mask.length}`);
    }
    v[key] = mask;
  }
  return v;
}

/** The best labelling (Viterbi), honouring masks, start/end, adjustment and fixed labels. */
export function viterbi(scores: ChainScores, options: ChainInferenceOptions = {}): ViterbiResult {
  const v = prepare(scores, options);
  const labels = new Int32Array(v.n);
  const score = viterbiKernel(options.context ?? viterbiContext(), v, labels);
  return { labels, score };
}

/** log Z, token marginals and optionally per-position pairwise marginals. */
export function forwardBackward(
  scores: ChainScores,
  options: ChainInferenceOptions & { readonly pairwise?: boolean } = {},
): ForwardBackwardResult {
  const v = prepare(scores, options);
  const ctx = options.context ?? new InferenceContext();
  const LL = v.L * v.L;
  const pairwise = options.pairwise === true ? new Float64Array((v.n - 1) * LL) : null;
  const logPartition = forwardBackwardKernel(ctx, v, false, pairwise);
  const marginals = ctx.marginals.slice(0, v.n * v.L);
  return pairwise === null ? { logPartition, marginals } : { logPartition, marginals, pairwise };
}

/** log Σ_y exp(score(y)). */
export function logPartition(scores: ChainScores, options: ChainInferenceOptions = {}): number {
  const v = prepare(scores, options);
  return forwardBackwardKernel(options.context ?? new InferenceContext(), v, false);
}

/** Token marginals p(y_i = t), n·L. */
export function tokenMarginals(
  scores: ChainScores,
  options: ChainInferenceOptions = {},
): Float64Array {
  return forwardBackward(scores, options).marginals;
}

/** log p(labels) = score(labels) − log Z; −∞ for an infeasible labelling. */
export function sequenceLogProbability(
  scores: ChainScores,
  labels: ArrayLike<number>,
  options: ChainInferenceOptions = {},
): number {
  const v = prepare(scores, options);
  if (labels.length !== v.n) {
    throw new ProblemValidationError("labels", `expected ${v.n} labels, got ${labels.length}`);
  }
  for (let i = 0; i < v.n; i++) {
    const y = labels[i]!;
    if (!Number.isInteger(y) || y < 0 || y >= v.L) {
      throw new ProblemValidationError(`labels[${i}]`, `expected a label id in 0..${v.L - 1}`);
    }
  }
  const s = scoreView(v, labels);
  if (s === Number.NEGATIVE_INFINITY) return s;
  return s - forwardBackwardKernel(options.context ?? new InferenceContext(), v, false);
}

/** The k best labellings, exactly (list Viterbi). */
export function kBest(
  scores: ChainScores,
  k: number,
  options: ChainInferenceOptions = {},
): KBestResult {
  if (!Number.isInteger(k) || k < 1) {
    throw new ProblemValidationError("k", `expected an integer ≥ 1, got ${k}`);
  }
  const v = prepare(scores, options);
  const flat = new Int32Array(k * v.n);
  const s = new Float64Array(k);
  const found = kBestKernel(options.context ?? viterbiContext(), v, k, flat, s);
  const labels: Int32Array[] = [];
  const out: number[] = [];
  for (let r = 0; r < found; r++) {
    labels.push(flat.slice(r * v.n, (r + 1) * v.n));
    out.push(s[r]!);
  }
  return { labels, scores: out };
}
