import type { ChainScores } from "@lagrange/core";

/**
 * The mutable, monomorphic argument block of every kernel. A caller that runs many instances
 * (the encoder, a slave) keeps one view and rewrites its fields, so a kernel call allocates
 * nothing. Arrays are read from a base offset, so model weights can serve as the transition,
 * start and end arrays without `subarray` copies or views.
 *
 * Score of y: start[y0] + Σ_i (unary[i*L+y_i] + adjustment[i*L+y_i]) + Σ_{i≥1} trans(i, y_{i-1}, y_i) + end[y_{n-1}]
 * with trans(i, a, b) = transition[transitionBase + (i-1)*transitionStride + a*L + b].
 * Forbidden: allowed[a*L+b] = 0, allowedStart[t] = 0, allowedEnd[t] = 0, and at a position i with
 * fixed[i] ≥ 0 every label other than fixed[i].
 */
export interface ChainView {
  n: number;
  L: number;
  unary: Float64Array;
  unaryBase: number;
  transition: Float64Array;
  transitionBase: number;
  /** 0 when one L×L block is shared by all positions, L·L for position-specific blocks. */
  transitionStride: number;
  start: Float64Array | null;
  startBase: number;
  end: Float64Array | null;
  endBase: number;
  allowed: Uint8Array | null;
  allowedStart: Uint8Array | null;
  allowedEnd: Uint8Array | null;
  /** Added to unary, indexed i*L+t from 0 (a dual-decomposition multiplier term). */
  adjustment: Float64Array | null;
  /** Per position a label id to force, or -1 for a free position (partial labels). */
  fixed: Int32Array | null;
  /** labelMask[i·L + t] = 0 forbids label t at position i (partial annotations with label sets). */
  labelMask: Uint8Array | null;
}

const EMPTY = new Float64Array(0);

export function emptyView(): ChainView {
  return {
    n: 0,
    L: 0,
    unary: EMPTY,
    unaryBase: 0,
    transition: EMPTY,
    transitionBase: 0,
    transitionStride: 0,
    start: null,
    startBase: 0,
    end: null,
    endBase: 0,
    allowed: null,
    allowedStart: null,
    allowedEnd: null,
    adjustment: null,
    fixed: null,
    labelMask: null,
  };
}

/** Points `view` at a core ChainScores (no copy). Clears adjustment and fixed labels. */
export function setViewFromScores(view: ChainView, scores: ChainScores): ChainView {
  const { n, L } = scores;
  view.n = n;
  view.L = L;
  view.unary = scores.unary;
  view.unaryBase = 0;
  view.transition = scores.transition;
  view.transitionBase = 0;
  view.transitionStride = scores.transition.length === L * L ? 0 : L * L;
  view.start = scores.start ?? null;
  view.startBase = 0;
  view.end = scores.end ?? null;
  view.endBase = 0;
  view.allowed = scores.allowed ?? null;
  view.allowedStart = null;
  view.allowedEnd = null;
  view.adjustment = null;
  view.fixed = null;
  view.labelMask = null;
  return view;
}
