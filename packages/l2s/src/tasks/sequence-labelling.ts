import type { ChainScores } from "@lagrange/core";
import { HashedFeatures, hashString } from "../features/hashing.js";
import { addConditionFeatures, BIAS_HASH, type LearnedPolicy } from "../search/policy.js";
import type { Features, SearchTask } from "../search/types.js";

/**
 * Every token's features hashed once, flattened: token `t` owns `hashes[offsets[t]] …
 * hashes[offsets[t + 1] − 1]` (values parallel, or null when all are 1). The shape of chain-crf's
 * attribute lists, so a CRF preset's attributes serve as they are: the same features for both.
 */
export interface TokenFeatures {
  readonly length: number;
  readonly offsets: Int32Array;
  readonly hashes: Uint32Array;
  readonly values: Float32Array | null;
}

/** One sentence to label: its tokens' features and, for training, the gold label ids. */
export interface LabellingExample {
  readonly tokens: TokenFeatures;
  readonly gold?: Int32Array;
}

/**
 * What keeps a left-to-right labeller inside the rules (the constraint bridge): per position, the
 * labels still allowed given the labels committed so far, and the soft costs of each.
 */
export interface LabelGuide {
  /** Writes the allowed labels at `position` and their soft costs; returns how many. */
  allowedAt(position: number, allowed: Int32Array, costs: Float64Array): number;
  /** Fixes the label at `position` (positions come in order 0, 1, …). */
  commit(position: number, label: number): void;
}

export interface SequenceLabellingOptions {
  /** The label names; actions are their indices. */
  readonly labels: readonly string[];
  /** How many previous predictions a decision conditions on (1: first order, as a CRF; 2). Default 1. */
  readonly history?: 1 | 2;
  /**
   * Class weights by label id (> 0): a mistake at a token of gold label g costs `labelWeights[g]`
   * instead of 1, in the loss (so in roll-outs) and in the one-step costs. Default all 1.
   */
  readonly labelWeights?: ArrayLike<number>;
  /**
   * The constraint bridge for a sentence (BIO validity, counts), ready at position 0 (it is asked
   * again for every run — roll-in and each roll-out — of the example): the labeller never leaves
   * the labels it allows, and pays its soft costs. Absent, or undefined for a sentence: no rules.
   * The bridge's `SequenceConstraints.track` is one.
   */
  readonly guide?: (example: LabellingExample) => LabelGuide | undefined;
}

/**
 * chang2016's Algorithm 1: label tokens left to right, each decision conditioned on the previous
 * one(s); the loss is the Hamming loss against the gold labels. With a guide (the constraint
 * bridge) the allowed labels come from the rules, so no invalid sequence can come out.
 */
export function sequenceLabelling(
  options: SequenceLabellingOptions,
): SearchTask<LabellingExample, Int32Array> {
  const L = options.labels.length;
  const history = options.history ?? 1;
  if (L < 1) throw new RangeError("sequence labelling needs at least one label");
  if (history !== 1 && history !== 2) throw new RangeError(`history ${history}: expected 1 or 2`);
  const weights = options.labelWeights;
  if (weights !== undefined) {
    if (weights.length !== L) {
      throw new RangeError(`labelWeights: ${weights.length} weights for ${L} labels`);
    }
    for (let y = 0; y < L; y++) {
      if (!(weights[y]! > 0 && Number.isFinite(weights[y]!))) {
        throw new RangeError(`labelWeights[${y}] = ${weights[y]}: expected a finite number > 0`);
      }
    }
  }
  // One-step costs of a weighted mistake: by action, or parallel to the guide's allowed labels.
  const referenceCosts = new Float64Array(L);
  const referenceViews = Array.from({ length: L + 1 }, (_, c) => referenceCosts.subarray(0, c));
  const allowed = new Int32Array(L);
  const costs = new Float64Array(L);
  // Views of every length, made once: a decision hands over the first `count` entries.
  const allowedViews = Array.from({ length: L + 1 }, (_, c) => allowed.subarray(0, c));
  const costViews = Array.from({ length: L + 1 }, (_, c) => costs.subarray(0, c));
  const previous1 = [0];
  const previous2 = [0, 0];
  // The token being decided: `predict` calls the features while it decides, never later.
  let current: TokenFeatures | undefined;
  let first = 0;
  let last = 0;
  const tokenFeatures: Features = (sink) => {
    const { hashes, values } = current!;
    for (let k = first; k < last; k++) sink.addHash(hashes[k]!, values?.[k] ?? 1);
  };
  /**
   * 0 for the gold label, `w` for the others: by action (`count` −1), or parallel to the first
   * `count` allowed labels; undefined when the gold label is not allowed (the plain reference then
   * leaves the choice to the learned policy, as without weights).
   */
  const weightedCosts = (g: number, w: number, count: number): Float64Array | undefined => {
    if (w === 1) return undefined;
    if (count < 0) {
      for (let a = 0; a < L; a++) referenceCosts[a] = a === g ? 0 : w;
      return referenceCosts;
    }
    let found = false;
    for (let j = 0; j < count; j++) {
      const isGold = allowed[j] === g;
      found ||= isGold;
      referenceCosts[j] = isGold ? 0 : w;
    }
    return found ? referenceViews[count] : undefined;
  };
  return {
    name: "sequence-labelling",
    actionSpaces: [{ name: "label", actions: L }],
    run(example, search) {
      const { tokens, gold } = example;
      const n = tokens.length;
      const output = new Int32Array(n);
      const guide = options.guide?.(example);
      for (let i = 0; i < n; i++) {
        const count = guide === undefined ? 0 : guide.allowedAt(i, allowed, costs);
        // Position 0 conditions on nothing, but says so: its features too are the example's alone.
        let conditionOn: readonly number[] = NOTHING;
        if (i >= 2 && history === 2) {
          previous2[0] = i - 1;
          previous2[1] = i - 2;
          conditionOn = previous2;
        } else if (i >= 1) {
          previous1[0] = i - 1;
          conditionOn = previous1;
        }
        current = tokens;
        first = tokens.offsets[i]!;
        last = tokens.offsets[i + 1]!;
        const weighted =
          gold === undefined || weights === undefined
            ? undefined
            : weightedCosts(gold[i]!, weights[gold[i]!]!, guide === undefined ? -1 : count);
        const label = search.predict({
          features: tokenFeatures,
          ...(gold === undefined ? {} : { reference: gold[i]! }),
          ...(weighted === undefined ? {} : { referenceCosts: weighted }),
          ...(guide === undefined
            ? {}
            : { allowed: allowedViews[count]!, allowedCosts: costViews[count]! }),
          conditionOn,
          tag: i,
        });
        guide?.commit(i, label);
        output[i] = label;
        if (gold !== undefined && label !== gold[i]) search.loss(weights?.[gold[i]!] ?? 1);
      }
      return output;
    },
  };
}

