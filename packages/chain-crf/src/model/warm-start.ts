import { type JsonValue, LabelSet } from "@lagrange/core";
import type { FeatureLayout } from "./layout.js";

/**
 * What continued training reads of the model it starts from: a `CrfModel` (trained here or
 * imported from CRFsuite) has all of it.
 */
export interface InitialModel {
  readonly labels: LabelSet;
  readonly attributes: LabelSet;
  readonly transitionAttributes: LabelSet;
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
  /** Its provenance (a model file's settings): `data` is recorded with the continued model. */
  readonly settings?: { readonly [key: string]: JsonValue };
  /** A second-order model's trigram weights, which continued training refuses to drop. */
  readonly trigrams?: Float64Array | null;
}

/**
 * The names of `seen` in their order, then those of `kept` that `seen` lacks (frozen): the
 * dictionary of continued training, which keeps every attribute of the initial model.
 */
export function unionDictionary(seen: LabelSet, kept: LabelSet): LabelSet {
  const union = LabelSet.from(seen.names());
  for (const name of kept.names()) union.intern(name);
  return union.freeze();
}

/** The layout of continued training and the initial model's weights placed in it. */
export interface WarmStart {
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
}

/**
 * The features of `layout` (those the new data shows) together with every feature of `init`,
 * and a weight vector holding `init`'s weights at their new places (0 for features the new data
 * adds). `layout` indexes `labels`, `attributes` and `transitionAttributes`, which must extend
 * `init`'s: `init`'s labels first with the same ids, every one of its attributes present. With
 * the same features on both sides (new data that covers the old) the layouts agree, so the
 * objective is the one training from scratch minimises, only started elsewhere.
 */
export function warmStart(
  init: InitialModel,
  layout: FeatureLayout,
  labels: LabelSet,
  attributes: LabelSet,
  transitionAttributes: LabelSet,
): WarmStart {
  const old = init.layout;
  const L0 = old.numLabels;
  const L = layout.numLabels;
  for (let t = 0; t < L0; t++) {
    if (labels.name(t) !== init.labels.name(t)) {
      throw new RangeError(
        `warm start: label ${t} is "${labels.name(t)}", expected "${init.labels.name(t)}"`,
      );
    }
  }
  const state = mergeOwned(
    {
      offsets: layout.attributeOffsets,
      values: layout.featureLabels,
      owners: layout.numAttributes,
    },
    {
      offsets: old.attributeOffsets,
      values: old.featureLabels,
      map: ownerMap(init.attributes, attributes, "attribute"),
    },
    (t) => t,
  );
  const transition = mergeOwned(
    {
      offsets: layout.transitionAttributeOffsets,
      values: layout.transitionFeaturePairs,
      owners: layout.numTransitionAttributes,
    },
    {
      offsets: old.transitionAttributeOffsets,
      values: old.transitionFeaturePairs,
      map: ownerMap(init.transitionAttributes, transitionAttributes, "transition attribute"),
    },
    // prev·L0 + cur → prev·L + cur keeps the order, so the merged lists stay ascending.
    (pair) => Math.floor(pair / L0) * L + (pair % L0),
  );
  const S = state.values.length;
  let next = S + L * L;
  const withStartEnd = old.startBase >= 0 || layout.startBase >= 0;
  const startBase = withStartEnd ? next : -1;
  if (withStartEnd) next += L;
  const endBase = withStartEnd ? next : -1;
  if (withStartEnd) next += L;
  const transitionAttributeBase = next;
  next += transition.values.length;
  const merged: FeatureLayout = {
    numLabels: L,
    numAttributes: layout.numAttributes,
    attributeOffsets: state.offsets,
    featureLabels: state.values,
    transitionBase: S,
    startBase,
    endBase,
    numTransitionAttributes: layout.numTransitionAttributes,
    transitionAttributeOffsets: transition.offsets,
    transitionFeaturePairs: transition.values,
    transitionAttributeBase,
    numWeights: next,
  };

  const w0 = init.weights;
  const w = new Float64Array(next);
  for (let f = 0; f < state.placeOfKept.length; f++) w[state.placeOfKept[f]!] = w0[f]!;
  for (let a = 0; a < L0; a++) {
    for (let b = 0; b < L0; b++) w[S + a * L + b] = w0[old.transitionBase + a * L0 + b]!;
  }
  if (old.startBase >= 0) {
    for (let t = 0; t < L0; t++) {
      w[startBase + t] = w0[old.startBase + t]!;
      w[endBase + t] = w0[old.endBase + t]!;
    }
  }
  for (let f = 0; f < transition.placeOfKept.length; f++) {
    w[transitionAttributeBase + transition.placeOfKept[f]!] = w0[old.transitionAttributeBase + f]!;
  }
  return { layout: merged, weights: w };
}

/** Where each of `from`'s names sits in `to` (every one must). */
function ownerMap(from: LabelSet, to: LabelSet, what: string): Int32Array {
  const map = new Int32Array(from.size);
  for (let a = 0; a < from.size; a++) {
    const id = to.lookup(from.name(a));
    if (id < 0) throw new RangeError(`warm start: ${what} "${from.name(a)}" is missing`);
    map[a] = id;
  }
  return map;
}

interface Owned {
  readonly offsets: Int32Array;
  readonly values: Int32Array;
}

/**
 * Per owner (attribute), the ascending union of the new layout's values and the kept ones
 * (mapped by `translate`, which must keep their order); `placeOfKept[k]` is where kept value k
 * went.
 */
function mergeOwned(
  fresh: Owned & { readonly owners: number },
  kept: Owned & { readonly map: Int32Array },
  translate: (value: number) => number,
): { offsets: Int32Array; values: Int32Array; placeOfKept: Int32Array } {
  const owners = fresh.owners;
  const keptOf = new Int32Array(owners).fill(-1);
  for (let a0 = 0; a0 < kept.map.length; a0++) keptOf[kept.map[a0]!] = a0;
  const offsets = new Int32Array(owners + 1);
  const placeOfKept = new Int32Array(kept.values.length);
  // Two passes over the same merge: the first counts, the second writes.
  let values = new Int32Array(0);
  for (let pass = 0; pass < 2; pass++) {
    let f = 0;
    for (let a = 0; a < owners; a++) {
      offsets[a] = f;
      let i = fresh.offsets[a]!;
      const iEnd = fresh.offsets[a + 1]!;
      const a0 = keptOf[a]!;
      let k = a0 < 0 ? 0 : kept.offsets[a0]!;
      const kEnd = a0 < 0 ? 0 : kept.offsets[a0 + 1]!;
      while (i < iEnd || k < kEnd) {
        const x = i < iEnd ? fresh.values[i]! : Number.POSITIVE_INFINITY;
        const y = k < kEnd ? translate(kept.values[k]!) : Number.POSITIVE_INFINITY;
        if (pass === 1) values[f] = Math.min(x, y);
        if (y <= x) {
          if (pass === 1) placeOfKept[k] = f;
          k++;
        }
        if (x <= y) i++;
        f++;
      }
    }
    offsets[owners] = f;
    if (pass === 0) values = new Int32Array(f);
  }
  return { offsets, values, placeOfKept };
}
