import type { InferenceContext } from "./context.js";
import { localScores } from "./local.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Best labelling of the chain into out[0..n). Returns its score, or −∞ when no labelling is
 * feasible (then `out` is filled with 0). Ties go to the lowest label id.
 */
export function viterbiKernel(ctx: InferenceContext, v: ChainView, out: Int32Array): number {
  ctx.ensure(v.n, v.L);
  localScores(v, 0, ctx.delta, 0);
  if (v.n > 1) {
    if (v.transitionStride === 0) boundedRecursion(ctx, v, v.allowed);
    else scanRecursion(ctx, v, v.allowed);
  }
  return backtrack(ctx, v, out);
}

/**
 * The max-product recursion for position-specific transitions: every predecessor, or with a mask
 * only the allowed ones (the context's CSR predecessor lists: O(n · #allowed) instead of
 * O(n · L²)). Predecessors are visited in ascending order with a strict comparison, so ties go to
 * the lowest label id; a −∞ predecessor cannot win, so arg = −1 means unreachable.
 */
function scanRecursion(ctx: InferenceContext, v: ChainView, allowed: Uint8Array | null): void {
  const { n, L, transition } = v;
  const { delta, back } = ctx;
  if (allowed !== null) ctx.predecessors(allowed, L);
  const { predOffsets: offsets, predLabels: preds, predPairs: pairs } = ctx;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    localScores(v, i, delta, cur);
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      const kEnd = allowed === null ? L : offsets[b + 1]!;
      for (let k = allowed === null ? 0 : offsets[b]!; k < kEnd; k++) {
        const a = allowed === null ? k : preds[k]!;
        const s = delta[prev + a]! + transition[tb + (allowed === null ? a * L + b : pairs[k]!)]!;
        if (s > best) {
          best = s;
          arg = a;
        }
      }
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
  }
}

/**
 * The recursion for a shared transition block (masked or not), visiting only the predecessors
 * that can win. At each position, let a0 be the best previous label and R the spread of the allowed
 * transition scores. For a label b that may follow a0, a predecessor a with δ(a) < δ(a0) − R
 * scores δ(a) + T(a, b) < δ(a0) + T(a0, b): it cannot win or tie. So b scans the few labels within
 * R of the top, best first, and stops as soon as δ(a) + max_a' T(a', b) falls below its best. The
 * same scan serves any b whose best found this way clears the bound; the others (and b with
 * fewer predecessors than there are leaders) scan their predecessor lists. Exact, with the same
 * tie rule as the full scan (the lowest label id among equal scores).
 */
function boundedRecursion(ctx: InferenceContext, v: ChainView, allowed: Uint8Array | null): void {
  const { n, L, transition: trans, transitionBase: base } = v;
  const { delta, back } = ctx;
  if (allowed !== null) ctx.predecessors(allowed, L);
  const { predOffsets: offsets, predLabels: preds, predPairs: pairs, predScores: scores } = ctx;
  // The block gathered into predecessor order, the best transition into each label, the spread.
  const bestInto = ctx.work;
  let low = Number.POSITIVE_INFINITY;
  let high = NEG;
  for (let b = 0; b < L; b++) {
    let most = NEG;
    if (allowed === null) {
      for (let a = 0; a < L; a++) {
        const t = trans[base + a * L + b]!;
        if (t > most) most = t;
        if (t < low) low = t;
      }
    } else {
      for (let k = offsets[b]!; k < offsets[b + 1]!; k++) {
        const t = trans[base + pairs[k]!]!;
        scores[k] = t;
        if (t > most) most = t;
        if (t < low) low = t;
      }
    }
    if (most > high) high = most;
    bestInto[b] = most;
  }
  const spread = high - low;
  const top = ctx.order;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    localScores(v, i, delta, cur);
    let a0 = 0;
    for (let a = 1; a < L; a++) if (delta[prev + a]! > delta[prev + a0]!) a0 = a;
    const leader = delta[prev + a0]!;
    if (leader === NEG) {
      for (let b = 0; b < L; b++) {
        delta[cur + b] = NEG;
        back[cur + b] = -1;
      }
      continue;
    }
    // The labels within the spread of the leader, best first (ties: lower id first). The floor
    // is lowered by a hair so that rounding in it cannot exclude a label that ties. When most
    // labels are leaders (a wide or infinite spread) the bound cannot pay: no leaders, and every
    // label scans its predecessors.
    const bound = leader - spread;
    const floor = bound - 1e-12 * (Math.abs(leader) + spread);
    let count = 0;
    for (let a = 0; a < L; a++) if (delta[prev + a]! >= floor) count++;
    if (4 * count > 3 * L) count = 0;
    else {
      count = 0;
      for (let a = 0; a < L; a++) {
        const d = delta[prev + a]!;
        if (d < floor) continue;
        let j = count++;
        while (j > 0 && delta[prev + top[j - 1]!]! < d) {
          top[j] = top[j - 1]!;
          j--;
        }
        top[j] = a;
      }
    }
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      const kStart = allowed === null ? 0 : offsets[b]!;
      const kEnd = allowed === null ? L : offsets[b + 1]!;
      // Scan the leaders unless b's own predecessor list is shorter; a leader scan is complete
      // when its best beats every label below the floor: best − max T(·, b) ≥ δ(a0) − R (always
      // so, up to rounding, when a0 may precede b; the floor's hair keeps rounding on the safe side).
      let complete = false;
      if (allowed === null || kEnd - kStart > count) {
        const ceiling = bestInto[b]!;
        for (let j = 0; j < count; j++) {
          const a = top[j]!;
          const d = delta[prev + a]!;
          if (d + ceiling < best) break;
          if (allowed !== null && allowed[a * L + b] === 0) continue;
          const s = d + trans[base + a * L + b]!;
          if (s > best || (s === best && a < arg)) {
            best = s;
            arg = a;
          }
        }
        complete = count > 0 && best - ceiling >= bound;
      }
      if (!complete && allowed === null) {
        best = NEG;
        arg = -1;
        for (let a = 0; a < L; a++) {
          const s = delta[prev + a]! + trans[base + a * L + b]!;
          if (s > best) {
            best = s;
            arg = a;
          }
        }
      } else if (!complete) {
        best = NEG;
        arg = -1;
        for (let k = kStart; k < kEnd; k++) {
          const a = preds[k]!;
          const s = delta[prev + a]! + scores[k]!;
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
  const { n, L } = v;
  const { delta, back } = ctx;
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
