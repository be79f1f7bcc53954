/**
 * Labellings from tag marginals (Bcrf's or mean field's). MBR with the Hamming risk is the
 * per-position argmax (corro §3.1), which footnote 4 warns can be invalid under −∞ transitions;
 * the validity-aware decoder is Viterbi over log-marginals restricted to the allowed transitions,
 * so a BIO/BIES output is always well formed.
 */
import type { ChainInput } from "../inference/chain-input.js";

const NEG = Number.NEGATIVE_INFINITY;

/** argmax_t marginals[i·L + t] per position (ties to the smallest label) into out. */
export function mbrDecode(marginals: Float64Array, n: number, L: number, out: Int32Array): void {
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bestP = NEG;
    for (let t = 0; t < L; t++) {
      const p = marginals[i * L + t]!;
      if (p > bestP) {
        bestP = p;
        best = t;
      }
    }
    out[i] = best;
  }
}

/** Scratch for {@link validDecode}, grown on demand. */
export class ValidDecodeWorkspace {
  delta: Float64Array = new Float64Array(0);
  back: Int32Array = new Int32Array(0);
  logMarginal: Float64Array = new Float64Array(0);

  ensure(n: number, L: number): void {
    if (this.delta.length < n * L) {
      const size = Math.max(n * L, 2 * this.delta.length);
      this.delta = new Float64Array(size);
      this.back = new Int32Array(size);
      this.logMarginal = new Float64Array(size);
    }
  }
}

/**
 * The labelling maximising Σ_i log marginals[i, y_i] among those the input allows (finite local
 * scores, allowed and finite transitions): MBR decoding made valid. Returns that sum, −∞ when no
 * allowed labelling has positive marginals everywhere (then `out` is untouched and the caller
 * decodes otherwise).
 */
export function validDecode(
  marginals: Float64Array,
  input: ChainInput,
  ws: ValidDecodeWorkspace,
  out: Int32Array,
): number {
  const { n, L, local, localBase, transition, transitionBase, transitionStride, allowed } = input;
  ws.ensure(n, L);
  const { delta, back, logMarginal: lm } = ws;
  for (let q = 0; q < n * L; q++) {
    const p = marginals[q]!;
    lm[q] = p > 0 && local[localBase + q]! > NEG ? Math.log(p) : NEG;
  }
  for (let t = 0; t < L; t++) delta[t] = lm[t]!;
  for (let i = 1; i < n; i++) {
    const tb = transitionBase + (i - 1) * transitionStride;
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      const own = lm[i * L + b]!;
      if (own > NEG) {
        for (let a = 0; a < L; a++) {
          const d = delta[(i - 1) * L + a]!;
          if (d === NEG) continue;
          if (allowed !== null && allowed[a * L + b] === 0) continue;
          if (transition[tb + a * L + b] === NEG) continue;
          if (d > best) {
            best = d;
            arg = a;
          }
        }
      }
      delta[i * L + b] = arg < 0 ? NEG : best + own;
      back[i * L + b] = arg;
    }
  }
  let best = NEG;
  let arg = -1;
  for (let t = 0; t < L; t++) {
    const d = delta[(n - 1) * L + t]!;
    if (d > best) {
      best = d;
      arg = t;
    }
  }
  if (arg < 0) return NEG;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = arg;
    if (i > 0) arg = back[i * L + arg]!;
  }
  return best;
}
