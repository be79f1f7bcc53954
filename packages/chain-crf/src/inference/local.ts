import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Writes the position-local scores of position i (unary + adjustment, plus start at i = 0 and end
 * at i = n−1, −∞ for forbidden labels) into out[outBase .. outBase+L).
 */
export function localScores(v: ChainView, i: number, out: Float64Array, outBase: number): void {
  const L = v.L;
  const unary = v.unary;
  const ub = v.unaryBase + i * L;
  const adj = v.adjustment;
  const ab = i * L;
  for (let t = 0; t < L; t++) out[outBase + t] = unary[ub + t]!;
  if (adj !== null) for (let t = 0; t < L; t++) out[outBase + t]! += adj[ab + t]!;
  if (i === 0) {
    const start = v.start;
    if (start !== null) {
      const sb = v.startBase;
      for (let t = 0; t < L; t++) out[outBase + t]! += start[sb + t]!;
    }
    const as = v.allowedStart;
    if (as !== null) for (let t = 0; t < L; t++) if (as[t] === 0) out[outBase + t] = NEG;
  }
  if (i === v.n - 1) {
    const end = v.end;
    if (end !== null) {
      const eb = v.endBase;
      for (let t = 0; t < L; t++) out[outBase + t]! += end[eb + t]!;
    }
    const ae = v.allowedEnd;
    if (ae !== null) for (let t = 0; t < L; t++) if (ae[t] === 0) out[outBase + t] = NEG;
  }
  const fixed = v.fixed;
  if (fixed !== null) {
    const f = fixed[i]!;
    if (f >= 0) for (let t = 0; t < L; t++) if (t !== f) out[outBase + t] = NEG;
  }
  const mask = v.labelMask;
  if (mask !== null) for (let t = 0; t < L; t++) if (mask[i * L + t] === 0) out[outBase + t] = NEG;
}
