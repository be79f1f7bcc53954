import {
  AbortError,
  type ChainScores,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type Decoding,
  ProblemValidationError,
  seededRandom,
  shuffleInPlace,
  yieldToEventLoop,
} from "@lagrange/core";
import { concatenateChains } from "./group-chain.js";
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
  readonly signal?: AbortSignal;
}

export interface ConsistencyTrainingResult {
  /** The averaged weights. */
  readonly weights: Float64Array;
  /** Mistaken positions per epoch (with the weights of that epoch's steps). */
  readonly mistakes: readonly number[];
  /** Decodings that ended certified, of all decodings made. */
  readonly certified: number;
  readonly decodings: number;
}

/**
 * Averaged structured perceptron (Collins 2002) over the consistency weights, decoding each group
 * with **any** decoder (two-slave, naive DD, exact), as qian-liu2014 trains its general CRFs. The
 * chain part stays the trained CRF's: on a mistake, w += φ(gold) − φ(predicted) over the
 * consistency features only. Averages use the lazy trick (w − ws/c). Only groups with factors are
 * visited: elsewhere the weights change nothing.
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
  const mistakesPerEpoch: number[] = [];
  let certified = 0;
  let decodings = 0;
  const decodeOptions: DecodeOptions = {
    ...options.decodeOptions,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let c = 1;
  for (let epoch = 1; epoch <= epochs; epoch++) {
    shuffleInPlace(order, random);
    let mistakes = 0;
    for (let k = 0; k < order.length; k++) {
      if (options.signal?.aborted) throw new AbortError();
      const x = useful[order[k]!]!;
      const gold = x.gold!;
      const decoding: Decoding = decoder.decode(groupProblem(x, current), decodeOptions);
      decodings++;
      if (decoding.certified) certified++;
      let wrong = 0;
      for (let i = 0; i < gold.length; i++) if (decoding.labels[i] !== gold[i]) wrong++;
      if (wrong > 0) {
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
        for (let f = 0; f < K; f++) {
          const delta = goldCounts[f]! - predictedCounts[f]!;
          if (delta === 0) continue;
          let next = w[f]! + rate * delta;
          if (nonNegative && next < 0) next = 0;
          ws[f]! += c * (next - w[f]!);
          w[f] = next;
        }
        mistakes += wrong;
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
    mistakesPerEpoch.push(mistakes);
  }
  const weights = new Float64Array(K);
  for (let f = 0; f < K; f++) {
    weights[f] = w[f]! - ws[f]! / c;
    if (nonNegative && weights[f]! < 0) weights[f] = 0;
  }
  return { weights, mistakes: mistakesPerEpoch, certified, decodings };
}
