import {
  type ChainScores,
  type LabelSet,
  type TransitionMask,
  validateChainScores,
} from "@lagrange/core";
import type { AttributeSequence } from "./features/types.js";
import type { FeatureLayout } from "./model/layout.js";
import { SequenceScorer } from "./model/sequence-scorer.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/** What a scorer reads of a model (a `CrfModel` is one): its feature tables and weights. */
export interface ScoredModel {
  readonly attributes: LabelSet;
  readonly transitionAttributes: LabelSet;
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
}

/**
 * Transition blocks a scorer has validated: a decoder's chain slave skips their value scan, which
 * for 131 labels costs as much as a position of Viterbi, sentence after sentence.
 */
export const validatedTransitions: WeakSet<Float64Array> = new WeakSet<Float64Array>();

/**
 * Chain scores of one sentence after another under one model and one set of decoding constraints,
 * for a decoder: the unary block is the scorer's own reused buffer and the shared transition block
 * a view on the weights, so nothing of size L² is copied per sentence (at 131 labels that copy
 * costs more than the sparse Viterbi it feeds). A result is valid until the next `score` call and
 * must not be written to. The scorer reads the model's weights as they are when it is made (the
 * start and end scores are copied then): make a new one after changing them.
 */
export class ChainScorer {
  readonly #model: ScoredModel;
  readonly #scorer: SequenceScorer;
  readonly #sharedTransition: Float64Array;
  /** Start and end scores (−∞ where the masks forbid) and the transition mask, when there are any. */
  readonly #boundaries: Pick<ChainScores, "start" | "end" | "allowed">;

  constructor(model: ScoredModel, constraints: TransitionMask) {
    this.#model = model;
    const { layout, weights } = model;
    const L = layout.numLabels;
    this.#scorer = new SequenceScorer(layout);
    this.#sharedTransition = weights.subarray(layout.transitionBase, layout.transitionBase + L * L);
    const start = boundary(weights, layout.startBase, constraints.allowedStart, L);
    const end = boundary(weights, layout.endBase, constraints.allowedEnd, L);
    this.#boundaries = {
      ...(start === undefined ? {} : { start }),
      ...(end === undefined ? {} : { end }),
      ...(constraints.allowed === undefined ? {} : { allowed: constraints.allowed }),
    };
    // The shared blocks once, here; each sentence's unary scores are checked by the decoder.
    validateChainScores(
      {
        n: 2,
        L,
        unary: new Float64Array(2 * L),
        transition: this.#sharedTransition,
        ...this.#boundaries,
      },
      "model",
    );
    validatedTransitions.add(this.#sharedTransition);
  }

  score(sequence: AttributeSequence): ChainScores {
    const model = this.#model;
    const v = this.#scorer.load(
      sequence,
      model.attributes,
      model.transitionAttributes,
      model.weights,
    );
    const { n, L } = v;
    return {
      n,
      L,
      unary: v.unary.subarray(0, n * L),
      transition:
        v.transitionStride === 0
          ? this.#sharedTransition
          : v.transition.subarray(0, Math.max(1, n - 1) * L * L),
      ...this.#boundaries,
    };
  }
}

/** Start or end scores: the weights (when the model has them) with −∞ where the mask forbids. */
function boundary(
  weights: Float64Array,
  base: number,
  mask: Uint8Array | undefined,
  L: number,
): Float64Array | undefined {
  if (base < 0 && mask === undefined) return undefined;
  const out = new Float64Array(L);
  for (let t = 0; t < L; t++) {
    out[t] = base < 0 ? 0 : weights[base + t]!;
    if (mask !== undefined && mask[t] === 0) out[t] = NEG_INF;
  }
  return out;
}
