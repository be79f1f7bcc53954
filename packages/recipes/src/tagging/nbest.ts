/**
 * The k best labellings of one sentence's problem, with any decoder: list Viterbi for the chain
 * alone (exact), no-good cuts for an exact ILP (exact: each solve is the next best labelling
 * meeting the hard constraints), and Lawler–Murty's partition for the others (each subproblem a
 * forced-decoding restriction solved by the decoder itself: an entry is proven exact when it
 * reaches every open subproblem's bound — a certified optimum or a DD dual bound — and is a
 * heuristic otherwise, as every entry of a decoder without bounds: bcrf, mean-field, greedy).
 */
import { InferenceContext, kBest, logPartition } from "@lagrange/chain-crf";
import {
  constraintPenalty,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  type Decoding,
  type LabelRestriction,
  LagrangeError,
  type LinearConstraint,
  linearConstraint,
  meetsRestriction,
  restrictProblem,
  scoreLabelling,
  throwIfAborted,
} from "@lagrange/core";
import { deadlineOf } from "@lagrange/core/dual-decomposition";

/**
 * How the list is found: `list-viterbi` (the chain alone, exactly), `no-good-cuts` (re-solve with a
 * hard cut ruling out each labelling found: exact for an exact decoder), `partition`
 * (Lawler–Murty over label restrictions, any decoder).
 */
export type NBestMethod = "list-viterbi" | "no-good-cuts" | "partition";

export const NBEST_METHODS: readonly NBestMethod[] = ["list-viterbi", "no-good-cuts", "partition"];

/** One labelling of an n-best list. */
export interface NBestEntry {
  readonly labels: Int32Array;
  /**
   * What the list is ranked by: the decoder's objective of the labelling (the chain score; less
   * soft constraints' penalties under Soft-DD and the ILPs; hard-dd's with every constraint hard).
   */
  readonly score: number;
  /**
   * p(labels | x) under the model alone: exp(chain score − log Z), Z over every valid labelling
   * (that meets the restriction, when there is one: p(labels | x, the fixed labels)).
   */
  readonly probability: number;
  /**
   * This entry is proven to be the r-th best: every decoding that led to it (and to the entries
   * before it) was certified optimal or proven infeasible.
   */
  readonly certified: boolean;
}

export interface NBestResult {
  readonly method: NBestMethod;
  /** Fewer than k when fewer labellings are feasible (or the decoder found no more). */
  readonly entries: readonly NBestEntry[];
  /** Decoder calls made (1 per list for list Viterbi). */
  readonly decodes: number;
  /**
   * The sentence's time limit (`decodeOptions.timeLimitMs` or `deadline`) ended the search: the
   * list may be shorter than k. It bounds every decode of the list together, not each one.
   */
  readonly timedOut: boolean;
}

export interface NBestOptions {
  /** Default {@link nbestMethodFor} the decoder's capabilities. */
  readonly method?: NBestMethod;
  /**
   * What the decoder's definition declares: its n-best method, and whether its certificate is of
   * the score the list is ranked by. Absent: partition, certificates trusted.
   */
  readonly capabilities?: DecoderDefinition["capabilities"];
  /** Forced / partial decoding: every labelling of the list meets it. */
  readonly restriction?: LabelRestriction;
  readonly decodeOptions?: DecodeOptions;
}

/**
 * The method a decoder's list is found by, as its definition declares: list Viterbi for the chain
 * alone, no-good cuts for an exact ILP (whose every solve is exact), else the partition.
 */
export function nbestMethodFor(capabilities: DecoderDefinition["capabilities"]): NBestMethod {
  return capabilities?.nbest ?? "partition";
}

// Scratch buffers grown once and kept (one per thread: each worker loads its own module): a
// fresh context per sentence costs more than the list Viterbi itself.
let kBestContext: InferenceContext | undefined;
let partitionContext: InferenceContext | undefined;

