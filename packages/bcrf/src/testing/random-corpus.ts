// Test support (not exported): small random corpora of attribute sequences for the encoder.
import type { AttributeList, AttributeSequence, LabelledSequence } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";

export interface CorpusOptions {
  readonly sequences?: number;
  readonly maxLength?: number;
  readonly labels?: number;
  /** Observation-conditioned transition attributes (position-specific transition scores). */
  readonly transitions?: boolean;
  /** Probability that a token is unlabelled / restricted to a random label set. */
  readonly unknown?: number;
  readonly sets?: number;
}

function list(rnd: () => number, n: number, prefix: string, skipFirst: boolean): AttributeList {
  const offsets = new Int32Array(n + 1);
  const names: string[] = [];
  for (let t = 0; t < n; t++) {
    offsets[t] = names.length;
    if (skipFirst && t === 0) continue;
    const count = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < count; c++) names.push(`${prefix}${Math.floor(rnd() * 6)}`);
  }
  offsets[n] = names.length;
  return { offsets, names, values: null };
}

export function randomCorpus(seed: number, options: CorpusOptions = {}): LabelledSequence[] {
  const rnd = seededRandom(seed);
  const L = options.labels ?? 3;
  const out: LabelledSequence[] = [];
  for (let s = 0; s < (options.sequences ?? 5); s++) {
    const n = 1 + Math.floor(rnd() * (options.maxLength ?? 5));
    const transition = options.transitions === true ? list(rnd, n, "b=", true) : null;
    const attributes: AttributeSequence = { length: n, ...list(rnd, n, "w=", false), transition };
    const labels: Array<string | null | string[]> = [];
    for (let t = 0; t < n; t++) {
      const r = rnd();
      if (r < (options.unknown ?? 0)) labels.push(null);
      else if (r < (options.unknown ?? 0) + (options.sets ?? 0)) {
        labels.push([`L${Math.floor(rnd() * L)}`, `L${Math.floor(rnd() * L)}`, "L0"]);
      } else labels.push(`L${Math.floor(rnd() * L)}`);
    }
    // Every label name occurs at least once, so the label set is the same whatever the draw.
    if (s === 0) for (let t = 0; t < Math.min(n, L); t++) labels[t] = `L${t}`;
    out.push({ attributes, labels });
  }
  return out;
}
