import { seededRandom, throwIfAborted } from "@lagrange/core";
import { f1FromCounts, LabellingScorer, type LabelScheme } from "@lagrange/datasets";

// Scores per sentence, bootstrap

/** Per-sentence sufficient statistics of a labelling's score, row-major sentences × width. */
export interface SentenceStats {
  readonly units: number;
  readonly width: number;
  readonly stats: Float64Array;
  /** The corpus score (a fraction) from column sums. */
  readonly metric: (sums: Float64Array) => number;
}

/** Token accuracy from summed (correct, tokens). */
export function accuracyFromCounts(sums: Float64Array): number {
  const tokens = sums[1]!;
  return tokens > 0 ? sums[0]! / tokens : 0;
}

/**
 * Per-sentence statistics through datasets' one scorer (a scorer per sentence): chunk counts
 * (correct, predicted, gold) under the scheme, or (correct, tokens) for plain tags. Their sums give
 * the corpus score, since the scorer's chunk state ends at every sentence.
 */
export function sentenceStats(
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
  scheme: LabelScheme,
): SentenceStats {
  const accuracy = scheme === "none";
  const width = accuracy ? 2 : 3;
  const stats = new Float64Array(gold.length * width);
  for (let s = 0; s < gold.length; s++) {
    const scorer = new LabellingScorer(scheme);
    scorer.add(gold[s]!, predicted[s]!);
    const score = scorer.score();
    if (score.kind === "accuracy") {
      stats[s * 2] = score.correct;
      stats[s * 2 + 1] = score.tokens;
    } else {
      const e = score.evaluation;
      stats[s * 3] = e.correctChunks;
      stats[s * 3 + 1] = e.predictedChunks;
      stats[s * 3 + 2] = e.goldChunks;
    }
  }
  return { units: gold.length, width, stats, metric: accuracy ? accuracyFromCounts : f1FromCounts };
}

/**
 * The percentile bootstrap over units: `samples` resamples of the units with replacement (seeded),
 * the metric of each, and the 2.5 % and 97.5 % quantiles (drawn and read off as datasets'
 * pairedBootstrap does, so that the two agree).
 */
export function bootstrapInterval(
  input: SentenceStats,
  options: {
    readonly samples?: number;
    readonly seed?: number;
    readonly signal?: AbortSignal;
  } = {},
): [number, number] {
  const { units, width, stats, metric } = input;
  if (units < 1) throw new RangeError("bootstrapInterval: need at least one unit");
  const samples = options.samples ?? 1000;
  const random = seededRandom(options.seed ?? 1);
  const sums = new Float64Array(width);
  const values = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    if ((s & 63) === 0) throwIfAborted(options.signal);
    sums.fill(0);
    for (let draw = 0; draw < units; draw++) {
      const u = Math.floor(random() * units);
      for (let k = 0; k < width; k++) sums[k]! += stats[u * width + k]!;
    }
    values[s] = metric(sums);
  }
  values.sort();
  const quantile = (q: number) => values[Math.min(samples - 1, Math.floor(q * samples))]!;
  return [quantile(0.025), quantile(0.975)];
}
