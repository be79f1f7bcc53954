// Test support (not exported): seeded random chains and a brute-force enumerator.
import { type ChainScores, scoreLabelling, seededRandom } from "@lagrange/core";

export interface RandomChainOptions {
  readonly maxN?: number;
  readonly maxL?: number;
  /** Scale of the random scores. */
  readonly spread?: number;
}

export interface RandomChain {
  readonly scores: ChainScores;
  readonly adjustment: Float64Array;
  readonly fixed: Int32Array;
  readonly allowedStart: Uint8Array;
  readonly allowedEnd: Uint8Array;
}

/** A random chain with, by chance, position-specific transitions, start/end, masks and −∞. */
export function randomChain(seed: number, options: RandomChainOptions = {}): RandomChain {
  const rnd = seededRandom(seed);
  const maxN = options.maxN ?? 5;
  const maxL = options.maxL ?? 4;
  const spread = options.spread ?? 4;
  const n = 1 + Math.floor(rnd() * maxN);
  const L = 1 + Math.floor(rnd() * maxL);
  const val = () => (rnd() * 2 - 1) * spread;
  const unary = Float64Array.from({ length: n * L }, val);
  const positionSpecific = n > 2 && rnd() < 0.3;
  const transition = Float64Array.from({ length: positionSpecific ? (n - 1) * L * L : L * L }, val);
  const scores: {
    n: number;
    L: number;
    unary: Float64Array;
    transition: Float64Array;
    start?: Float64Array;
    end?: Float64Array;
    allowed?: Uint8Array;
  } = { n, L, unary, transition };
  if (rnd() < 0.5) {
    scores.start = Float64Array.from({ length: L }, () =>
      rnd() < 0.15 ? Number.NEGATIVE_INFINITY : val(),
    );
    scores.end = Float64Array.from({ length: L }, () =>
      rnd() < 0.15 ? Number.NEGATIVE_INFINITY : val(),
    );
  }
  if (rnd() < 0.5) scores.allowed = Uint8Array.from({ length: L * L }, () => (rnd() < 0.7 ? 1 : 0));
  const adjustment = Float64Array.from({ length: n * L }, val);
  const fixed = Int32Array.from({ length: n }, () => (rnd() < 0.3 ? Math.floor(rnd() * L) : -1));
  const allowedStart = Uint8Array.from({ length: L }, () => (rnd() < 0.8 ? 1 : 0));
  const allowedEnd = Uint8Array.from({ length: L }, () => (rnd() < 0.8 ? 1 : 0));
  return { scores, adjustment, fixed, allowedStart, allowedEnd };
}

export interface BruteForceOptions {
  readonly adjustment?: Float64Array;
  readonly fixed?: ArrayLike<number>;
  readonly allowedStart?: Uint8Array;
  readonly allowedEnd?: Uint8Array;
}

/** Every labelling with its score (−∞ included), via the core's scoreLabelling. */
export function enumerate(
  scores: ChainScores,
  options: BruteForceOptions = {},
): Array<{ labels: Int32Array; score: number }> {
  const { n, L } = scores;
  const out: Array<{ labels: Int32Array; score: number }> = [];
  const y = new Int32Array(n);
  const total = L ** n;
  for (let code = 0; code < total; code++) {
    let c = code;
    for (let i = n - 1; i >= 0; i--) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    let s = scoreLabelling(scores, y);
    if (options.adjustment) for (let i = 0; i < n; i++) s += options.adjustment[i * L + y[i]!]!;
    if (options.fixed) {
      for (let i = 0; i < n; i++) {
        const f = options.fixed[i]!;
        if (f >= 0 && f !== y[i]) s = Number.NEGATIVE_INFINITY;
      }
    }
    if (options.allowedStart && options.allowedStart[y[0]!] === 0) s = Number.NEGATIVE_INFINITY;
    if (options.allowedEnd && options.allowedEnd[y[n - 1]!] === 0) s = Number.NEGATIVE_INFINITY;
    out.push({ labels: y.slice(), score: s });
  }
  return out;
}

export function bruteLogZ(all: Array<{ score: number }>): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const e of all) if (e.score > m) m = e.score;
  if (m === Number.NEGATIVE_INFINITY) return m;
  let s = 0;
  for (const e of all) s += Math.exp(e.score - m);
  return m + Math.log(s);
}

export function bruteMarginals(
  all: Array<{ labels: Int32Array; score: number }>,
  n: number,
  L: number,
): { token: Float64Array; edge: Float64Array } {
  const logZ = bruteLogZ(all);
  const token = new Float64Array(n * L);
  const edge = new Float64Array(Math.max(0, n - 1) * L * L);
  if (logZ === Number.NEGATIVE_INFINITY) return { token, edge };
  for (const e of all) {
    if (e.score === Number.NEGATIVE_INFINITY) continue;
    const p = Math.exp(e.score - logZ);
    for (let i = 0; i < n; i++) {
      token[i * L + e.labels[i]!]! += p;
      if (i > 0) edge[(i - 1) * L * L + e.labels[i - 1]! * L + e.labels[i]!]! += p;
    }
  }
  return { token, edge };
}
