import {
  AbortError,
  type ChainScores,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type Decoding,
  ProblemValidationError,
  scoreLabelling,
  seededRandom,
  shuffleInPlace,
  yieldToEventLoop,
} from "@lagrange/core";
import { concatenateChains } from "@lagrange/core/chain";
import {
  CONSISTENCY_FEATURES,
  type ConsistencyFactor,
  type ConsistencyFactorOptions,
  consistencyFeatureCounts,
  consistencyPatterns,
  findConsistencyFactors,
} from "./patterns.js";

/**
 * The higher-order part of a general CRF (qian-liu2014 §4.1.3): consistency weights, one per
 * feature of `consistencyFeature`, over the label subsequences allowed for each phrase length.
 * The chain part comes from any chain model (our CRF); the two add up.
 */
export interface ConsistencyModel {
  readonly L: number;
  /** Label id of the outside label (O): outside-only agreement has its own weights. */
  readonly outsideLabel: number;
  /** `subsequences[ℓ]`: the allowed label subsequences of length ℓ, flat (see labelSubsequences). */
  readonly subsequences: readonly Int32Array[];
  readonly weights: Float64Array;
  readonly factorOptions: ConsistencyFactorOptions;
}

/** One group (a tweet cluster or a document) ready to decode: one chain and its factors. */
export interface GroupInstance {
  /** The sentences' chains laid end to end (position-specific transitions). */
  readonly chain: ChainScores;
  /** First position of each sentence in the group. */
  readonly starts: Int32Array;
  readonly factors: readonly ConsistencyFactor[];
  /** Gold label ids per group position, for training. */
  readonly gold?: Int32Array;
}

/** Builds a group's instance from its sentences' chain scores and tokens (and gold labels). */
export function groupInstance(
  chains: readonly ChainScores[],
  tokens: readonly (readonly string[])[],
  factorOptions: ConsistencyFactorOptions = {},
  gold?: readonly ArrayLike<number>[],
): GroupInstance {
  if (chains.length !== tokens.length) {
    throw new ProblemValidationError(
      "tokens",
      `expected one token list per chain (${chains.length}), got ${tokens.length}`,
    );
  }
  const { scores, starts } = concatenateChains(chains);
  const flat = tokens.flat();
  if (flat.length !== scores.n) {
    throw new ProblemValidationError(
      "tokens",
      `the sentences have ${flat.length} tokens but their chains ${scores.n} positions`,
    );
  }
  const factors = findConsistencyFactors(flat, starts, factorOptions);
  let goldLabels: Int32Array | undefined;
  if (gold !== undefined) {
    goldLabels = new Int32Array(scores.n);
    gold.forEach((labels, p) => {
      goldLabels!.set(Array.from(labels), starts[p]!);
    });
  }
  return {
    chain: scores,
    starts,
    factors,
    ...(goldLabels === undefined ? {} : { gold: goldLabels }),
  };
}

/** The decode problem of a group under a consistency model: its chain plus its pattern factors. */
export function groupProblem(instance: GroupInstance, model: ConsistencyModel): DecodeProblem {
  const patterns = consistencyPatterns(
    instance.factors,
    model.subsequences,
    model.weights,
    model.outsideLabel,
  );
  return patterns.length === 0 ? { scores: instance.chain } : { scores: instance.chain, patterns };
}

/** Splits a group's labelling back into one labelling per sentence. */
export function sentenceLabels(instance: GroupInstance, labels: Int32Array): Int32Array[] {
  const { starts } = instance;
  return Array.from(starts, (from, p) =>
    labels.slice(from, p + 1 < starts.length ? starts[p + 1]! : labels.length),
  );
}

export interface ConsistencyTrainingProgress {
  readonly epoch: number;
  readonly epochs: number;
  /** Groups decoded in this epoch so far, of `groups` (only groups with factors are visited). */
  readonly done: number;
  readonly groups: number;
  /** Positions decoded wrongly in this epoch so far. */
  readonly mistakes: number;
}

