import { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core/chain";
import type { CrfModel } from "../crf-model.js";

/** A weight the model file's reader would refuse, and the feature it belongs to. */
export interface WeightOutOfRange {
  /** `attribute "w[0]=the", label B-NP`, `transition B-NP → I-NP`, `trigram A → B → C`, … */
  readonly feature: string;
  readonly value: number;
}

/**
 * The first weight outside what a model file may hold (a finite number of magnitude at most
 * MAX_WEIGHT_MAGNITUDE), named by its feature; undefined when every weight is in range. The
 * reader only knows a byte offset: a trainer that drove a weight there says which one.
 */
export function weightOutOfRange(model: CrfModel): WeightOutOfRange | undefined {
  const { layout, weights } = model;
  const label = (t: number) => model.labels.name(t);
  const outside = (w: number) => !(Math.abs(w) <= MAX_WEIGHT_MAGNITUDE);
  for (let a = 0; a < layout.numAttributes; a++) {
    for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
      if (outside(weights[f]!)) {
        return {
          feature: `attribute ${JSON.stringify(model.attributes.name(a))}, label ${label(layout.featureLabels[f]!)}`,
          value: weights[f]!,
        };
      }
    }
  }
  const L = layout.numLabels;
  for (let k = 0; k < L * L; k++) {
    const w = weights[layout.transitionBase + k]!;
    if (outside(w)) {
      return { feature: `transition ${label(Math.floor(k / L))} → ${label(k % L)}`, value: w };
    }
  }
  for (const [base, what] of [
    [layout.startBase, "first label"],
    [layout.endBase, "last label"],
  ] as const) {
    if (base < 0) continue;
    for (let t = 0; t < L; t++) {
      if (outside(weights[base + t]!))
        return { feature: `${what} ${label(t)}`, value: weights[base + t]! };
    }
  }
  for (let a = 0; a < layout.numTransitionAttributes; a++) {
    const offsets = layout.transitionAttributeOffsets;
    for (let f = offsets[a]!; f < offsets[a + 1]!; f++) {
      const w = weights[layout.transitionAttributeBase + f]!;
      if (outside(w)) {
        const pair = layout.transitionFeaturePairs[f]!;
        return {
          feature: `transition attribute ${JSON.stringify(model.transitionAttributes.name(a))}, ${label(Math.floor(pair / L))} → ${label(pair % L)}`,
          value: w,
        };
      }
    }
  }
  const trigrams = model.trigrams;
  if (trigrams !== null) {
    for (let k = 0; k < trigrams.length; k++) {
      if (outside(trigrams[k]!)) {
        const [a, b, c] = [Math.floor(k / (L * L)), Math.floor(k / L) % L, k % L];
        return { feature: `trigram ${label(a)} → ${label(b)} → ${label(c)}`, value: trigrams[k]! };
      }
    }
  }
  return undefined;
}
