import { type Checkpoints, checkpoints, LagrangeError } from "@lagrange/core";
import { type BigramCorpus, bigramCorpus, readTokens } from "./corpus.js";
import { BrownEngine } from "./engine.js";
import { treePaths, type WordClusters, wordClusters } from "./word-clusters.js";

export interface BrownOptions {
  /** C, the clusters kept while words are added (wcluster's --c; default 1000). */
  readonly clusters?: number;
  /** Words occurring fewer times are not clustered (wcluster's --min-occur; default 1). */
  readonly minCount?: number;
  /**
   * Words of equal count are added in this order (the words it lists first, in its order; the
   * others by first occurrence). wcluster orders them as its hash table happens to: its log lists
   * the words as it adds them, and that order here reproduces its clusters.
   */
  readonly tieOrder?: readonly string[];
  readonly signal?: AbortSignal;
  /** Merges done of all merges (the number of word types − 1), every few tens of milliseconds. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Brown clusters with what the run measured. */
export interface BrownClusters extends WordClusters {
  /** Tokens read (words below minCount included, as wcluster's text length). */
  readonly tokens: number;
  /** The number of leaf clusters (C, or fewer with fewer word types). */
  readonly clusters: number;
  /** The average mutual information of the C clusters' bigram model, in bits (wcluster's). */
  readonly mutualInformation: number;
}

export const BROWN_DEFAULTS = { clusters: 1000, minCount: 1 } as const;

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new LagrangeError("invalid-problem", `${name}: expected an integer ≥ 1, got ${value}`);
  }
  return value;
}

/**
 * Brown clustering as Liang's wcluster does it (Liang 2005, ch. 3): word types by decreasing
 * count (equal counts: first occurrence first; wcluster leaves that order to its hash table),
 * the C most frequent in clusters of their own; then each next word joins as a new cluster and
 * the pair of the C + 1 clusters whose merge loses the least average mutual information of the
 * class bigram model merges; then the last C clusters merge down to one, and each word's bit
 * string is its cluster's path in that top tree (0: the cluster with the lower id, i.e. the
 * older one). Bigrams are adjacent tokens across sentence ends, as wcluster reads its text as
 * one stream (a `$#$` token separates, as in wcluster). O(N·C²) time, O(C²) memory in flat
 * tables allocated once; equal losses (to rounding) are broken by cluster ids.
 */
export async function brownClusters(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  options: BrownOptions = {},
): Promise<BrownClusters> {
  const C = positiveInteger(options.clusters ?? BROWN_DEFAULTS.clusters, "clusters");
  const minCount = positiveInteger(options.minCount ?? BROWN_DEFAULTS.minCount, "minCount");
  const pace = checkpoints(options.signal);
  const { stream } = await readTokens(sentences, pace);
  const corpus = bigramCorpus(stream.ids, stream.length, stream.types, minCount, options.tieOrder);
  const run = await clusterCorpus(corpus, C, pace, options.onProgress);
  const { order, paths } = treePaths(
    corpus.words.length,
    run.engine.merges,
    run.engine.mergeCount,
    run.firstBitMerge,
  );
  const words = Array.from(order, (r) => corpus.words[r]!);
  const counts = Int32Array.from(order, (r) => corpus.counts[r]!);
  return {
    ...wordClusters(words, paths, counts),
    tokens: corpus.tokens,
    clusters: Math.min(C, corpus.words.length),
    mutualInformation: corpus.tokens > 1 ? run.informationAtC / (corpus.tokens - 1) : 0,
  };
}

/** The two stages over a counted corpus; the engine holds the merges. */
export async function clusterCorpus(
  corpus: BigramCorpus,
  C: number,
  pace: Checkpoints = checkpoints(),
  onProgress?: (done: number, total: number) => void,
): Promise<{ engine: BrownEngine; firstBitMerge: number; informationAtC: number }> {
  const N = corpus.words.length;
  const engine = new BrownEngine(corpus, C);
  const initial = Math.min(C, N);
  const total = Math.max(0, N - 1);
  for (let r = 0; r < initial; r++) {
    engine.addWord(r);
    if (pace.due()) await pace.pause();
  }
  for (let r = initial; r < N; r++) {
    engine.addWord(r);
    engine.mergePair(engine.bestPair());
    if (pace.due()) {
      onProgress?.(engine.mergeCount, total);
      await pace.pause();
    }
  }
  const informationAtC = engine.mutualInformation;
  const firstBitMerge = engine.mergeCount;
  for (let at = engine.bestPair(); at >= 0; at = engine.bestPair()) {
    engine.mergePair(at);
    if (pace.due()) {
      onProgress?.(engine.mergeCount, total);
      await pace.pause();
    }
  }
  onProgress?.(engine.mergeCount, total);
  return { engine, firstBitMerge, informationAtC };
}
