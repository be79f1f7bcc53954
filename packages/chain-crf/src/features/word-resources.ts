import { numberedState, numberedStates } from "./builder.js";
import type { TokenFeatures } from "./define-preset.js";
import { SymbolSpace } from "./symbols.js";
import type { AttributeSink } from "./types.js";

/**
 * Word clusters as a feature resource: each word's bit string (its path in a Brown clustering's
 * merge tree, Liang's `paths` file). Prefixes of the path name coarser clusters (Miller et al.
 * 2004; Ratinov & Roth 2009 use prefixes of length 4, 6, 10 and 20).
 */
export interface ClusterResource {
  /** Names the attributes (`brown`, `rcv1`, …), so that two resources do not collide. */
  readonly name: string;
  readonly words: readonly string[];
  /** Parallel to `words`: bit strings of 0 and 1. */
  readonly paths: readonly string[];
  /** Path prefix lengths that become attributes (default 4, 6, 10, 20). */
  readonly prefixes?: readonly number[];
  /** Offsets −window…window around the token (default 1). */
  readonly window?: number;
}

/** Distinct words whose cluster is remembered before the memo starts over (bounds memory). */
const MAX_RESOLVED_WORDS = 200_000;

/** A list of entries (names, places, …), each one or more space-separated words. */
export interface LexiconResource {
  readonly name: string;
  readonly entries: readonly string[];
}

export interface LexiconFeatureOptions {
  /** Offsets −window…window around the token (default 1). */
  readonly window?: number;
}

export const DEFAULT_CLUSTER_PREFIXES: readonly number[] = [4, 6, 10, 20];

/**
 * Per token, the prefixes of its word's cluster path at each offset of the window:
 * `brown[-1]p4=0110`. A word the clustering never saw is looked up lower-cased, then gets
 * nothing. Names are built once per word and offset and then shared.
 */
export function clusterFeatures(resource: ClusterResource): TokenFeatures<Int32Array> {
  const prefixes = resource.prefixes ?? DEFAULT_CLUSTER_PREFIXES;
  const window = resource.window ?? 1;
  const index = new Map<string, number>();
  for (let w = 0; w < resource.words.length; w++) {
    if (!index.has(resource.words[w]!)) index.set(resource.words[w]!, w);
  }
  // Word → its index (−1: none), the lower-cased fallback included: one lookup per token, and no
  // lower-casing of a word seen before (most tokens are).
  const resolved = new Map<string, number>();
  const width = 2 * window + 1;
  // The names are finite (words × offsets × prefixes), so they are numbered in a space that is
  // never started over: a model finds each one's id by its number (see SymbolSpace).
  const space = new SymbolSpace();
  // Words share a cluster (and more so a path prefix): one number per name, not per word, so
  // that the model looks each name up once.
  const numbers = new Map<string, number>();
  const numberOf = (name: string): number => {
    let symbol = numbers.get(name);
    if (symbol === undefined) {
      symbol = space.add(name);
      numbers.set(name, symbol);
    }
    return symbol;
  };
  // symbols[word · width + offset + window]: the numbers of that word's names at that offset,
  // made on first use.
  const symbols: (Int32Array | undefined)[] = new Array(resource.words.length * width);
  const symbolsOf = (word: number, offset: number): Int32Array => {
    const slot = word * width + offset + window;
    let list = symbols[slot];
    if (list === undefined) {
      const path = resource.paths[word]!;
      const made: number[] = [];
      let previous = "";
      for (const k of prefixes) {
        const prefix = path.slice(0, k);
        // A path shorter than a prefix length would repeat the same attribute.
        if (prefix === previous) continue;
        previous = prefix;
        made.push(numberOf(`${resource.name}[${offset}]p${k}=${prefix}`));
      }
      list = Int32Array.from(made);
      symbols[slot] = list;
    }
    return list;
  };
  return {
    prepare(rows) {
      if (resolved.size >= MAX_RESOLVED_WORDS) resolved.clear();
      const ids = new Int32Array(rows.length);
      for (let t = 0; t < rows.length; t++) {
        const word = rows[t]![0]!;
        let id = resolved.get(word);
        if (id === undefined) {
          id = index.get(word) ?? index.get(word.toLowerCase()) ?? -1;
          resolved.set(word, id);
        }
        ids[t] = id;
      }
      return ids;
    },
    token(ids, t, sink) {
      for (let offset = -window; offset <= window; offset++) {
        const at = t + offset;
        if (at < 0 || at >= ids.length || ids[at]! < 0) continue;
        const list = symbolsOf(ids[at]!, offset);
        numberedStates(sink, t, list, 0, list.length, space);
      }
    },
  };
}

interface TrieNode {
  readonly next: Map<string, TrieNode>;
  /** Indices of the lexicons with an entry ending here. */
  ends: number[] | null;
}

