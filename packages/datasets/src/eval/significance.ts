import { seededRandom } from "@lagrange/core";
import { checkAligned, type LabelSequences } from "./chunks.js";
import { ConllevalCounter } from "./conlleval.js";

export type Alternative = "two-sided" | "greater" | "less";

export interface PairedBootstrapInput {
  /** Number of units (sentences, documents) resampled. */
  readonly units: number;
  /** Sufficient statistics per unit, row-major units × width (e.g. correct, predicted, gold). */
  readonly a: Float64Array;
  readonly b: Float64Array;
  readonly width: number;
  /** The corpus metric from the column sums of a sample (e.g. F1 from summed counts). */
  readonly metric: (sums: Float64Array) => number;
}

export interface PairedBootstrapOptions {
  /** Default 10 000. */
  readonly samples?: number;
  /** Default 1. */
  readonly seed?: number;
  /** `greater`: H1 is "A scores higher than B". Default `two-sided`. */
  readonly alternative?: Alternative;
  readonly signal?: AbortSignal;
}

export interface PairedBootstrapResult {
  /** metric(A) − metric(B) on the whole data. */
  readonly delta: number;
  readonly pValue: number;
  readonly samples: number;
  /** Resamples in which A scored strictly higher than B. */
  readonly aWins: number;
  /** 2.5% and 97.5% quantiles of the resampled deltas. */
  readonly interval: readonly [number, number];
}

/**
 * Paired bootstrap resampling over units (Koehn 2004; Berg-Kirkpatrick et al. 2012): both
 * systems are scored on the same resampled sets of units. The p-value tests the null hypothesis
 * delta = 0 against the resampled deltas shifted to mean zero — two-sided: the share of
 * resamples with |δ* − δ| ≥ |δ|; `greater`: δ* − δ ≥ δ; `less`: δ* − δ ≤ δ — computed as
 * (count + 1) / (samples + 1) so that it is never 0.
 */
export function pairedBootstrap(
  input: PairedBootstrapInput,
  options: PairedBootstrapOptions = {},
): PairedBootstrapResult {
  const { units, a, b, width, metric } = input;
  if (!Number.isInteger(units) || units < 1)
    throw new RangeError("pairedBootstrap: need at least one unit");
  if (a.length !== units * width || b.length !== units * width) {
    throw new RangeError(
      `pairedBootstrap: expected statistics of length units·width = ${units * width}`,
    );
  }
  const samples = options.samples ?? 10_000;
  if (!Number.isInteger(samples) || samples < 1)
    throw new RangeError("pairedBootstrap: samples must be ≥ 1");
  const alternative = options.alternative ?? "two-sided";
  const random = seededRandom(options.seed ?? 1);
  const sumsA = new Float64Array(width);
  const sumsB = new Float64Array(width);
  const columnSums = (x: Float64Array, out: Float64Array): void => {
    out.fill(0);
    for (let u = 0; u < units; u++) for (let k = 0; k < width; k++) out[k]! += x[u * width + k]!;
  };
  columnSums(a, sumsA);
  columnSums(b, sumsB);
  const delta = metric(sumsA) - metric(sumsB);
  const deltas = new Float64Array(samples);
  let extreme = 0;
  let aWins = 0;
  for (let s = 0; s < samples; s++) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    sumsA.fill(0);
    sumsB.fill(0);
    for (let draw = 0; draw < units; draw++) {
      const u = Math.floor(random() * units);
      for (let k = 0; k < width; k++) {
        sumsA[k]! += a[u * width + k]!;
        sumsB[k]! += b[u * width + k]!;
      }
    }
    const d = metric(sumsA) - metric(sumsB);
    deltas[s] = d;
    if (d > 0) aWins++;
    const shifted = d - delta;
    if (
      (alternative === "two-sided" && Math.abs(shifted) >= Math.abs(delta)) ||
      (alternative === "greater" && shifted >= delta) ||
      (alternative === "less" && shifted <= delta)
    ) {
      extreme++;
    }
  }
  deltas.sort();
  const quantile = (q: number): number => deltas[Math.min(samples - 1, Math.floor(q * samples))]!;
  return {
    delta,
    pValue: (extreme + 1) / (samples + 1),
    samples,
    aWins,
    interval: [quantile(0.025), quantile(0.975)],
  };
}

