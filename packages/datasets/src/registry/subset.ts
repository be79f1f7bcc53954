import { LagrangeError, seededRandom } from "@lagrange/core";
import type { Corpus } from "./corpus-model.js";

/** Which sentences of a corpus to keep: the first `limit`, then a seeded sample of `sample`. */
export interface CorpusSubset {
  /** Keep the first `limit` sentences (an integer ≥ 1). */
  readonly limit?: number | undefined;
  /** Keep `sample` sentences drawn uniformly without replacement (an integer ≥ 1). */
  readonly sample?: number | undefined;
  /** Seeds the sample: the same seed draws the same sentences (default 1). */
  readonly seed?: number | undefined;
}

/**
 * The sentences a subset keeps, in corpus order (a sample keeps documents' sentences in their
 * order, so that document-level features still see them as written). A subset at least as large
 * as the corpus keeps every sentence. The corpus's label says what was kept:
 * `conll2003:train[first 1000]`, `conll2003:train[sample 1000, seed 1]`.
 */
export function subsetCorpus(corpus: Corpus, subset: CorpusSubset): Corpus {
  const { items, kept } = subsetItems(corpus.sentences, subset);
  if (kept === "") return corpus;
  return { ...corpus, label: `${corpus.label}[${kept}]`, sentences: items };
}

/**
 * What {@link subsetCorpus} keeps, for any list (CRFsuite instances): the items, in order, and
 * what was kept in words (`first 1000`, `sample 1000, seed 1`; empty when every item was).
 */
export function subsetItems<T>(
  items: readonly T[],
  subset: CorpusSubset,
): { readonly items: T[]; readonly kept: string } {
  const { limit, sample } = subset;
  for (const [name, n] of [
    ["limit", limit],
    ["sample", sample],
  ] as const) {
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1)) {
      throw new LagrangeError("usage", `${name}: expected an integer ≥ 1, got ${n}`);
    }
  }
  let kept = [...items];
  const parts: string[] = [];
  if (limit !== undefined && limit < kept.length) {
    kept = kept.slice(0, limit);
    parts.push(`first ${limit}`);
  }
  if (sample !== undefined && sample < kept.length) {
    const seed = subset.seed ?? 1;
    const from = kept;
    kept = Array.from(sampleIndices(from.length, sample, seed), (i) => from[i]!);
    parts.push(`sample ${sample}, seed ${seed}`);
  }
  return { items: kept, kept: parts.join(", ") };
}

/** `k` distinct indices of [0, n), uniformly at random, ascending: a partial Fisher–Yates shuffle. */
function sampleIndices(n: number, k: number, seed: number): Int32Array {
  const random = seededRandom(seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order.subarray(0, k).sort();
}
