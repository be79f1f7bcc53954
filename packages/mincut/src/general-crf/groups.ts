import { ProblemValidationError } from "@lagrange/core";

/**
 * English function words plus Twitter filler. They are dropped from the "content" word view and
 * from consistency phrases, because two tweets or phrases that share only these say nothing about
 * shared entities. Tokens are compared lower-cased; the PTB-style clitics ("'s", "n't") are here
 * because the WNUT tokeniser splits them off.
 */
export const TWEET_STOPWORDS: ReadonlySet<string> = new Set([
  // English function words
  "a",
  "about",
  "above",
  "after",
  "again",
  "against",
  "all",
  "am",
  "an",
  "and",
  "any",
  "are",
  "as",
  "at",
  "be",
  "because",
  "been",
  "before",
  "being",
  "below",
  "between",
  "both",
  "but",
  "by",
  "can",
  "could",
  "did",
  "do",
  "does",
  "doing",
  "down",
  "during",
  "each",
  "else",
  "ever",
  "every",
  "few",
  "for",
  "from",
  "further",
  "get",
  "gets",
  "getting",
  "got",
  "had",
  "has",
  "have",
  "having",
  "he",
  "her",
  "here",
  "hers",
  "herself",
  "him",
  "himself",
  "his",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "itself",
  "just",
  "let",
  "like",
  "may",
  "me",
  "might",
  "more",
  "most",
  "much",
  "must",
  "my",
  "myself",
  "no",
  "nor",
  "not",
  "now",
  "of",
  "off",
  "on",
  "once",
  "only",
  "or",
  "other",
  "our",
  "ours",
  "ourselves",
  "out",
  "over",
  "own",
  "same",
  "shall",
  "she",
  "should",
  "so",
  "some",
  "such",
  "than",
  "that",
  "the",
  "their",
  "theirs",
  "them",
  "themselves",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "through",
  "to",
  "too",
  "under",
  "until",
  "up",
  "upon",
  "us",
  "very",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "while",
  "who",
  "whom",
  "why",
  "will",
  "with",
  "would",
  "yet",
  "you",
  "your",
  "yours",
  "yourself",
  "yourselves",
  // contractions, whole and split
  "'s",
  "'m",
  "'re",
  "'ve",
  "'ll",
  "'d",
  "n't",
  "s",
  "t",
  "m",
  "re",
  "ve",
  "ll",
  "d",
  "ca",
  "wo",
  "ai",
  "aint",
  "cant",
  "didnt",
  "doesnt",
  "dont",
  "im",
  "isnt",
  "ive",
  "ill",
  "thats",
  "theres",
  "wasnt",
  "wont",
  "youre",
  "i'm",
  "it's",
  "don't",
  "can't",
  "that's",
  "i'll",
  "i've",
  "you're",
  // Twitter and chat filler
  "rt",
  "via",
  "amp",
  "gt",
  "lt",
  "u",
  "ur",
  "r",
  "n",
  "b",
  "c",
  "y",
  "ya",
  "yo",
  "lol",
  "lmao",
  "lmfao",
  "rofl",
  "omg",
  "omfg",
  "smh",
  "tbh",
  "idk",
  "imo",
  "btw",
  "pls",
  "plz",
  "thx",
  "thanks",
  "ok",
  "okay",
  "oh",
  "ah",
  "haha",
  "hahaha",
  "hehe",
  "yeah",
  "yes",
  "yea",
  "nah",
  "gonna",
  "wanna",
  "gotta",
  "gon",
  "na",
  "ta",
  "da",
  "dis",
  "dat",
  "wit",
]);

const HAS_ALNUM = /[\p{L}\p{N}]/u;
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)/i;

/** Whether a token reads as a web address (tweets carry many; they never name an entity). */
export function isUrlToken(token: string): boolean {
  return URL_LIKE.test(token);
}

/** Whether a lower-cased token can carry meaning at all: it has a letter or a digit. */
export function hasLetterOrDigit(token: string): boolean {
  return HAS_ALNUM.test(token);
}

/** The paper's link ("more than 4 shared words") and the group size bound. */
export const TWEET_GROUP_DEFAULTS = { minOverlap: 5, maxGroupSize: 50 } as const;

export interface TweetGroupOptions {
  /** Two tweets are linked when they share at least this many word types; 5 is the paper's "> 4". */
  readonly minOverlap?: number;
  /** A union that would make a group larger than this is skipped. */
  readonly maxGroupSize?: number;
  /**
   * "all": every lower-cased word type with a letter or digit (the paper's plain overlap);
   * "content": also without TWEET_STOPWORDS and URLs.
   */
  readonly words?: "all" | "content";
}

/**
 * Size-bounded single-linkage clustering of tweets (qian-liu2014 §4.1.3). Similarity is the number
 * of shared word types. Pairs with similarity ≥ `minOverlap` are taken in Kruskal order (higher
 * similarity first, ties by the smaller then the larger index), and a pair joins its two groups
 * only when the merged group has at most `maxGroupSize` tweets. Without the bound, raw overlap
 * chains most of a corpus into one group through function words, and one giant group makes a
 * general-CRF instance far too large for per-group inference.
 *
 * Returns a partition of `0..sentences.length−1`: each group's indices ascending, groups ordered
 * by their first index, singletons included.
 *
 * Cost: pair counts come from an inverted index, so it is Σ_w df(w)² rather than N²·len. No word
 * is skipped for being frequent: doing so would change which pairs reach the threshold, and on
 * 10,000 tweets even the "all" view stays in the tens of millions of counter increments.
 */
