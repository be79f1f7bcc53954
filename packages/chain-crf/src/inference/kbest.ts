import type { InferenceContext } from "./context.js";
import { localScores } from "./local.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Exact k best labellings by list Viterbi: every (position, label) keeps its k best prefix scores
 * in descending order with back-pointers (previous label, rank), merged from the L predecessor
 * lists by a k-step L-way merge. O(n·L²·k) time, n·L·k memory in the context.
 *
 * Writes labelling r to outLabels[r*n .. r*n+n) and its score to outScores[r]; returns how many
 * feasible labellings were found (≤ k). Distinct back-pointer paths are distinct labellings, so
 * the list has no duplicates; equal scores come in an unspecified but deterministic order.
 */
export function kBestKernel(
  ctx: InferenceContext,
  v: ChainView,
  k: number,
  outLabels: Int32Array,
  outScores: Float64Array,
): number {
  const { n, L, transition: trans, allowed } = v;
  ctx.ensureKBest(n, L, k);
  const { kDelta: kd, kBack: kb, kHeads: heads, work: local } = ctx;
  const Lk = L * k;

  localScores(v, 0, local, 0);
  for (let t = 0; t < L; t++) {
    const base = t * k;
    kd[base] = local[t]!;
    kb[base] = -1;
    for (let r = 1; r < k; r++) {
      kd[base + r] = NEG;
      kb[base + r] = -1;
    }
  }
  for (let i = 1; i < n; i++) {
    localScores(v, i, local, 0);
    const prev = (i - 1) * Lk;
    const cur = i * Lk;
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    for (let b = 0; b < L; b++) {
      const base = cur + b * k;
      const u = local[b]!;
      heads.fill(0);
      let r = 0;
      if (u !== NEG) {
        for (; r < k; r++) {
          let best = NEG;
          let arg = -1;
          for (let a = 0; a < L; a++) {
            const h = heads[a]!;
            if (h >= k) continue;
            if (allowed !== null && allowed[a * L + b] === 0) continue;
            const s = kd[prev + a * k + h]! + trans[tb + a * L + b]!;
            if (s > best) {
              best = s;
              arg = a;
            }
          }
          if (arg < 0) break;
          kd[base + r] = best + u;
          kb[base + r] = arg * k + heads[arg]!;
          heads[arg]!++;
        }
      }
      for (; r < k; r++) {
        kd[base + r] = NEG;
        kb[base + r] = -1;
      }
    }
  }
  // Final merge over the last position's lists.
  const last = (n - 1) * Lk;
  heads.fill(0);
  let found = 0;
  for (; found < k; found++) {
    let best = NEG;
    let arg = -1;
    for (let t = 0; t < L; t++) {
      const h = heads[t]!;
      if (h >= k) continue;
      const s = kd[last + t * k + h]!;
      if (s > best) {
        best = s;
        arg = t;
      }
    }
    if (arg < 0) break;
    outScores[found] = best;
    let label = arg;
    let rank = heads[arg]!;
    heads[arg]!++;
    const ob = found * n;
    for (let i = n - 1; i >= 0; i--) {
      outLabels[ob + i] = label;
      if (i === 0) break;
      const p = kb[i * Lk + label * k + rank]!;
      label = (p / k) | 0;
      rank = p - label * k;
    }
  }
  return found;
}
