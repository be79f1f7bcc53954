import { seededRandom } from "@lagrange/core";
// Test support (not exported): small random corpora of attribute sequences.
import type { AttributeList, AttributeSequence } from "../features/types.js";
import type { LabelledSequence } from "../model/dataset.js";

export interface RandomCorpusOptions {
  readonly sequences?: number;
  readonly maxLength?: number;
  readonly labels?: number;
  readonly vocabulary?: number;
  /** Real-valued attributes (otherwise all values are 1). */
  readonly values?: boolean;
  /** Observation-conditioned transition attributes. */
  readonly transitions?: boolean;
  /** Probability that a token's label is unknown. */
  readonly unlabelled?: number;
}

function randomList(
  rnd: () => number,
  n: number,
  vocabulary: number,
  prefix: string,
  withValues: boolean,
  skipFirst: boolean,
): AttributeList {
  const offsets = new Int32Array(n + 1);
  const names: string[] = [];
  const values: number[] = [];
  for (let t = 0; t < n; t++) {
    offsets[t] = names.length;
    if (skipFirst && t === 0) continue;
    const count = Math.floor(rnd() * 4);
    for (let c = 0; c < count; c++) {
      names.push(`${prefix}${Math.floor(rnd() * vocabulary)}`);
      values.push(withValues ? Math.round((rnd() * 3 - 1) * 100) / 100 : 1);
    }
  }
  offsets[n] = names.length;
  return { offsets, names, values: withValues ? Float64Array.from(values) : null };
}

export function randomCorpus(seed: number, options: RandomCorpusOptions = {}): LabelledSequence[] {
  const rnd = seededRandom(seed);
  const count = options.sequences ?? 4;
  const maxLength = options.maxLength ?? 4;
  const L = options.labels ?? 3;
  const vocabulary = options.vocabulary ?? 6;
  const out: LabelledSequence[] = [];
  for (let s = 0; s < count; s++) {
    const n = 1 + Math.floor(rnd() * maxLength);
    const state = randomList(rnd, n, vocabulary, "w=", options.values === true, false);
    const transition =
      options.transitions === true
        ? randomList(rnd, n, Math.max(2, vocabulary >> 1), "b=", options.values === true, true)
        : null;
    const attributes: AttributeSequence = { length: n, ...state, transition };
    const labels: Array<string | null> = [];
    for (let t = 0; t < n; t++) {
      labels.push(rnd() < (options.unlabelled ?? 0) ? null : `L${Math.floor(rnd() * L)}`);
    }
    out.push({ attributes, labels });
  }
  // A corpus whose every token drew no state attribute cannot train (NoStateAttributesError): its
  // first token gets one, so that every seed gives a usable corpus (others are unchanged).
  const first = out[0]!;
  if (out.every((s) => s.attributes.names.length === 0)) {
    const offsets = new Int32Array(first.attributes.length + 1).fill(1);
    offsets[0] = 0;
    const values = options.values === true ? Float64Array.of(1) : null;
    out[0] = { ...first, attributes: { ...first.attributes, offsets, names: ["w=0"], values } };
  }
  return out;
}