const NOTHING: readonly number[] = [];

/**
 * Hashes attribute lists (chain-crf's `AttributeSequence`, or any names per token) into
 * {@link TokenFeatures}: one string hash per attribute, once per sentence.
 */
export function hashTokenAttributes(attributes: {
  readonly offsets: Int32Array;
  readonly names: readonly string[];
  readonly values: Float64Array | null;
}): TokenFeatures {
  const { offsets, names, values } = attributes;
  const hashes = new Uint32Array(names.length);
  for (let k = 0; k < names.length; k++) hashes[k] = hashString(names[k]!);
  return {
    length: offsets.length - 1,
    offsets,
    hashes,
    values: values === null ? null : Float32Array.from(values),
  };
}

/**
 * A first-order labelling policy (`history` 1, the default) read as chain scores — a second-order
 * one has features of two previous labels, which no chain's transition holds: the policy's cost at position i for label b
 * after label a is input(i, b) + condition(a, b) (its features are the token's, plus the previous
 * label's, and it is linear), so unary = −input and transition = −condition. Greedy decoding of
 * these scores — the registry's `greedy` decoder — is exactly the policy's own prediction; any other
 * decoder (Viterbi, soft-dd, exact ILP under constraints) can decode an L2S model too.
 */
export class SequenceScores {
  readonly L: number;
  private readonly transition: Float64Array;
  private readonly features = new HashedFeatures();
  private readonly row: Float64Array;

  constructor(private readonly policy: LearnedPolicy) {
    if (policy.learners.length !== 1) {
      throw new RangeError(
        `a labelling policy has one action space; this one has ${policy.learners.length}`,
      );
    }
    const learner = policy.learners[0]!;
    const L = learner.actions;
    this.L = L;
    this.row = new Float64Array(L);
    this.transition = new Float64Array(L * L);
    const previous = new Int32Array(1);
    for (let a = 0; a < L; a++) {
      previous[0] = a;
      this.features.clear();
      addConditionFeatures(previous, 1, this.features);
      this.row.fill(0);
      learner.addScores(this.features, this.row);
      for (let b = 0; b < L; b++) this.transition[a * L + b] = -this.row[b]!;
    }
  }

  /** The chain scores of one sentence (fresh arrays; the transition block is shared). */
  scores(tokens: TokenFeatures): ChainScores {
    const { L } = this;
    const n = tokens.length;
    const learner = this.policy.learners[0]!;
    const unary = new Float64Array(n * L);
    for (let i = 0; i < n; i++) {
      this.features.clear();
      for (let k = tokens.offsets[i]!; k < tokens.offsets[i + 1]!; k++) {
        this.features.addHash(tokens.hashes[k]!, tokens.values?.[k] ?? 1);
      }
      this.features.addHash(BIAS_HASH);
      this.row.fill(0);
      learner.addScores(this.features, this.row);
      for (let b = 0; b < L; b++) unary[i * L + b] = -this.row[b]!;
    }
    return { n, L, unary, transition: this.transition };
  }
}
