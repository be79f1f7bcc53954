import {
  type ChainScores,
  type LinearConstraint,
  linearConstraint,
  type Slave,
  scoreLabelling,
  seededRandom,
} from "@lagrange/core";

/** The project's seeded generator: every random instance is reproducible from its seed. */
export const rng = seededRandom;

export function randomInt(random: () => number, lo: number, hi: number): number {
  return lo + Math.floor(random() * (hi - lo + 1));
}

/** A plain Viterbi slave for tests (the chain CRF's fast one lives in @lagrange/chain-crf). */
export function viterbiSlave(scores: ChainScores): Slave {
  const { n, L, unary, transition, start, end, allowed } = scores;
  const shared = transition.length === L * L;
  const delta = new Float64Array(n * L);
  const back = new Int32Array(n * L);
  const labels = new Int32Array(n);
  const result = { labels, value: Number.NEGATIVE_INFINITY };
  return {
    name: "test-viterbi",
    n,
    L,
    maximize(adjustment) {
      for (let t = 0; t < L; t++) delta[t] = (start?.[t] ?? 0) + unary[t]! + adjustment[t]!;
      for (let i = 1; i < n; i++) {
        const off = shared ? 0 : (i - 1) * L * L;
        for (let t = 0; t < L; t++) {
          let best = 0;
          let bestScore = Number.NEGATIVE_INFINITY;
          for (let s = 0; s < L; s++) {
            if (allowed !== undefined && allowed[s * L + t] === 0) continue;
            const v = delta[(i - 1) * L + s]! + transition[off + s * L + t]!;
            if (v > bestScore) {
              bestScore = v;
              best = s;
            }
          }
          back[i * L + t] = best;
          delta[i * L + t] = bestScore + unary[i * L + t]! + adjustment[i * L + t]!;
        }
      }
      let best = 0;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let t = 0; t < L; t++) {
        const v = delta[(n - 1) * L + t]! + (end?.[t] ?? 0);
        if (v > bestScore) {
          bestScore = v;
          best = t;
        }
      }
      labels[n - 1] = best;
      for (let i = n - 1; i >= 1; i--) labels[i - 1] = back[i * L + labels[i]!]!;
      result.value = bestScore;
      return result;
    },
    score: (y) => scoreLabelling(scores, y),
  };
}

export function randomChain(
  random: () => number,
  n: number,
  L: number,
  maskDensity = 0,
): ChainScores {
  const unary = Float64Array.from({ length: n * L }, () => random() * 4 - 2);
  const transition = Float64Array.from({ length: L * L }, () => random() * 2 - 1);
  const start = Float64Array.from({ length: L }, () => random() - 0.5);
  const end = Float64Array.from({ length: L }, () => random() - 0.5);
  if (maskDensity === 0) return { n, L, unary, transition, start, end };
  const allowed = Uint8Array.from({ length: L * L }, () => (random() < maskDensity ? 0 : 1));
  return { n, L, unary, transition, start, end, allowed };
}

/**
 * Random constraints of the shapes Soft-DD meets: label counts, count differences (pairwise and
 * hierarchical families) and sparse per-position rules with mixed-sign integer coefficients.
 * `hardShare` of them are hard; the rest get a penalty in [0, 3].
 */
export function randomConstraints(
  random: () => number,
  n: number,
  L: number,
  count: number,
  hardShare: number,
): LinearConstraint[] {
  const out: LinearConstraint[] = [];
  for (let c = 0; c < count; c++) {
    const terms: [number, number][] = [];
    const kind = randomInt(random, 0, 2);
    let rhs: number;
    if (kind === 0) {
      const t = randomInt(random, 0, L - 1);
      for (let i = 0; i < n; i++) terms.push([i * L + t, 1]);
      rhs = randomInt(random, 0, 2);
    } else if (kind === 1) {
      const a = randomInt(random, 0, L - 1);
      const b = (a + randomInt(random, 1, L - 1)) % L;
      for (let i = 0; i < n; i++) terms.push([i * L + a, 1], [i * L + b, -1]);
      rhs = randomInt(random, 0, 1);
    } else {
      const k = randomInt(random, 1, 4);
      for (let j = 0; j < k; j++) {
        const coef = [-2, -1, 1, 2][randomInt(random, 0, 3)]!;
        terms.push([randomInt(random, 0, n * L - 1), coef]);
      }
      rhs = randomInt(random, -1, 2);
    }
    const hard = random() < hardShare;
    const penalty = Math.round(random() * 12) / 4;
    out.push(linearConstraint(hard ? { terms, rhs } : { terms, rhs, penalty }));
  }
  return out;
}

/** Exhaustive argmax of an objective over all L^n labellings (ties: first found). */
export function bruteForce(
  n: number,
  L: number,
  objective: (labels: Int32Array) => number,
): { labels: Int32Array; value: number } {
  const labels = new Int32Array(n);
  let best = new Int32Array(n);
  let bestValue = Number.NEGATIVE_INFINITY;
  const total = L ** n;
  for (let code = 0; code < total; code++) {
    let rest = code;
    for (let i = 0; i < n; i++) {
      labels[i] = rest % L;
      rest = Math.floor(rest / L);
    }
    const v = objective(labels);
    if (v > bestValue) {
      bestValue = v;
      best = labels.slice();
    }
  }
  return { labels: best, value: bestValue };
}
