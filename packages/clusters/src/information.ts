import { checkpoints } from "@lagrange/core";
import { readTokens } from "./corpus.js";
import type { WordClusters } from "./word-clusters.js";

/**
 * The average mutual information (bits) of the class bigram model that a clustering's leaf
 * clusters (equal bit strings) give a text, with wcluster's definitions: P(c) = count(c) / T,
 * P(c, d) = bigrams(c, d) / (T − 1), T counting every token, bigrams of adjacent clustered
 * tokens across sentence ends. Words the clustering lacks (rarer than its minimum count) are left
 * out as wcluster leaves them. Computed from scratch: any two clusterings of one text compare.
 */
export async function clusterMutualInformation(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  clusters: WordClusters,
  options: { readonly signal?: AbortSignal } = {},
): Promise<number> {
  const { stream } = await readTokens(sentences, checkpoints(options.signal));
  const T = stream.length;
  if (T < 2) return 0;
  const ids = new Map<string, number>();
  const clusterOfType = new Int32Array(stream.types.length).fill(-1);
  for (let id = 0; id < stream.types.length; id++) {
    const path = clusters.pathOf(stream.types[id]!);
    if (path === undefined) continue;
    let c = ids.get(path);
    if (c === undefined) {
      c = ids.size;
      ids.set(path, c);
    }
    clusterOfType[id] = c;
  }
  const K = ids.size;
  const size = new Float64Array(K);
  const bigrams = new Map<number, number>();
  let previous = -1;
  for (let i = 0; i < T; i++) {
    const c = clusterOfType[stream.ids[i]!]!;
    if (c >= 0) {
      size[c]!++;
      if (previous >= 0) {
        const key = previous * K + c;
        bigrams.set(key, (bigrams.get(key) ?? 0) + 1);
      }
    }
    previous = c;
  }
  let information = 0;
  const M = T - 1;
  for (const [key, count] of bigrams) {
    const c = Math.floor(key / K);
    const d = key - c * K;
    const p = count / M;
    information += p * Math.log2(p / ((size[c]! / T) * (size[d]! / T)));
  }
  return information;
}
