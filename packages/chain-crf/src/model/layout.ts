import type { CompiledDataset } from "./dataset.js";

/**
 * Where every feature's weight lives in the flat weight vector (CRFsuite's layout):
 *   [0, S)            state features: attribute a owns ids attributeOffsets[a] .. attributeOffsets[a+1),
 *                     feature f scoring label featureLabels[f] (ascending within an attribute)
 *   [T, T + L·L)      label bigrams, T = transitionBase, weight of a → b at T + a·L + b
 *   [start, +L)       first-label weights (startBase = −1 when the model has none)
 *   [end, +L)         last-label weights (endBase = −1 when none)
 *   [TA, TA + F)      observation-conditioned bigrams: transition attribute a owns ids
 *                     transitionAttributeOffsets[a] .. [a+1), feature f scoring the label pair
 *                     transitionFeaturePairs[f] = prev·L + cur
 * Plain data (numbers and typed arrays), so it is structured-clonable and fits in a model file.
 */
export interface FeatureLayout {
  readonly numLabels: number;
  readonly numAttributes: number;
  readonly attributeOffsets: Int32Array;
  readonly featureLabels: Int32Array;
  readonly transitionBase: number;
  readonly startBase: number;
  readonly endBase: number;
  readonly numTransitionAttributes: number;
  readonly transitionAttributeOffsets: Int32Array;
  readonly transitionFeaturePairs: Int32Array;
  readonly transitionAttributeBase: number;
  readonly numWeights: number;
}

export interface LayoutOptions {
  /** Every (attribute, label) pair instead of only those seen in training (CRFsuite's possible_states). */
  readonly dense?: boolean;
  /** Drop (attribute, label) pairs seen fewer times than this in training. Default 1. */
  readonly minFeatureFrequency?: number;
  /** Weights for the first and the last label. Default true. */
  readonly startEnd?: boolean;
}

interface StateFeatures {
  readonly attributeOffsets: Int32Array;
  readonly featureLabels: Int32Array;
}

function denseStateFeatures(numAttributes: number, L: number): StateFeatures {
  const attributeOffsets = new Int32Array(numAttributes + 1);
  const featureLabels = new Int32Array(numAttributes * L);
  for (let a = 0; a < numAttributes; a++) {
    attributeOffsets[a] = a * L;
    for (let t = 0; t < L; t++) featureLabels[a * L + t] = t;
  }
  attributeOffsets[numAttributes] = numAttributes * L;
  return { attributeOffsets, featureLabels };
}

/**
 * Below this many (attribute, label) pairs a dense counter is used whatever the corpus: 64 MB of
 * counts, and a plain array walk is faster than sorting keys.
 */
const DENSE_COUNTER_PAIRS = 1 << 24;

/**
 * The (attribute, label) pairs seen at least `minFreq` times, by attribute then label. A dense
 * counter of A·L cells when that is small or not much more than the occurrences themselves;
 * otherwise sorted keys, so memory follows the corpus and not A·L (10,000 labels × 50,000
 * attributes would be a 2 GB counter for a 165 KB file).
 */
export function observedStateFeatures(
  dataset: CompiledDataset,
  numAttributes: number,
  L: number,
  minFreq: number,
  method: "auto" | "dense" | "sorted" = "auto",
): StateFeatures {
  const cells = numAttributes * L;
  if (method === "dense" || (method === "auto" && cells <= DENSE_COUNTER_PAIRS)) {
    return denseCountedFeatures(dataset, numAttributes, L, minFreq);
  }
  const pairs = occurrenceLabelPairs(dataset);
  return method === "auto" && cells <= 2 * pairs
    ? denseCountedFeatures(dataset, numAttributes, L, minFreq)
    : sortedCountedFeatures(dataset, numAttributes, L, minFreq, pairs);
}

/**
 * How many (occurrence, label) pairs the counters see, counted per token (a step a token, not an
 * occurrence).
 */
