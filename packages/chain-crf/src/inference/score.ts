import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/** Score of labels[base .. base+n) under the view; −∞ when it uses anything forbidden. */
export function scoreView(v: ChainView, labels: ArrayLike<number>, base = 0): number {
  const { n, L, unary, unaryBase, adjustment, transition, allowed, fixed } = v;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const y = labels[base + i]!;
    if (fixed !== null && fixed[i]! >= 0 && fixed[i] !== y) return NEG;
    if (v.labelMask !== null && v.labelMask[i * L + y] === 0) return NEG;
    total += unary[unaryBase + i * L + y]!;
    if (adjustment !== null) total += adjustment[i * L + y]!;
    if (i > 0) {
      const a = labels[base + i - 1]!;
      if (allowed !== null && allowed[a * L + y] === 0) return NEG;
      total += transition[v.transitionBase + (i - 1) * v.transitionStride + a * L + y]!;
    }
  }
  const y0 = labels[base]!;
  const yn = labels[base + n - 1]!;
  if (v.allowedStart !== null && v.allowedStart[y0] === 0) return NEG;
  if (v.allowedEnd !== null && v.allowedEnd[yn] === 0) return NEG;
  if (v.start !== null) total += v.start[v.startBase + y0]!;
  if (v.end !== null) total += v.end[v.endBase + yn]!;
  return total;
}
