import type { LabelSet } from "@lagrange/core";
import { ProblemValidationError } from "@lagrange/core";
import type { AttributeList, AttributeSequence } from "../features/types.js";
import type { ChainView } from "../inference/view.js";
import { checkAttributeValues } from "./attribute-values.js";
import type { CompiledAttributes } from "./dataset.js";
import type { FeatureLayout } from "./layout.js";
import { InstanceScorer } from "./scorer.js";
import { lookupNumbered, numberedNames } from "./symbol-ids.js";

/** Attribute ids of one sequence, looked up into buffers that only grow. */
export class GrowableAttributes implements CompiledAttributes {
  offsets: Int32Array = new Int32Array(64);
  ids: Int32Array = new Int32Array(1024);
  values: Float64Array | null = null;
  #values = new Float64Array(1024);

  fill(list: AttributeList, n: number, dict: LabelSet): CompiledAttributes {
    if (list.offsets.length !== n + 1) {
      throw new ProblemValidationError(
        "sequence.offsets",
        `expected ${n + 1} offsets for ${n} tokens, got ${list.offsets.length}`,
      );
    }
    if (this.offsets.length < n + 1) this.offsets = new Int32Array(2 * (n + 1));
    const size = list.names.length;
    if (this.ids.length < size) {
      this.ids = new Int32Array(2 * size);
      this.#values = new Float64Array(2 * size);
    }
    const { offsets, ids } = this;
    const values = this.#values;
    const src = list.values;
    // Numbered names (straight from a preset) are hashed once per dictionary, not per token.
    const numbered = numberedNames(list, dict);
    const names = list.names;
    let cursor = 0;
    for (let t = 0; t < n; t++) {
      offsets[t] = cursor;
      const kEnd = list.offsets[t + 1]!;
      for (let k = list.offsets[t]!; k < kEnd; k++) {
        const id = lookupNumbered(dict, names, k, numbered);
        if (id < 0) continue;
        ids[cursor] = id;
        if (src !== null) values[cursor] = src[k]!;
        cursor++;
      }
    }
    offsets[n] = cursor;
    this.values = src === null ? null : values;
    return this;
  }
}

/**
 * One attribute sequence looked up in a model's dictionaries and scored into reused buffers (a
 * {@link ChainView}): what every per-sentence decoding path starts with.
 */
export class SequenceScorer {
  readonly instance: InstanceScorer;
  readonly #state = new GrowableAttributes();
  readonly #transition = new GrowableAttributes();

  constructor(layout: FeatureLayout) {
    this.instance = new InstanceScorer(layout);
  }

  load(
    sequence: AttributeSequence,
    attributes: LabelSet,
    transitionAttributes: LabelSet,
    weights: Float64Array,
  ): ChainView {
    const n = sequence.length;
    if (!Number.isInteger(n) || n < 1) {
      throw new ProblemValidationError("sequence", `expected at least one token, got length ${n}`);
    }
    checkAttributeValues(sequence, "sequence");
    if (sequence.transition !== null) {
      checkAttributeValues(sequence.transition, "sequence (transition attributes)");
    }
    const state = this.#state.fill(sequence, n, attributes);
    const transition =
      sequence.transition !== null && transitionAttributes.size > 0
        ? this.#transition.fill(sequence.transition, n, transitionAttributes)
        : null;
    return this.instance.load(state, transition, 0, n, weights);
  }
}
