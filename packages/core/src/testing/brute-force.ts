import { type ChainScores, scoreLabelling, validateChainScores } from "../chain.js";
import { constraintPenalty, type LinearConstraint } from "../constraints.js";
import { type FactorGraph, scoreAssignment, validateFactorGraph } from "../factor-graph.js";
import { logAddExp } from "../semiring.js";
import { defineSlave, type Slave } from "../solver.js";

/** Any labelling space with a score: variable v takes values 0..domainSizes[v]−1. */
export interface ScoredSpace {
  readonly domainSizes: ArrayLike<number>;
  /** −∞ marks an infeasible labelling. */
  readonly score: (labels: Int32Array) => number;
}

/** What the enumerators accept: chain scores, a factor graph, or any scored space. */
export type Enumerable = ChainScores | FactorGraph | ScoredSpace;

/** Enumerators refuse spaces larger than this: they are for tiny test problems. */
export const MAX_ENUMERATED = 2_000_000;

export interface BruteForceOptions {
  /**
   * Constraints over the indicator vector (index `i*L + t`; every variable must have the same
   * domain L). Hard ones exclude a labelling; soft ones subtract `c·max(0, a·y − b)`.
   */
  readonly constraints?: readonly LinearConstraint[];
}

/** The space and score of a target, constraints applied. */
export function scoredSpace(target: Enumerable, options: BruteForceOptions = {}): ScoredSpace {
  let space: ScoredSpace;
  if ("unary" in target) {
    validateChainScores(target);
    space = {
      domainSizes: new Int32Array(target.n).fill(target.L),
      score: (y) => scoreLabelling(target, y),
    };
  } else if ("factors" in target) {
    validateFactorGraph(target);
    space = { domainSizes: target.domainSizes, score: (y) => scoreAssignment(target, y) };
  } else {
    space = target;
  }
  const constraints = options.constraints;
  if (constraints === undefined || constraints.length === 0) return space;
  const sizes = space.domainSizes;
  const L = sizes[0]!;
  for (let v = 1; v < sizes.length; v++) {
    if (sizes[v] !== L) {
      throw new RangeError("constraints need one domain size L for every variable (index i*L+t)");
    }
  }
  const base = space.score;
  return {
    domainSizes: sizes,
    score: (y) => base(y) - constraintPenalty(constraints, y, L),
  };
}

/**
 * Calls `visit` on every labelling in lexicographic order (variable 0 most significant). The
 * array is reused: copy it to keep it.
 */
export function forEachLabelling(
  domainSizes: ArrayLike<number>,
  visit: (labels: Int32Array) => void,
): void {
  const V = domainSizes.length;
  let total = 1;
  for (let v = 0; v < V; v++) total *= domainSizes[v]!;
  if (total > MAX_ENUMERATED) {
    throw new RangeError(
      `brute force over ${total} labellings refused (limit ${MAX_ENUMERATED}); use a smaller problem`,
    );
  }
  if (V === 0 || total === 0) return;
  const labels = new Int32Array(V);
  for (;;) {
    visit(labels);
    let v = V - 1;
    while (v >= 0 && labels[v] === domainSizes[v]! - 1) {
      labels[v] = 0;
      v--;
    }
    if (v < 0) return;
    labels[v] = labels[v]! + 1;
  }
}

export interface BruteForceBest {
  /** The best objective; −∞ when no labelling is feasible. */
  readonly score: number;
  /** The first best labelling in lexicographic order; null when none is feasible. */
  readonly labels: Int32Array | null;
}

/** The exact optimum, under hard constraints and soft penalties when given. */
export function bruteForceBest(
  target: Enumerable,
  options: BruteForceOptions = {},
): BruteForceBest {
  const { domainSizes, score } = scoredSpace(target, options);
  let best = Number.NEGATIVE_INFINITY;
  let labels: Int32Array | null = null;
  forEachLabelling(domainSizes, (y) => {
    const s = score(y);
    if (s > best) {
      best = s;
      labels = Int32Array.from(y);
    }
  });
  return { score: best, labels };
}

/** log Σ_y exp(score(y)); −∞ when nothing is feasible. */
export function bruteForceLogPartition(
  target: Enumerable,
  options: BruteForceOptions = {},
): number {
  const { domainSizes, score } = scoredSpace(target, options);
  let logZ = Number.NEGATIVE_INFINITY;
  forEachLabelling(domainSizes, (y) => {
    logZ = logAddExp(logZ, score(y));
  });
  return logZ;
}

/**
 * P(variable v = x) under exp(score), flattened with variable v's block at Σ_{u<v} domainSizes[u]
 * (for a chain: `i*L + t`). All zero when nothing is feasible.
 */
export function bruteForceMarginals(
  target: Enumerable,
  options: BruteForceOptions = {},
): Float64Array {
  const { domainSizes, score } = scoredSpace(target, options);
  const logZ = bruteForceLogPartition(target, options);
  const offsets: number[] = [];
  let size = 0;
  for (let v = 0; v < domainSizes.length; v++) {
    offsets.push(size);
    size += domainSizes[v]!;
  }
  const marginals = new Float64Array(size);
  if (logZ === Number.NEGATIVE_INFINITY) return marginals;
  forEachLabelling(domainSizes, (y) => {
    const p = Math.exp(score(y) - logZ);
    for (let v = 0; v < y.length; v++) marginals[offsets[v]! + y[v]!]! += p;
  });
  return marginals;
}

/** The k best feasible labellings, best first; ties keep lexicographic order. */
export function bruteForceKBest(
  target: Enumerable,
  k: number,
  options: BruteForceOptions = {},
): Array<{ score: number; labels: Int32Array }> {
  const { domainSizes, score } = scoredSpace(target, options);
  const all: Array<{ score: number; labels: Int32Array }> = [];
  forEachLabelling(domainSizes, (y) => {
    const s = score(y);
    if (s > Number.NEGATIVE_INFINITY) all.push({ score: s, labels: Int32Array.from(y) });
  });
  all.sort((a, b) => b.score - a.score);
  return all.slice(0, k);
}

/** Number of feasible labellings (score > −∞). */
export function bruteForceCount(target: Enumerable, options: BruteForceOptions = {}): number {
  const { domainSizes, score } = scoredSpace(target, options);
  let count = 0;
  forEachLabelling(domainSizes, (y) => {
    if (score(y) > Number.NEGATIVE_INFINITY) count++;
  });
  return count;
}

/**
 * An exact slave over `n` positions and `L` labels that maximises `score(y) + adjustment·y` by
 * enumerating all L^n labellings: a stand-in for any small factor (a pattern factor, a table) in
 * DD tests. Ties go to the first labelling in lexicographic order.
 */
export function enumerationSlave(spec: {
  readonly name?: string;
  readonly n: number;
  readonly L: number;
  readonly score: (labels: Int32Array) => number;
}): Slave {
  const { n, L, score } = spec;
  const domainSizes = new Int32Array(n).fill(L);
  const labels = new Int32Array(n);
  const result = { labels, value: Number.NEGATIVE_INFINITY };
  return defineSlave({
    name: spec.name ?? "enumeration",
    n,
    L,
    maximize: (adjustment) => {
      result.value = Number.NEGATIVE_INFINITY;
      forEachLabelling(domainSizes, (y) => {
        let value = score(y);
        if (value === Number.NEGATIVE_INFINITY) return;
        for (let j = 0; j < n; j++) value += adjustment[j * L + y[j]!]!;
        if (value > result.value) {
          result.value = value;
          labels.set(y);
        }
      });
      return result;
    },
    score: (y) => score(Int32Array.from(y)),
  });
}
