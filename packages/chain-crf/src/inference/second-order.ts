import { localScores } from "./local.js";
import { NEG, type SecondOrderContext, transitionAt } from "./second-order-context.js";
import type { ChainView } from "./view.js";

/**
 * The best labelling of the second-order chain into out[0..n); returns its score, or −∞ when no
 * labelling is feasible (then `out` is filled with 0). Ties go to the lowest label two back, then
 * to the lowest final pair.
 */
export function secondOrderViterbiKernel(
  ctx: SecondOrderContext,
  v: ChainView,
  tri: Float64Array,
  triBase: number,
  out: Int32Array,
): number {
  const { n, L } = v;
  const LL = L * L;
  ctx.ensure(n, L);
  const local = ctx.local;
  for (let i = 0; i < n; i++) localScores(v, i, local, i * L);
  if (n === 1) {
    let best = NEG;
    let arg = -1;
    for (let t = 0; t < L; t++) {
      if (local[t]! > best) {
        best = local[t]!;
        arg = t;
      }
    }
    out[0] = Math.max(arg, 0);
    return best;
  }
  let prev = ctx.deltaA;
  let cur = ctx.deltaB;
  for (let a = 0; a < L; a++) {
    for (let b = 0; b < L; b++)
      prev[b * L + a] = local[a]! + local[L + b]! + transitionAt(v, 1, a * L + b);
  }
  const back = ctx.back;
  for (let i = 2; i < n; i++) {
    const row = i * L;
    for (let b = 0; b < L; b++) {
      const from = b * L;
      for (let c = 0; c < L; c++) {
        const bc = b * L + c;
        const here = local[row + c]! + transitionAt(v, i, bc);
        let best = NEG;
        let arg = -1;
        if (here !== NEG) {
          const tb = triBase + b * L + c;
          for (let a = 0; a < L; a++) {
            const s = prev[from + a]! + tri[tb + a * LL]!;
            if (s > best) {
              best = s;
              arg = a;
            }
          }
        }
        cur[c * L + b] = arg < 0 ? NEG : best + here;
        back[i * LL + bc] = arg;
      }
    }
    const swap = prev;
    prev = cur;
    cur = swap;
  }
  let best = NEG;
  let argB = -1;
  let argC = -1;
  for (let b = 0; b < L; b++) {
    for (let c = 0; c < L; c++) {
      const s = prev[c * L + b]!;
      if (s > best) {
        best = s;
        argB = b;
        argC = c;
      }
    }
  }
  if (argB < 0) {
    out.fill(0, 0, n);
    return NEG;
  }
  out[n - 2] = argB;
  out[n - 1] = argC;
  for (let i = n - 1; i >= 2; i--) out[i - 2] = back[i * LL + out[i - 1]! * L + out[i]!]!;
  return best;
}

/** Score of labels[base .. base+n) under the second-order chain: −∞ when it breaks a constraint. */
export function secondOrderScore(
  firstOrderScore: number,
  L: number,
  tri: Float64Array,
  triBase: number,
  labels: ArrayLike<number>,
  base: number,
  n: number,
): number {
  let total = firstOrderScore;
  const LL = L * L;
  for (let i = 2; i < n; i++) {
    total +=
      tri[triBase + labels[base + i - 2]! * LL + labels[base + i - 1]! * L + labels[base + i]!]!;
  }
  return total;
}