function occurrenceLabelPairs(dataset: CompiledDataset): number {
  const { offsets } = dataset.state;
  const gold = dataset.labels;
  const sets = dataset.labelSets;
  let pairs = 0;
  for (let j = 0; j < dataset.numTokens; j++) {
    const labels = gold[j]! >= 0 ? 1 : sets == null ? 0 : sets.offsets[j + 1]! - sets.offsets[j]!;
    pairs += labels * (offsets[j + 1]! - offsets[j]!);
  }
  return pairs;
}

/**
 * {@link observedStateFeatures} with one counter per (attribute, label): simple and linear; the
 * counter is freed on return. Every (occurrence, label) pair is counted: a labelled token's, or
 * each label of its set. (A token restricted to a label set may carry any of them: each gets the
 * features, else a label seen only inside sets, such as O in one-type-per-subset annotations, has
 * none.)
 */
function denseCountedFeatures(
  dataset: CompiledDataset,
  numAttributes: number,
  L: number,
  minFreq: number,
): StateFeatures {
  const { offsets, ids } = dataset.state;
  const gold = dataset.labels;
  const sets = dataset.labelSets;
  const attributeOffsets = new Int32Array(numAttributes + 1);
  // `sortedCountedFeatures` walks the same pairs: each keeps its own copy of the loop, as a
  // callback per occurrence costs.
  const counts = new Uint32Array(numAttributes * L);
  for (let j = 0; j < dataset.numTokens; j++) {
    const y = gold[j]!;
    if (y >= 0) {
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) counts[ids[k]! * L + y]!++;
      continue;
    }
    if (sets == null) continue;
    for (let s = sets.offsets[j]!; s < sets.offsets[j + 1]!; s++) {
      const t = sets.ids[s]!;
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) counts[ids[k]! * L + t]!++;
    }
  }
  let total = 0;
  for (let c = 0; c < counts.length; c++) if (counts[c]! >= minFreq) total++;
  const featureLabels = new Int32Array(total);
  let f = 0;
  for (let a = 0; a < numAttributes; a++) {
    attributeOffsets[a] = f;
    const base = a * L;
    for (let t = 0; t < L; t++) if (counts[base + t]! >= minFreq) featureLabels[f++] = t;
  }
  attributeOffsets[numAttributes] = f;
  return { attributeOffsets, featureLabels };
}

/**
 * {@link observedStateFeatures} from the `pairs` (occurrence, label) pairs that
 * {@link denseCountedFeatures} counts, as keys attribute·L + label, sorted and counted by runs:
 * memory follows the corpus, not A·L.
 */
function sortedCountedFeatures(
  dataset: CompiledDataset,
  numAttributes: number,
  L: number,
  minFreq: number,
  pairs: number,
): StateFeatures {
  const { offsets, ids } = dataset.state;
  const gold = dataset.labels;
  const sets = dataset.labelSets;
  const keys = new Float64Array(pairs);
  let at = 0;
  for (let j = 0; j < dataset.numTokens; j++) {
    const y = gold[j]!;
    if (y >= 0) {
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) keys[at++] = ids[k]! * L + y;
      continue;
    }
    if (sets == null) continue;
    for (let s = sets.offsets[j]!; s < sets.offsets[j + 1]!; s++) {
      const t = sets.ids[s]!;
      for (let k = offsets[j]!; k < offsets[j + 1]!; k++) keys[at++] = ids[k]! * L + t;
    }
  }
  const attributeOffsets = new Int32Array(numAttributes + 1);
  const total = keepFrequent(keys, minFreq);
  const featureLabels = splitKeys(keys, total, numAttributes, L, attributeOffsets);
  return { attributeOffsets, featureLabels };
}

/**
 * Sorts `keys` and moves each key that occurs at least `minFreq` times, once, to the front, in
 * order; returns how many there are.
 */
