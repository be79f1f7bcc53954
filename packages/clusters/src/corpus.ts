import { type Checkpoints, LagrangeError } from "@lagrange/core";

/**
 * wcluster's delimiter token: never clustered, but counted in the text's length, and no bigram
 * crosses it (a way to keep bigrams inside sentences, as wcluster offers).
 */
export const DELIMITER_TOKEN = "$#$";

/**
 * A text as wcluster sees it: the word types kept (count ≥ minCount, not the delimiter) ranked by
 * decreasing count (ties: first occurrence first), and every bigram of adjacent kept tokens.
 * Tokens are one stream: as in wcluster, which reads whitespace-separated words and ignores line
 * ends, the last token of a sentence and the first of the next form a bigram.
 */
export interface BigramCorpus {
  /** Every token of the text, dropped ones included (wcluster's T): unigram probabilities are count / tokens, bigram ones count / (tokens − 1). */
  readonly tokens: number;
  /** Word types by rank (most frequent first). */
  readonly words: readonly string[];
  readonly counts: Int32Array;
  /**
   * The bigrams of word r, each once, attached to the later-ranked of its two words: entries
   * `start[r] .. start[r+1]` of `neighbour` (key = rank·2 + direction: 0 for the bigram (r, rank)
   * with rank ≤ r, 1 for (rank, r) with rank < r) and `pairCount`.
   */
  readonly start: Int32Array;
  readonly neighbour: Int32Array;
  readonly pairCount: Int32Array;
}

/** Token ids in first-occurrence order, grown by doubling. */
export class TokenStream {
  ids: Int32Array = new Int32Array(1 << 16);
  length = 0;
  readonly index = new Map<string, number>();
  readonly types: string[] = [];

  push(token: string): void {
    let id = this.index.get(token);
    if (id === undefined) {
      id = this.types.length;
      this.index.set(token, id);
      this.types.push(token);
    }
    if (this.length === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.length++] = id;
  }
}

const WHITESPACE = /\s/;

/** Reads every sentence (sync or async), checking tokens; yields to the event loop when due. */
export async function readTokens(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  pace: Checkpoints,
): Promise<{ stream: TokenStream }> {
  const stream = new TokenStream();
  let sentence = 0;
  for await (const tokens of sentences as AsyncIterable<readonly string[]>) {
    for (const token of tokens) {
      if (token === "" || WHITESPACE.test(token)) {
        throw new LagrangeError(
          "invalid-problem",
          `sentence ${sentence + 1}: token ${JSON.stringify(token)} is empty or contains whitespace; expected whitespace-free tokens`,
        );
      }
      stream.push(token);
    }
    sentence++;
    if (pace.due()) await pace.pause();
  }
  return { stream };
}

/** Ranks the types, drops the rare ones and gathers the bigrams (counting sort by owner). */
export function bigramCorpus(
  ids: Int32Array,
  length: number,
  types: readonly string[],
  minCount: number,
  tieOrder: readonly string[] = [],
): BigramCorpus {
  const typeCount = new Int32Array(types.length);
  for (let i = 0; i < length; i++) typeCount[ids[i]!]!++;
  const delimiter = types.indexOf(DELIMITER_TOKEN);
  const kept: number[] = [];
  for (let id = 0; id < types.length; id++) {
    if (id !== delimiter && typeCount[id]! >= minCount) kept.push(id);
  }
  // Decreasing count; equal counts: the tie order's words first, in its order, then the others
  // by first occurrence.
  const tie = new Float64Array(types.length);
  if (tieOrder.length > 0) {
    const index = new Map<string, number>();
    tieOrder.forEach((word, i) => {
      if (!index.has(word)) index.set(word, i);
    });
    for (let id = 0; id < types.length; id++) {
      tie[id] = index.get(types[id]!) ?? tieOrder.length + id;
    }
  } else {
    for (let id = 0; id < types.length; id++) tie[id] = id;
  }
  kept.sort((a, b) => typeCount[b]! - typeCount[a]! || tie[a]! - tie[b]!);
  const rank = new Int32Array(types.length).fill(-1);
  const N = kept.length;
  const words = new Array<string>(N);
  const counts = new Int32Array(N);
  for (let r = 0; r < N; r++) {
    const id = kept[r]!;
    rank[id] = r;
    words[r] = types[id]!;
    counts[r] = typeCount[id]!;
  }
  // Pass 1: bigrams per owner (the later-ranked word); pass 2: their keys, then sort and compress.
  const perOwner = new Int32Array(N + 1);
  for (let i = 0; i + 1 < length; i++) {
    const a = rank[ids[i]!]!;
    const b = rank[ids[i + 1]!]!;
    if (a >= 0 && b >= 0) perOwner[Math.max(a, b) + 1]!++;
  }
  for (let r = 0; r < N; r++) perOwner[r + 1]! += perOwner[r]!;
  const keys = new Int32Array(perOwner[N]!);
  const fill = perOwner.slice(0, N);
  for (let i = 0; i + 1 < length; i++) {
    const a = rank[ids[i]!]!;
    const b = rank[ids[i + 1]!]!;
    if (a < 0 || b < 0) continue;
    if (a >= b) keys[fill[a]!++] = b * 2;
    else keys[fill[b]!++] = a * 2 + 1;
  }
  const start = new Int32Array(N + 1);
  let distinct = 0;
  for (let r = 0; r < N; r++) {
    const segment = keys.subarray(perOwner[r]!, perOwner[r + 1]!);
    segment.sort();
    for (let j = 0; j < segment.length; j++) {
      if (j === 0 || segment[j] !== segment[j - 1]) distinct++;
    }
    start[r + 1] = distinct;
  }
  const neighbour = new Int32Array(distinct);
  const pairCount = new Int32Array(distinct);
  let k = -1;
  for (let r = 0; r < N; r++) {
    const from = perOwner[r]!;
    const to = perOwner[r + 1]!;
    for (let j = from; j < to; j++) {
      if (j === from || keys[j] !== keys[j - 1]) {
        k++;
        neighbour[k] = keys[j]!;
      }
      pairCount[k]!++;
    }
  }
  return { tokens: length, words, counts, start, neighbour, pairCount };
}
