/**
 * Ratinov & Roth (2009)'s context aggregation, from the words alone (no first stage): a
 * capitalised token also sees the other occurrences of its word in the same document (compared
 * without case, so a headline's `CLINTON` meets the body's `Clinton`): the words around them
 * (±2) and how they were written (lower case mid-sentence, capitalised mid-sentence, all caps,
 * only sentence-initially, inside a longer capitalised run). A name mentioned once in an
 * unhelpful context borrows the contexts of its other mentions; a sentence-initial common word
 * that the document writes in lower case elsewhere is told apart from a name.
 *
 * The aggregates are document-level, so they travel as two input columns appended after the data's
 * own (`ctx`, `case`), computed over the whole input by {@link documentContextColumns}; the
 * extractor reads them like any column.
 */
import { numberedStates } from "./builder.js";
import type { TokenFeatures } from "./define-preset.js";
import { FeatureInputError } from "./errors.js";
import { SymbolSpace } from "./symbols.js";
import type { AttributeSink } from "./types.js";

/** The context columns, in order after the data's input columns. */
export const CONTEXT_KINDS = ["ctx", "case"] as const;

/** A context cell's value where a token has none (lower case, or its word occurs once). */
export const NO_CONTEXT = "_";

/**
 * Separates a `ctx` cell's items. A token with a space in it (a CoNLL-U form may have one) is read
 * as two items: the same at training and tagging, so only a feature name changes.
 */
const ITEM_SEPARATOR = " ";

/** Words either side of another occurrence that it contributes. */
const WINDOW = 2;
/** Other occurrences looked at, and items kept, per token: a word's first mentions suffice. */
const MAX_OCCURRENCES = 20;
const MAX_ITEMS = 48;

const UPPER_FIRST = /^\p{Lu}/u;
const HAS_LOWER = /\p{Ll}/u;
const HAS_UPPER = /\p{Lu}/u;

/** How another occurrence is written: one letter each, sorted in the `case` cell. */
function caseFlags(words: readonly string[], u: number, into: Set<string>): void {
  const word = words[u]!;
  if (u === 0) into.add("i");
  else if (!HAS_UPPER.test(word)) {
    if (HAS_LOWER.test(word)) into.add("l");
  } else if (HAS_LOWER.test(word)) {
    if (UPPER_FIRST.test(word)) into.add("c");
  } else into.add("u");
  // Part of a longer capitalised run there (a first name before it, a surname after it); a
  // sentence-initial word is capitalised by position, so it says nothing.
  if (u > 1 && UPPER_FIRST.test(words[u - 1]!)) into.add("p");
  if (u + 1 < words.length && UPPER_FIRST.test(words[u + 1]!)) into.add("n");
}

/**
 * The context columns of every token of a corpus, given each sentence's document (`documents[i]`,
 * equal for one document, documents being runs of sentences): per sentence `[ctx, case]`, each a
 * value per token. Only tokens that start with a capital get aggregates; the occurrence itself
 * never counts.
 */