export interface ConsistencyTrainingOptions {
  /** Passes over the groups (default 10, as the paper). */
  readonly epochs?: number;
  /** Seed of the per-epoch shuffle (default 0). */
  readonly seed?: number;
  /**
   * Keep every weight ≥ 0 (default true): a consistency feature rewards agreement. A negative
   * weight would say identical phrases should differ, and it would need ψ > 0 in the min-cut slave,
   * whose relaxation is then loose (notes on the reference code, §7).
   */
  readonly nonNegative?: boolean;
  /**
   * Step of each update, w += rate·(φ(gold) − φ(predicted)) (default 0.01). The chain part keeps
   * its trained scale (weight 1 on the CRF score), so unlike a perceptron that learns every
   * weight, the scale of the steps matters: a group with many factors changes its counts by tens,
   * and unit steps would let consistency outweigh the CRF after one mistake.
   */
  readonly learningRate?: number;
  /** Per-decode options (iteration cap, tolerance) for the decoder. */
  readonly decodeOptions?: DecodeOptions;
  readonly onProgress?: (progress: ConsistencyTrainingProgress) => void;
  /**
   * Called after each epoch with the averaged weights so far (a fresh array): what training would
   * return if it stopped here. A caller picks the number of epochs on held-out data with it.
   */
  readonly onEpoch?: (epoch: number, averaged: Float64Array) => void | Promise<void>;
  readonly signal?: AbortSignal;
}

/** What one epoch of the perceptron did. */
export interface ConsistencyEpochStats {
  /** Positions decoded wrongly (with the weights of that epoch's steps). */
  readonly mistakes: number;
  readonly decodings: number;
  /** Decodings that ended certified (proved optimal). */
  readonly certified: number;
  /** Mistaken decodings that scored at least the gold: the perceptron's updates. */
  readonly updates: number;
  /**
   * Mistaken decodings that scored below the gold under the current weights: the decoder (not
   * certified) did not find the model's best labelling, so the mistake says nothing against the
   * weights and no update is made (Huang et al. 2012's violation-fixing perceptron).
   */
  readonly skipped: number;
}

export interface ConsistencyTrainingResult {
  /** The averaged weights. */
  readonly weights: Float64Array;
  /** Mistaken positions per epoch (with the weights of that epoch's steps). */
  readonly mistakes: readonly number[];
  /** Per epoch: mistakes, decodings, certified, updates, skipped. */
  readonly epochs: readonly ConsistencyEpochStats[];
  /** Decodings that ended certified, of all decodings made. */
  readonly certified: number;
  readonly decodings: number;
}

/**
 * Averaged structured perceptron (Collins 2002) over the consistency weights, decoding each group
 * with **any** decoder (two-slave, naive DD, exact), as qian-liu2014 trains its general CRFs. The
 * chain part stays the trained CRF's: on a mistake, w += rate·(φ(gold) − φ(predicted)) over the
 * consistency features only. Averages use the lazy trick (w − ws/c). Only groups with factors are
 * visited: elsewhere the weights change nothing.
 *
 * An update is made only for a *violation*: a mistaken labelling that scores at least as high as
 * the gold under the current weights. A relaxation that stops uncertified may return a labelling
 * below the gold's score; updating towards the gold from it moves the weights on the decoder's
 * failure, not the model's, and breaks the perceptron's convergence argument (Huang, Fayong and
 * Guo 2012). Such decodings are counted (`skipped`) and left out. With an exact decoder nothing
 * is skipped, and on separable groups (some weights make every gold the unique best labelling)
 * the updates stop: the tests check both on small random instances.
 */