/** F1 from summed (correct, predicted, gold) counts. */
export function f1FromCounts(sums: Float64Array): number {
  const [correct, predicted, gold] = [sums[0]!, sums[1]!, sums[2]!];
  return predicted + gold > 0 ? (2 * correct) / (predicted + gold) : 0;
}

/**
 * Per-sentence conlleval chunk counts (correct, predicted, gold), row-major sentences × 3 —
 * the input pairedBootstrap needs for chunk F1. Sums equal the corpus counts, because conlleval's
 * state resets at every sentence break.
 */
export function sentenceChunkCounts(gold: LabelSequences, predicted: LabelSequences): Float64Array {
  checkAligned(gold, predicted);
  const out = new Float64Array(gold.length * 3);
  for (let s = 0; s < gold.length; s++) {
    const counter = new ConllevalCounter();
    const g = gold[s]!;
    const p = predicted[s]!;
    for (let i = 0; i < g.length; i++) counter.addToken(g[i]!, p[i]!);
    const result = counter.finish();
    out[s * 3] = result.correctChunks;
    out[s * 3 + 1] = result.predictedChunks;
    out[s * 3 + 2] = result.goldChunks;
  }
  return out;
}

/** Paired bootstrap of conlleval chunk F1 between two systems' predictions of the same gold. */
export function pairedBootstrapChunkF1(
  gold: LabelSequences,
  systemA: LabelSequences,
  systemB: LabelSequences,
  options: PairedBootstrapOptions = {},
): PairedBootstrapResult {
  return pairedBootstrap(
    {
      units: gold.length,
      a: sentenceChunkCounts(gold, systemA),
      b: sentenceChunkCounts(gold, systemB),
      width: 3,
      metric: f1FromCounts,
    },
    options,
  );
}

// ---------------------------------------------------------------------------------------------
// Wilcoxon signed-rank test

export interface WilcoxonOptions {
  /** Default `two-sided`; `greater`: H1 is that x − y tends to be positive. */
  readonly alternative?: Alternative;
  /**
   * `exact`: the exact null distribution of the signed-rank sum given the (mid)ranks, ties
   * included; `approx`: the normal approximation with tie correction; `auto` (default): exact
   * for at most 50 non-zero differences, otherwise approx.
   */
  readonly method?: "auto" | "exact" | "approx";
  /** Continuity correction of the normal approximation. Default false (as scipy). */
  readonly correction?: boolean;
}

export interface WilcoxonResult {
  /**
   * scipy.stats.wilcoxon's statistic: two-sided, min(R+, R−); one-sided, R+ (the rank sum of
   * the positive differences). Zero differences are discarded first (zero_method "wilcox").
   */
  readonly statistic: number;
  readonly pValue: number;
  /** Non-zero differences ranked. */
  readonly n: number;
  readonly zeros: number;
  readonly rankSumPositive: number;
  readonly rankSumNegative: number;
  readonly method: "exact" | "approx";
  /** The normal deviate, when the approximation was used. */
  readonly z?: number;
}

/**
 * The Wilcoxon signed-rank test on paired scores (x[i], y[i]), e.g. per-sentence F1 of two
 * systems, or on differences x when y is absent. Ties get average ranks.
 */