function addEntry(root: TrieNode, words: readonly string[], lexicon: number): void {
  let node = root;
  for (const word of words) {
    let child = node.next.get(word);
    if (child === undefined) {
      child = { next: new Map(), ends: null };
      node.next.set(word, child);
    }
    node = child;
  }
  if (node.ends === null) node.ends = [lexicon];
  else if (!node.ends.includes(lexicon)) node.ends.push(lexicon);
}

/** Per token and lexicon: 1 where a match begins, 2 inside a match (both may be set). */
interface LexiconMarks {
  readonly exact: Uint8Array;
  readonly folded: Uint8Array;
  /** Per token: 1 where any lexicon marks it (most tokens are in no match: they are skipped). */
  readonly marked: Uint8Array;
  readonly n: number;
}

const BEGIN = 1;
const INSIDE = 2;

/**
 * Lexicon matches as attributes. Every span of the sentence that spells an entry (word by word) is
 * a match, whatever its length; a token gets `lex[0]:city=B` where a match begins and
 * `lex[0]:city=I` inside one, for itself and its neighbours in the window. Matches are sought
 * twice: as written (`lex…`) and case-folded (`lexi…`, so that "NEW YORK" in a headline and
 * "new york" in a tweet still match "New York"), each with its own attributes.
 */
export function lexiconFeatures(
  lexicons: readonly LexiconResource[],
  options: LexiconFeatureOptions = {},
): TokenFeatures<LexiconMarks> {
  const window = options.window ?? 1;
  const exactRoot: TrieNode = { next: new Map(), ends: null };
  const foldedRoot: TrieNode = { next: new Map(), ends: null };
  let longest = 0;
  lexicons.forEach((lexicon, l) => {
    for (const entry of lexicon.entries) {
      const words = entry.split(/\s+/).filter((w) => w.length > 0);
      if (words.length === 0) continue;
      longest = Math.max(longest, words.length);
      addEntry(exactRoot, words, l);
      addEntry(
        foldedRoot,
        words.map((w) => w.toLowerCase()),
        l,
      );
    }
  });
  const L = lexicons.length;
  // Every name, numbered once (see SymbolSpace); symbols[offset + window] in the order below.
  const space = new SymbolSpace();
  const symbols: Int32Array[] = [];
  for (let offset = -window; offset <= window; offset++) {
    const row: number[] = [];
    for (const kind of ["lex", "lexi"]) {
      for (const lexicon of lexicons) {
        row.push(
          space.add(`${kind}[${offset}]:${lexicon.name}=B`),
          space.add(`${kind}[${offset}]:${lexicon.name}=I`),
        );
      }
    }
    symbols.push(Int32Array.from(row));
  }
  const emit = (sink: AttributeSink, t: number, symbol: number): void =>
    numberedState(sink, t, space.names[symbol]!, symbol, space);
  const mark = (
    root: TrieNode,
    words: readonly string[],
    marks: Uint8Array,
    marked: Uint8Array,
  ): void => {
    const n = words.length;
    for (let start = 0; start < n; start++) {
      let node: TrieNode | undefined = root;
      for (let end = start; end < n && end - start < longest; end++) {
        node = node.next.get(words[end]!);
        if (node === undefined) break;
        if (node.ends === null) continue;
        for (const l of node.ends) {
          marks[start * L + l]! |= BEGIN;
          for (let t = start + 1; t <= end; t++) marks[t * L + l]! |= INSIDE;
        }
        for (let t = start; t <= end; t++) marked[t] = 1;
      }
    }
  };
  return {
    prepare(rows) {
      const words = rows.map((row) => row[0]!);
      const n = words.length;
      const exact = new Uint8Array(n * L);
      const folded = new Uint8Array(n * L);
      const marked = new Uint8Array(n);
      mark(exactRoot, words, exact, marked);
      mark(
        foldedRoot,
        words.map((w) => w.toLowerCase()),
        folded,
        marked,
      );
      return { exact, folded, marked, n };
    },
    token({ exact, folded, marked, n }, t, sink: AttributeSink) {
      for (let offset = -window; offset <= window; offset++) {
        const at = t + offset;
        if (at < 0 || at >= n || marked[at] === 0) continue;
        const row = symbols[offset + window]!;
        for (let l = 0; l < L; l++) {
          const e = exact[at * L + l]!;
          if (e & BEGIN) emit(sink, t, row[2 * l]!);
          if (e & INSIDE) emit(sink, t, row[2 * l + 1]!);
          const f = folded[at * L + l]!;
          if (f & BEGIN) emit(sink, t, row[2 * L + 2 * l]!);
          if (f & INSIDE) emit(sink, t, row[2 * L + 2 * l + 1]!);
        }
      }
    },
  };
}