/** The k best labellings of `problem` (see {@link NBestMethod}), best first. */
export function nbestOf(
  decoder: Decoder,
  problem: DecodeProblem,
  k: number,
  options: NBestOptions = {},
): NBestResult {
  if (!Number.isInteger(k) || k < 1) {
    throw new LagrangeError("usage", `n-best: expected k to be an integer ≥ 1, got ${k}`);
  }
  const method = options.method ?? nbestMethodFor(options.capabilities);
  const { scores } = problem;
  const restricted =
    options.restriction === undefined ? problem : restrictProblem(problem, options.restriction);
  partitionContext ??= new InferenceContext();
  // Over the restricted labellings: with fixed labels, p(y | x, the fixings), as the marginals are.
  const logZ = logPartition(restricted.scores, { context: partitionContext });
  const constraints = problem.constraints ?? [];
  const entry = (labels: Int32Array, score: number, certified: boolean): NBestEntry => ({
    labels,
    score,
    probability: Math.exp(scoreLabelling(scores, labels) - logZ),
    certified,
  });
  if (method === "list-viterbi") {
    if (
      constraints.length > 0 ||
      (problem.slaves?.length ?? 0) > 0 ||
      (problem.patterns?.length ?? 0) > 0
    ) {
      throw new LagrangeError(
        "usage",
        "n-best by list Viterbi is for the chain alone; with constraints, slaves or patterns use no-good-cuts or partition",
      );
    }
    kBestContext ??= new InferenceContext(64, 0, { simd: false });
    const found = kBest(restricted.scores, k, { context: kBestContext });
    return {
      method,
      entries: found.labels.map((labels, r) => entry(labels, found.scores[r]!, true)),
      decodes: 1,
      timedOut: false,
    };
  }
  // One deadline for the whole list: every decode below shares what is left of it.
  const given = options.decodeOptions ?? {};
  const deadline = deadlineOf(given);
  const decodeOptions: DecodeOptions = { ...given, deadline };
  const signal = decodeOptions.signal;
  if (method === "no-good-cuts") {
    const entries: NBestEntry[] = [];
    const cuts: LinearConstraint[] = [];
    let certified = certifiesPrimal(options.capabilities);
    let decodes = 0;
    let timedOut = false;
    while (entries.length < k) {
      throwIfAborted(signal);
      // The first decode always runs (it answers with its best labelling at the limit).
      if (decodes > 0 && deadline.expired()) {
        timedOut = true;
        break;
      }
      const decoding = decoder.decode(
        { ...restricted, constraints: [...constraints, ...cuts] },
        decodeOptions,
      );
      decodes++;
      if (decoding.status === "infeasible") break;
      const labels = decoding.labels;
      if (!usable(decoding, labels, options.restriction, scores.L, cuts)) break;
      certified &&= decoding.certified;
      entries.push(entry(labels.slice(), decoding.primal, certified));
      cuts.push(noGood(labels, scores.L, entries.length));
    }
    return { method, entries, decodes, timedOut };
  }
  return partition(
    decoder,
    restricted,
    k,
    { ...options, decodeOptions },
    (labels, decoding, certified) => entry(labels, decoding.primal, certified),
  );
}

/**
 * Whether a decoder's certificate proves its labelling maximises `primal`, the score the list is
 * ranked by. Not one of another objective (two-phase certifies the least rule cost among
 * labellings within τ of the (sub)problem's own Viterbi score, and reports the chain score as
 * primal): its parts' optima neither bound each other nor come in the order of their scores.
 */
function certifiesPrimal(capabilities: DecoderDefinition["capabilities"]): boolean {
  return capabilities?.certificate !== "other-objective";
}

/** The decoding is a labelling to list: it meets the hard constraints, the restriction, the cuts. */
function usable(
  decoding: Decoding,
  labels: Int32Array,
  restriction: LabelRestriction | undefined,
  L: number,
  cuts: readonly LinearConstraint[] = [],
): boolean {
  if ((decoding.constraintStats?.hardViolated ?? 0) > 0) return false;
  if (restriction !== undefined && !meetsRestriction(restriction, L, labels)) return false;
  return cuts.length === 0 || constraintPenalty(cuts, labels, L) === 0;
}

/** Σ_i y[i, labels_i] ≤ n − 1: any labelling but this one. */
function noGood(labels: Int32Array, L: number, rank: number): LinearConstraint {
  return linearConstraint({
    terms: Array.from(labels, (y, i) => [i * L + y, 1] as const),
    rhs: labels.length - 1,
    name: `n-best: not labelling ${rank}`,
  });
}

interface Subproblem {
  readonly restriction: LabelRestriction;
  readonly labels: Int32Array;
  readonly score: number;
  /** An upper bound on the part's optimum: its score when certified, else the decoder's dual. */
  readonly bound: number;
  readonly decoding: Decoding;
  readonly order: number;
}

