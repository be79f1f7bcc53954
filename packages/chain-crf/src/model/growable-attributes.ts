import type { LabelSet } from "@lagrange/core";
import { ProblemValidationError } from "@lagrange/core";
import type { AttributeList } from "../features/types.ts";
import type { CompiledAttributes } from "./dataset.ts";

/** Attribute ids of one sequence, looked up into buffers that only grow. */
export class GrowableAttributes implements CompiledAttributes {
  offsets = new Int32Array(64);
  ids = new Int32Array(1024);
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
    let cursor = 0;
    for (let t = 0; t < n; t++) {
      offsets[t] = cursor;
      for (let k = list.offsets[t]!; k < list.offsets[t + 1]!; k++) {
        const id = dict.lookup(list.names[k]!);
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
