import type { InferenceContext } from "./context.ts";
import { localScores } from "./local.ts";
import type { ChainView } from "./view.ts";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Best labelling of the chain into out[0..n). Returns its score, or −∞ when no labelling is
 * feasible (then `out` is filled with 0). Ties go to the lowest label id.
 */
export function viterbiKernel(ctx: InferenceContext, v: ChainView, out: Int32Array): number {
  const n = v.n;
  const L = v.L;
  ctx.ensure(n, L);
  const delta = ctx.delta;
  const back = ctx.back;
  const trans = v.transition;
  const allowed = v.allowed;
  localScores(v, 0, delta, 0);
  // Masked chains (BIO schemes, hierarchical labels) walk only the allowed pairs.
  if (allowed !== null && n > 1) {
    sparseRecursion(ctx, v, allowed);
    return backtrack(ctx, v, out);
  }
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    localScores(v, i, delta, cur);
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      for (let a = 0; a < L; a++) {
        const s = delta[prev + a]! + trans[tb + a * L + b]!;
        if (s > best) {
          best = s;
          arg = a;
        }
      }
      // A −∞ predecessor with a +∞-free score cannot win, so arg = −1 means unreachable.
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
  }
  return backtrack(ctx, v, out);
}

/**
 * The max-product recursion over allowed (prev, next) pairs only, from the context's CSR
 * predecessor lists: O(n · #allowed) instead of O(n · L²). Predecessors are visited in ascending
 * order with a strict comparison, so ties still go to the lowest label id.
 */
function sparseRecursion(ctx: InferenceContext, v: ChainView, allowed: Uint8Array): void {
  const n = v.n;
  const L = v.L;
  const delta = ctx.delta;
  const back = ctx.back;
  const trans = v.transition;
  const nnz = ctx.predecessors(allowed, L);
  const offsets = ctx.predOffsets;
  const preds = ctx.predLabels;
  const pairs = ctx.predPairs;
  const shared = v.transitionStride === 0;
  // A shared block is gathered once into predecessor order, so the inner loop reads contiguously.
  const scores = ctx.predScores;
  if (shared) for (let k = 0; k < nnz; k++) scores[k] = trans[v.transitionBase + pairs[k]!]!;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    localScores(v, i, delta, cur);
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      const kEnd = offsets[b + 1]!;
      if (shared) {
        for (let k = offsets[b]!; k < kEnd; k++) {
          const a = preds[k]!;
          const s = delta[prev + a]! + scores[k]!;
          if (s > best) {
            best = s;
            arg = a;
          }
        }
      } else {
        for (let k = offsets[b]!; k < kEnd; k++) {
          const a = preds[k]!;
          const s = delta[prev + a]! + trans[tb + pairs[k]!]!;
          if (s > best) {
            best = s;
            arg = a;
          }
        }
      }
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
  }
}

function backtrack(ctx: InferenceContext, v: ChainView, out: Int32Array): number {
  const n = v.n;
  const L = v.L;
  const delta = ctx.delta;
  const back = ctx.back;
  const last = (n - 1) * L;
  let best = NEG;
  let arg = -1;
  for (let t = 0; t < L; t++) {
    const s = delta[last + t]!;
    if (s > best) {
      best = s;
      arg = t;
    }
  }
  if (arg < 0) {
    out.fill(0, 0, n);
    return NEG;
  }
  out[n - 1] = arg;
  for (let i = n - 1; i > 0; i--) {
    arg = back[i * L + arg]!;
    out[i - 1] = arg;
  }
  return best;
}