export function wilcoxonSignedRank(
  x: ArrayLike<number>,
  y?: ArrayLike<number>,
  options: WilcoxonOptions = {},
): WilcoxonResult {
  if (y !== undefined && y.length !== x.length) {
    throw new RangeError(`wilcoxonSignedRank: x has ${x.length} values, y ${y.length}`);
  }
  const differences: number[] = [];
  let zeros = 0;
  for (let i = 0; i < x.length; i++) {
    const d = y === undefined ? x[i]! : x[i]! - y[i]!;
    if (Number.isNaN(d)) throw new RangeError(`wilcoxonSignedRank: NaN at index ${i}`);
    if (d === 0) zeros++;
    else differences.push(d);
  }
  const n = differences.length;
  if (n === 0)
    throw new RangeError("wilcoxonSignedRank: every difference is zero; the test is undefined");
  const order = differences
    .map((_, i) => i)
    .sort((i, j) => Math.abs(differences[i]!) - Math.abs(differences[j]!));
  // Doubled midranks are integers: 2·rank of a tie group spanning positions lo..hi (1-based) is lo + hi.
  const doubledRanks = new Int32Array(n);
  let tieCorrection = 0;
  for (let lo = 0; lo < n; ) {
    let hi = lo;
    const magnitude = Math.abs(differences[order[lo]!]!);
    while (hi + 1 < n && Math.abs(differences[order[hi + 1]!]!) === magnitude) hi++;
    const t = hi - lo + 1;
    tieCorrection += t * (t * t - 1);
    for (let k = lo; k <= hi; k++) doubledRanks[order[k]!] = lo + 1 + (hi + 1);
    lo = hi + 1;
  }
  let doubledPlus = 0;
  for (let i = 0; i < n; i++) if (differences[i]! > 0) doubledPlus += doubledRanks[i]!;
  const doubledTotal = n * (n + 1);
  const rankSumPositive = doubledPlus / 2;
  const rankSumNegative = (doubledTotal - doubledPlus) / 2;
  const alternative = options.alternative ?? "two-sided";
  const statistic =
    alternative === "two-sided" ? Math.min(rankSumPositive, rankSumNegative) : rankSumPositive;
  const method =
    options.method === undefined || options.method === "auto"
      ? n <= 50
        ? "exact"
        : "approx"
      : options.method;
  const base = { statistic, n, zeros, rankSumPositive, rankSumNegative };
  if (method === "exact") {
    const distribution = signedRankDistribution(doubledRanks);
    let below = 0; // P(R+ ≤ observed)
    let above = 0; // P(R+ ≥ observed)
    for (let s = 0; s < distribution.length; s++) {
      if (s <= doubledPlus) below += distribution[s]!;
      if (s >= doubledPlus) above += distribution[s]!;
    }
    const pValue =
      alternative === "greater"
        ? above
        : alternative === "less"
          ? below
          : Math.min(1, 2 * Math.min(below, above));
    return { ...base, pValue, method: "exact" };
  }
  const mean = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieCorrection / 2) / 24);
  const T = alternative === "two-sided" ? statistic : rankSumPositive;
  let shift = 0;
  if (options.correction === true) {
    shift =
      alternative === "two-sided" ? 0.5 * Math.sign(T - mean) : alternative === "less" ? -0.5 : 0.5;
  }
  const z = (T - mean - shift) / sd;
  const pValue =
    alternative === "two-sided"
      ? Math.min(1, 2 * normalSurvival(Math.abs(z)))
      : alternative === "greater"
        ? normalSurvival(z)
        : normalSurvival(-z);
  return { ...base, pValue, method: "approx", z };
}

/**
 * P(2·R+ = s) for s = 0..Σ doubled ranks when each rank's sign is a fair coin: a subset-sum
 * count over the doubled (integer) ranks. Counts stay exact in doubles up to n = 52.
 */
function signedRankDistribution(doubledRanks: Int32Array): Float64Array {
  let total = 0;
  for (const r of doubledRanks) total += r;
  const ways = new Float64Array(total + 1);
  ways[0] = 1;
  let reach = 0;
  for (const r of doubledRanks) {
    for (let s = reach; s >= 0; s--) if (ways[s]! !== 0) ways[s + r]! += ways[s]!;
    reach += r;
  }
  const scale = 2 ** -doubledRanks.length;
  for (let s = 0; s <= total; s++) ways[s]! *= scale;
  return ways;
}

/** P(Z > z) for a standard normal Z (relative error below 1e-12 against scipy's norm.sf). */
export function normalSurvival(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) {
    // erf(x) = 2/√π · e^{−x²} · Σ_k 2^k x^{2k+1} / (1·3···(2k+1)): all terms positive.
    let term = x;
    let sum = x;
    for (let k = 1; k < 200; k++) {
      term *= (2 * x * x) / (2 * k + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  // Continued fraction erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), by Lentz.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const step = c * d;
    f *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}