export async function trainConsistencyWeights(
  instances: readonly GroupInstance[],
  model: Omit<ConsistencyModel, "weights">,
  decoder: Decoder,
  options: ConsistencyTrainingOptions = {},
): Promise<ConsistencyTrainingResult> {
  const epochs = options.epochs ?? 10;
  if (!Number.isInteger(epochs) || epochs < 1) {
    throw new ProblemValidationError("options.epochs", `expected an integer ≥ 1, got ${epochs}`);
  }
  const nonNegative = options.nonNegative ?? true;
  const rate = options.learningRate ?? 0.01;
  if (!(rate > 0 && Number.isFinite(rate))) {
    throw new ProblemValidationError("options.learningRate", `expected a number > 0, got ${rate}`);
  }
  const K = CONSISTENCY_FEATURES;
  const w = new Float64Array(K);
  const ws = new Float64Array(K);
  const current: ConsistencyModel = { ...model, weights: w };
  const useful = instances.filter((x) => x.factors.length > 0);
  for (const [k, x] of useful.entries()) {
    if (x.gold === undefined) {
      throw new ProblemValidationError(`instances[${k}].gold`, "training needs gold labels");
    }
  }
  const order = Int32Array.from({ length: useful.length }, (_, i) => i);
  const random = seededRandom(options.seed ?? 0);
  const goldCounts = new Float64Array(K);
  const predictedCounts = new Float64Array(K);
  const stats: ConsistencyEpochStats[] = [];
  let certified = 0;
  let decodings = 0;
  const decodeOptions: DecodeOptions = {
    ...options.decodeOptions,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let c = 1;
  const averaged = (): Float64Array => {
    const out = new Float64Array(K);
    for (let f = 0; f < K; f++) {
      out[f] = w[f]! - ws[f]! / c;
      if (nonNegative && out[f]! < 0) out[f] = 0;
    }
    return out;
  };
  for (let epoch = 1; epoch <= epochs; epoch++) {
    shuffleInPlace(order, random);
    let mistakes = 0;
    let epochCertified = 0;
    let updates = 0;
    let skipped = 0;
    for (let k = 0; k < order.length; k++) {
      if (options.signal?.aborted) throw new AbortError();
      const x = useful[order[k]!]!;
      const gold = x.gold!;
      const decoding: Decoding = decoder.decode(groupProblem(x, current), decodeOptions);
      decodings++;
      if (decoding.certified) {
        certified++;
        epochCertified++;
      }
      let wrong = 0;
      for (let i = 0; i < gold.length; i++) if (decoding.labels[i] !== gold[i]) wrong++;
      if (wrong > 0) {
        mistakes += wrong;
        goldCounts.fill(0);
        predictedCounts.fill(0);
        consistencyFeatureCounts(
          x.factors,
          model.subsequences,
          gold,
          model.outsideLabel,
          goldCounts,
        );
        consistencyFeatureCounts(
          x.factors,
          model.subsequences,
          decoding.labels,
          model.outsideLabel,
          predictedCounts,
        );
        if (isViolation(x, gold, decoding.labels, w, goldCounts, predictedCounts)) {
          updates++;
          for (let f = 0; f < K; f++) {
            const delta = goldCounts[f]! - predictedCounts[f]!;
            if (delta === 0) continue;
            let next = w[f]! + rate * delta;
            if (nonNegative && next < 0) next = 0;
            ws[f]! += c * (next - w[f]!);
            w[f] = next;
          }
        } else {
          skipped++;
        }
      }
      c++;
      options.onProgress?.({
        epoch,
        epochs,
        done: k + 1,
        groups: order.length,
        mistakes,
      });
      if (k % 16 === 15) await yieldToEventLoop();
    }
    stats.push({
      mistakes,
      decodings: order.length,
      certified: epochCertified,
      updates,
      skipped,
    });
    await options.onEpoch?.(epoch, averaged());
  }
  const weights = averaged();
  return {
    weights,
    mistakes: stats.map((e) => e.mistakes),
    epochs: stats,
    certified,
    decodings,
  };
}

/**
 * Whether a mistaken labelling is a violation: its model score (chain + consistency under `w`) is
 * at least the gold's, up to rounding. A gold the chain forbids (−∞) makes every labelling one.
 */
function isViolation(
  x: GroupInstance,
  gold: Int32Array,
  predicted: Int32Array,
  w: Float64Array,
  goldCounts: Float64Array,
  predictedCounts: Float64Array,
): boolean {
  let goldScore = scoreLabelling(x.chain, gold);
  let predictedScore = scoreLabelling(x.chain, predicted);
  if (predictedScore === Number.NEGATIVE_INFINITY) return false;
  if (goldScore === Number.NEGATIVE_INFINITY) return true;
  for (let f = 0; f < w.length; f++) {
    goldScore += w[f]! * goldCounts[f]!;
    predictedScore += w[f]! * predictedCounts[f]!;
  }
  return predictedScore >= goldScore - 1e-9 * Math.max(1, Math.abs(goldScore));
}
