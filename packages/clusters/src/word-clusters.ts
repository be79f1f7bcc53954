/** Words with their cluster's bit string (the path from the root of the merge tree). */
export interface WordClusters {
  /** In the order of the paths file (wcluster's: the tree's depth-first order, 0 before 1). */
  readonly words: readonly string[];
  /** Bit strings of 0 and 1 (empty for a single cluster). */
  readonly paths: readonly string[];
  /** How often each word occurs in the text clustered (0 when a file gave none). */
  readonly counts: Int32Array;
  /** The word's bit string, or undefined for a word not clustered. */
  pathOf(word: string): string | undefined;
}

/** A {@link WordClusters} over parallel arrays (the caller has checked words are distinct). */
export function wordClusters(
  words: readonly string[],
  paths: readonly string[],
  counts: Int32Array,
): WordClusters {
  let index: Map<string, number> | undefined;
  return {
    words,
    paths,
    counts,
    pathOf(word) {
      if (index === undefined) {
        index = new Map();
        for (let i = 0; i < words.length; i++) index.set(words[i]!, i);
      }
      const i = index.get(word);
      return i === undefined ? undefined : paths[i];
    },
  };
}

/**
 * Bit strings from a merge tree, as wcluster prints them: leaves are words 0..N−1, merge k makes
 * node N + k of children `merges[2k]` (bit 0) and `merges[2k+1]` (bit 1); only merges from
 * `firstBitMerge` on add a bit (the earlier ones built the C leaf clusters). Returns the word
 * ranks in depth-first order (0 before 1) and each one's bit string.
 */
export function treePaths(
  N: number,
  merges: Int32Array,
  mergeCount: number,
  firstBitMerge: number,
): { order: Int32Array; paths: string[] } {
  const order = new Int32Array(N);
  const paths = new Array<string>(N);
  if (N === 0) return { order, paths };
  const bits = new Uint8Array(mergeCount + 1);
  const stackNode = new Int32Array(mergeCount + 2);
  const stackDepth = new Int32Array(mergeCount + 2);
  const stackBit = new Int8Array(mergeCount + 2);
  let top = 0;
  stackNode[0] = N + mergeCount - 1 >= N ? N + mergeCount - 1 : 0;
  stackDepth[0] = 0;
  stackBit[0] = -1;
  top = 1;
  let written = 0;
  let cached = "";
  let cachedDepth = -1;
  const decoder = new TextDecoder();
  while (top > 0) {
    top--;
    const node = stackNode[top]!;
    const depth = stackDepth[top]!;
    const bit = stackBit[top]!;
    if (bit >= 0) {
      bits[depth - 1] = 48 + bit;
      cachedDepth = -1;
    }
    if (node < N) {
      if (cachedDepth !== depth) {
        cached = decoder.decode(bits.subarray(0, depth));
        cachedDepth = depth;
      }
      order[written] = node;
      paths[written] = cached;
      written++;
      continue;
    }
    const k = node - N;
    const extend = k >= firstBitMerge ? 1 : 0;
    stackNode[top] = merges[2 * k + 1]!;
    stackDepth[top] = depth + extend;
    stackBit[top] = extend ? 1 : -1;
    top++;
    stackNode[top] = merges[2 * k]!;
    stackDepth[top] = depth + extend;
    stackBit[top] = extend ? 0 : -1;
    top++;
  }
  return { order, paths };
}