function keepFrequent(keys: Float64Array, minFreq: number): number {
  keys.sort();
  let total = 0;
  for (let k = 0; k < keys.length; ) {
    let e = k;
    while (e < keys.length && keys[e] === keys[k]) e++;
    if (e - k >= minFreq) keys[total++] = keys[k]!;
    k = e;
  }
  return total;
}

/**
 * The first `total` of the sorted keys owner·width + value split by owner: the values, owner a's
 * at offsets[a] .. offsets[a + 1) (`offsets` has owners + 1 entries, filled here).
 */
function splitKeys(
  keys: Float64Array,
  total: number,
  owners: number,
  width: number,
  offsets: Int32Array,
): Int32Array<ArrayBuffer> {
  const values = new Int32Array(total);
  let f = 0;
  for (let a = 0; a < owners; a++) {
    offsets[a] = f;
    const end = (a + 1) * width;
    while (f < total && keys[f]! < end) {
      values[f] = keys[f]! - a * width;
      f++;
    }
  }
  offsets[owners] = f;
  return values;
}

/**
 * The features of a training set: (attribute, label) pairs observed in it (or all pairs when
 * `dense`), label bigrams, optional start/end, and observed (transition attribute, label pair)s.
 */
export function buildFeatureLayout(
  dataset: CompiledDataset,
  numAttributes: number,
  numLabels: number,
  numTransitionAttributes = 0,
  options: LayoutOptions = {},
): FeatureLayout {
  const L = numLabels;
  const minFreq = options.minFeatureFrequency ?? 1;
  if (!Number.isInteger(minFreq) || minFreq < 1) {
    throw new RangeError(`minFeatureFrequency must be an integer ≥ 1, got ${minFreq}`);
  }
  const { attributeOffsets, featureLabels } =
    options.dense === true
      ? denseStateFeatures(numAttributes, L)
      : observedStateFeatures(dataset, numAttributes, L, minFreq);
  const S = featureLabels.length;
  const transitionBase = S;
  let next = S + L * L;
  const withStartEnd = options.startEnd !== false;
  const startBase = withStartEnd ? next : -1;
  if (withStartEnd) next += L;
  const endBase = withStartEnd ? next : -1;
  if (withStartEnd) next += L;

  const transitionAttributeOffsets = new Int32Array(numTransitionAttributes + 1);
  let transitionFeaturePairs = new Int32Array(0);
  const tr = dataset.transition;
  if (numTransitionAttributes > 0 && tr !== null) {
    // Keys attribute·L² + pair, sorted and counted: the pairs are sparse, a dense counter is not.
    const LL = L * L;
    const keys: number[] = [];
    for (let i = 0; i < dataset.numInstances; i++) {
      const from = dataset.instanceOffsets[i]!;
      const to = dataset.instanceOffsets[i + 1]!;
      for (let j = from + 1; j < to; j++) {
        const a = dataset.labels[j - 1]!;
        const b = dataset.labels[j]!;
        // Pairs with an unknown or set-restricted label get no conditioned bigram features
        // (unlike state features, which every label of a set receives): the pairs a set allows
        // grow quadratically and no preset conditions bigrams on partially annotated data.
        if (a < 0 || b < 0) continue;
        for (let k = tr.offsets[j]!; k < tr.offsets[j + 1]!; k++) {
          keys.push(tr.ids[k]! * LL + a * L + b);
        }
      }
    }
    const sorted = Float64Array.from(keys);
    const total = keepFrequent(sorted, minFreq);
    transitionFeaturePairs = splitKeys(
      sorted,
      total,
      numTransitionAttributes,
      LL,
      transitionAttributeOffsets,
    );
  }
  const transitionAttributeBase = next;
  next += transitionFeaturePairs.length;
  return {
    numLabels: L,
    numAttributes,
    attributeOffsets,
    featureLabels,
    transitionBase,
    startBase,
    endBase,
    numTransitionAttributes,
    transitionAttributeOffsets,
    transitionFeaturePairs,
    transitionAttributeBase,
    numWeights: next,
  };
}