export function documentContextColumns(
  sentences: readonly (readonly string[])[],
  documents: Int32Array,
): (readonly [string[], string[]])[] {
  const out: (readonly [string[], string[]])[] = sentences.map((words) => [
    new Array<string>(words.length).fill(NO_CONTEXT),
    new Array<string>(words.length).fill(NO_CONTEXT),
  ]);
  let from = 0;
  while (from < sentences.length) {
    let to = from + 1;
    while (to < sentences.length && documents[to] === documents[from]) to++;
    // Occurrences by lower-cased word: packed (sentence, token) pairs. Each word is lower-cased
    // once here; the items below read these.
    const occurrences = new Map<string, number[]>();
    const lower: string[][] = [];
    for (let i = from; i < to; i++) {
      const words = sentences[i]!;
      const lowered = words.map((w) => w.toLowerCase());
      lower.push(lowered);
      for (let t = 0; t < words.length; t++) {
        const key = lowered[t]!;
        let list = occurrences.get(key);
        if (list === undefined) {
          list = [];
          occurrences.set(key, list);
        }
        list.push(i, t);
      }
    }
    const items = new Set<string>();
    const flags = new Set<string>();
    for (let i = from; i < to; i++) {
      const words = sentences[i]!;
      const [ctx, casing] = out[i]!;
      for (let t = 0; t < words.length; t++) {
        if (!UPPER_FIRST.test(words[t]!)) continue;
        const list = occurrences.get(lower[i - from]![t]!)!;
        if (list.length <= 2) continue;
        items.clear();
        flags.clear();
        let seen = 0;
        for (let k = 0; k < list.length && seen < MAX_OCCURRENCES; k += 2) {
          const s = list[k]!;
          const u = list[k + 1]!;
          if (s === i && u === t) continue;
          seen++;
          const other = sentences[s]!;
          const otherLower = lower[s - from]!;
          caseFlags(other, u, flags);
          for (let d = -WINDOW; d <= WINDOW; d++) {
            const p = u + d;
            if (d === 0 || p < 0 || p >= other.length || items.size >= MAX_ITEMS) continue;
            items.add(`${d}${otherLower[p]!}`);
          }
        }
        if (items.size > 0) ctx[t] = [...items].join(ITEM_SEPARATOR);
        if (flags.size > 0) casing[t] = [...flags].sort().join("");
      }
    }
    from = to;
  }
  return out;
}

/** Per token the numbers of its aggregate names in `space` (null: none). */
interface SentenceContext {
  readonly space: SymbolSpace;
  readonly symbols: (Int32Array | null)[];
}

/** Distinct aggregate names kept numbered before the numbering starts over (bounds memory). */
const MAX_CACHED_NAMES = 1_000_000;

/**
 * The context columns (from input column `first` on) as attributes: `agg:-1said` for each word
 * around another occurrence, `agg:case=cl` for how the others are written and `agg:c` for each of
 * its letters. Rows without the columns are refused: such a model's input is the data with its
 * context appended over the whole input, never a sentence alone.
 */
export function contextFeatures(first: number): TokenFeatures<SentenceContext> {
  // Item → number of its name in `space` (see SymbolSpace): each name is built and hashed by the
  // model once, not per token. Started over between sentences when it has grown too large.
  let space = new SymbolSpace();
  let numbers = new Map<string, number>();
  const numberOf = (item: string): number => {
    let symbol = numbers.get(item);
    if (symbol === undefined) {
      symbol = space.add(`agg:${item}`);
      numbers.set(item, symbol);
    }
    return symbol;
  };
  const need = first + CONTEXT_KINDS.length;
  return {
    prepare(rows) {
      if (space.size >= MAX_CACHED_NAMES) {
        space = new SymbolSpace();
        numbers = new Map();
      }
      const list: (Int32Array | null)[] = new Array(rows.length);
      for (let t = 0; t < rows.length; t++) {
        const row = rows[t]!;
        if (row.length < need) {
          throw new FeatureInputError(
            "context",
            t,
            `has ${row.length} column(s); a model with document context reads it (${CONTEXT_KINDS.join(", ")}) in columns ${first + 1}–${need}: its input is the data with the context appended over whole documents (lagrange tag of a whole file, or recipes' withDocumentInputs), never the data alone`,
          );
        }
        const ctx = row[first]!;
        const casing = row[first + 1]!;
        if (ctx === NO_CONTEXT && casing === NO_CONTEXT) {
          list[t] = null;
          continue;
        }
        const mine: number[] = [];
        if (ctx !== NO_CONTEXT) {
          for (const item of ctx.split(ITEM_SEPARATOR)) mine.push(numberOf(item));
        }
        if (casing !== NO_CONTEXT) {
          mine.push(numberOf(`case=${casing}`));
          for (const flag of casing) mine.push(numberOf(flag));
        }
        list[t] = Int32Array.from(mine);
      }
      return { space, symbols: list };
    },
    token({ space: of, symbols }, t, sink: AttributeSink) {
      const mine = symbols[t];
      if (mine === null || mine === undefined) return;
      numberedStates(sink, t, mine, 0, mine.length, of);
    },
  };
}