export function tweetGroups(
  sentences: readonly (readonly string[])[],
  options: TweetGroupOptions = {},
): Int32Array[] {
  const minOverlap = options.minOverlap ?? TWEET_GROUP_DEFAULTS.minOverlap;
  const maxGroupSize = options.maxGroupSize ?? TWEET_GROUP_DEFAULTS.maxGroupSize;
  const view = options.words ?? "all";
  if (!Number.isInteger(minOverlap) || minOverlap < 1) {
    throw new ProblemValidationError(
      "options.minOverlap",
      `expected an integer ≥ 1, got ${minOverlap}`,
    );
  }
  if (!(maxGroupSize >= 1)) {
    throw new ProblemValidationError(
      "options.maxGroupSize",
      `expected a number ≥ 1, got ${maxGroupSize}`,
    );
  }
  if (view !== "all" && view !== "content") {
    throw new ProblemValidationError(
      "options.words",
      `expected "all" or "content", got ${JSON.stringify(view)}`,
    );
  }
  const n = sentences.length;

  // Word ids per sentence (distinct, so a repeated word counts once towards the overlap).
  const wordIds = new Map<string, number>();
  const sentenceWords: Int32Array[] = new Array(n);
  const postingLists: number[][] = [];
  for (let s = 0; s < n; s++) {
    const seen = new Set<number>();
    for (const token of sentences[s]!) {
      const word = token.toLowerCase();
      if (!hasLetterOrDigit(word)) continue;
      if (view === "content" && (TWEET_STOPWORDS.has(word) || isUrlToken(word))) continue;
      let id = wordIds.get(word);
      if (id === undefined) {
        id = wordIds.size;
        wordIds.set(word, id);
        postingLists.push([]);
      }
      if (seen.has(id)) continue;
      seen.add(id);
      postingLists[id]!.push(s);
    }
    sentenceWords[s] = Int32Array.from(seen);
  }
  const postings = postingLists.map((list) => Int32Array.from(list));

  // Candidate pairs (a < b), flat; found per `a` by walking the postings of its words past `a`.
  const A: number[] = [];
  const B: number[] = [];
  const S: number[] = [];
  const counts = new Int32Array(n);
  const touched = new Int32Array(n);
  for (let a = 0; a < n; a++) {
    const words = sentenceWords[a]!;
    if (words.length < minOverlap) continue;
    let touchedCount = 0;
    for (let w = 0; w < words.length; w++) {
      const list = postings[words[w]!]!;
      // Postings are ascending; binary search for the first entry after `a`.
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (list[mid]! <= a) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < list.length; k++) {
        const b = list[k]!;
        if (counts[b] === 0) touched[touchedCount++] = b;
        counts[b]!++;
      }
    }
    for (let t = 0; t < touchedCount; t++) {
      const b = touched[t]!;
      if (counts[b]! >= minOverlap) {
        A.push(a);
        B.push(b);
        S.push(counts[b]!);
      }
      counts[b] = 0;
    }
  }

  const order = Array.from({ length: A.length }, (_, k) => k);
  order.sort((x, y) => S[y]! - S[x]! || A[x]! - A[y]! || B[x]! - B[y]!);

  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const size = new Int32Array(n).fill(1);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (const k of order) {
    const ra = find(A[k]!);
    const rb = find(B[k]!);
    if (ra === rb || size[ra]! + size[rb]! > maxGroupSize) continue;
    // Union by size keeps the trees shallow; which root survives does not affect the partition.
    if (size[ra]! >= size[rb]!) {
      parent[rb] = ra;
      size[ra]! += size[rb]!;
    } else {
      parent[ra] = rb;
      size[rb]! += size[ra]!;
    }
  }
  return partitionFromRoots(n, find);
}

function partitionFromRoots(n: number, root: (i: number) => number): Int32Array[] {
  const groupOf = new Map<number, number[]>();
  const groups: number[][] = [];
  for (let i = 0; i < n; i++) {
    const r = root(i);
    let group = groupOf.get(r);
    if (group === undefined) {
      group = [];
      groupOf.set(r, group);
      groups.push(group);
    }
    group.push(i);
  }
  return groups.map((g) => Int32Array.from(g));
}

/**
 * Consecutive sentences with the same document id form one group (CoNLL-2003 documents, where the
 * ids come from `groupByDocument`). A repeated id after a different one starts a new group, since
 * documents are contiguous in the file.
 */
export function documentGroups(documentIds: ArrayLike<number>): Int32Array[] {
  const groups: Int32Array[] = [];
  let start = 0;
  for (let i = 1; i <= documentIds.length; i++) {
    if (i === documentIds.length || !Object.is(documentIds[i], documentIds[i - 1])) {
      const group = new Int32Array(i - start);
      for (let k = 0; k < group.length; k++) group[k] = start + k;
      groups.push(group);
      start = i;
    }
  }
  return groups;
}
