// Test support (not exported): seeded random chain inputs and brute-force enumeration.
import { seededRandom } from "@lagrange/core";
import type { ChainInput } from "../inference/chain-input.js";

const NEG = Number.NEGATIVE_INFINITY;

export interface RandomInputOptions {
  readonly minN?: number;
  readonly maxN?: number;
  readonly maxL?: number;
  readonly spread?: number;
  /** Probability of a forbidden pair / label (0: all finite). */
  readonly forbid?: number;
  /** Probability of position-specific transitions. */
  readonly positionSpecific?: number;
}

export function randomInput(seed: number, options: RandomInputOptions = {}): ChainInput {
  const rnd = seededRandom(seed);
  const minN = options.minN ?? 1;
  const n = minN + Math.floor(rnd() * ((options.maxN ?? 6) - minN + 1));
  const L = 1 + Math.floor(rnd() * (options.maxL ?? 4));
  const spread = options.spread ?? 2;
  const forbid = options.forbid ?? 0;
  const val = () => (rnd() * 2 - 1) * spread;
  const local = Float64Array.from({ length: n * L }, () => (rnd() < forbid / 2 ? NEG : val()));
  const specific = n > 2 && rnd() < (options.positionSpecific ?? 0.3);
  const LL = L * L;
  const transition = Float64Array.from({ length: specific ? (n - 1) * LL : LL }, val);
  const allowed =
    forbid > 0 ? Uint8Array.from({ length: LL }, () => (rnd() < forbid ? 0 : 1)) : null;
  return {
    n,
    L,
    local,
    localBase: 0,
    transition,
    transitionBase: 0,
    transitionStride: specific ? LL : 0,
    allowed,
  };
}

export function transitionScore(input: ChainInput, i: number, a: number, b: number): number {
  const { L, transition, transitionBase, transitionStride, allowed } = input;
  if (allowed !== null && allowed[a * L + b] === 0) return NEG;
  return transition[transitionBase + (i - 1) * transitionStride + a * L + b]!;
}

export function labellingScore(input: ChainInput, y: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < input.n; i++) {
    s += input.local[input.localBase + i * input.L + y[i]!]!;
    if (i > 0) s += transitionScore(input, i, y[i - 1]!, y[i]!);
  }
  return s;
}

/** Calls visit for every labelling with a finite score. */
export function forEachFeasible(
  input: ChainInput,
  visit: (y: Int32Array, score: number) => void,
): void {
  const { n, L } = input;
  const y = new Int32Array(n);
  const total = L ** n;
  for (let code = 0; code < total; code++) {
    let c = code;
    for (let i = 0; i < n; i++) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    const s = labellingScore(input, y);
    if (s > NEG) visit(y, s);
  }
}

/** CRF pairwise marginals (n−1)·L·L of exp(score/τ) and node marginals n·L, by enumeration. */
export function bruteForceCrf(
  input: ChainInput,
  tau = 1,
): { pairwise: Float64Array; marginals: Float64Array; best: number; count: number } {
  const { n, L } = input;
  const LL = L * L;
  let max = NEG;
  forEachFeasible(input, (_y, s) => {
    max = Math.max(max, s);
  });
  const pairwise = new Float64Array(Math.max(1, n - 1) * LL);
  const marginals = new Float64Array(n * L);
  let z = 0;
  let count = 0;
  forEachFeasible(input, (y, s) => {
    const p = Math.exp((s - max) / tau);
    z += p;
    count++;
    for (let i = 0; i < n; i++) marginals[i * L + y[i]!]! += p;
    for (let j = 0; j < n - 1; j++) pairwise[j * LL + y[j]! * L + y[j + 1]!]! += p;
  });
  if (z > 0) {
    for (let q = 0; q < pairwise.length; q++) pairwise[q]! /= z;
    for (let q = 0; q < marginals.length; q++) marginals[q]! /= z;
  }
  return { pairwise, marginals, best: max, count };
}