/** Relative slack when a score is compared with a dual bound (floating-point sums). */
const BOUND_TOLERANCE = 1e-9;

/**
 * Lawler–Murty: the best of the remaining subproblems is the next labelling; its subproblem is then
 * split in n parts — part j fixes positions < j to the labelling's labels and rules its label out
 * at j — each solved by the decoder. Every part is a restriction of the problem, so the parts are
 * disjoint and cover the subproblem less the labelling. The entry taken is proven the next best
 * when its score reaches every open part's upper bound (a certified part's optimum, an uncertified
 * one's dual bound): so a list stays exact through parts the decoder did not certify, as long as
 * their bounds fall below what is taken. A position the restriction already fixes gives no part.
 */
function partition(
  decoder: Decoder,
  problem: DecodeProblem,
  k: number,
  options: NBestOptions,
  entry: (labels: Int32Array, decoding: Decoding, certified: boolean) => NBestEntry,
): NBestResult {
  const { n, L } = problem.scores;
  const decodeOptions = options.decodeOptions ?? {};
  const signal = decodeOptions.signal;
  const deadline = deadlineOf(decodeOptions);
  let timedOut = false;
  const base = options.restriction?.slice() ?? new Uint8Array(n * L).fill(1);
  const queue: Subproblem[] = [];
  // Bounds of parts that gave no usable labelling and no proof of infeasibility: they stay open.
  let unresolved = Number.NEGATIVE_INFINITY;
  let decodes = 0;
  let order = 0;
  // The dual bound is in the decoder's own objective, the one the list is ranked by.
  const boundOf = (decoding: Decoding, score: number): number => {
    if (decoding.certified) return score;
    const dual = decoding.dual ?? Number.POSITIVE_INFINITY;
    return Number.isFinite(dual) ? Math.max(dual, score) : Number.POSITIVE_INFINITY;
  };
  const solve = (restriction: LabelRestriction) => {
    throwIfAborted(signal);
    // Out of time: the parts left unsolved stay open, so no further entry can be taken.
    if (decodes > 0 && deadline.expired()) {
      timedOut = true;
      return;
    }
    const decoding = decoder.decode(restrictProblem(problem, restriction), decodeOptions);
    decodes++;
    if (decoding.status === "infeasible") return;
    const labels = decoding.labels.slice();
    if (!usable(decoding, labels, restriction, L)) {
      unresolved = Math.max(unresolved, boundOf(decoding, Number.NEGATIVE_INFINITY));
      return;
    }
    const score = entry(labels, decoding, true).score;
    queue.push({
      restriction,
      labels,
      score,
      bound: boundOf(decoding, score),
      decoding,
      order: order++,
    });
  };
  solve(base);
  const entries: NBestEntry[] = [];
  let certified = certifiesPrimal(options.capabilities);
  while (entries.length < k && queue.length > 0 && !timedOut) {
    let best = 0;
    for (let q = 1; q < queue.length; q++) {
      const a = queue[q]!;
      const b = queue[best]!;
      if (a.score > b.score || (a.score === b.score && a.order < b.order)) best = q;
    }
    const top = queue[best]!;
    queue.splice(best, 1);
    let open = unresolved;
    for (const part of queue) open = Math.max(open, part.bound);
    const slack = BOUND_TOLERANCE * Math.max(1, Math.abs(top.score));
    const previous = entries[entries.length - 1];
    if (previous !== undefined && top.score > previous.score + slack) {
      // A later part beat an earlier entry: some certificate was not of the score ranked by, so
      // none of the list's is proof.
      for (let r = 0; r < entries.length; r++) entries[r] = { ...entries[r]!, certified: false };
      certified = false;
    }
    certified &&= top.bound <= top.score + slack && open <= top.score + slack;
    entries.push(entry(top.labels, top.decoding, certified));
    if (entries.length === k) break;
    const { restriction, labels } = top;
    for (let j = 0; j < n; j++) {
      const y = labels[j]!;
      const row = j * L;
      let others = 0;
      for (let t = 0; t < L; t++) if (t !== y && restriction[row + t] === 1) others++;
      if (others > 0) {
        const part = restriction.slice();
        for (let i = 0; i < j; i++) {
          part.fill(0, i * L, (i + 1) * L);
          part[i * L + labels[i]!] = 1;
        }
        part[row + y] = 0;
        solve(part);
      }
    }
  }
  return { method: "partition", entries, decodes, timedOut };
}
