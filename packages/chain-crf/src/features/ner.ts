import { numberedStates } from "./builder.js";
import { definePreset } from "./define-preset.js";
import { escapeColons, type FieldTemplate, FieldTemplateSet } from "./field-templates.js";
import { SymbolSpace } from "./symbols.js";
import {
  ALNUM,
  ALPHA,
  charFlags,
  codePoints,
  DIGIT,
  degenerate,
  isDigitString,
  isLowerString,
  isUpperString,
  LOWER,
  prefix,
  profile,
  shape,
  suffix,
  tokenType,
  UPPER,
} from "./token.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

/** ner.py's unigram fields (each at offsets −2…2) in its order. */
export const NER_UNIGRAM_FIELDS = [
  "w",
  "wl",
  "pos",
  "chk",
  "shape",
  "shaped",
  "type",
  "p1",
  "p2",
  "p3",
  "p4",
  "s1",
  "s2",
  "s3",
  "s4",
  "2d",
  "4d",
  "d&a",
  "d&-",
  "d&/",
  "d&,",
  "d&.",
  "up",
  "iu",
  "au",
  "al",
  "ad",
  "ao",
  "cu",
  "cl",
  "ca",
  "cd",
  "cs",
] as const;

/** ner.py's bigram fields (pairs at offsets (i, i+1), i = −2…1). */
export const NER_BIGRAM_FIELDS = ["w", "pos", "chk", "shaped", "type"] as const;

function nerTemplates(keep: (field: string) => boolean): FieldTemplate[] {
  const templates: FieldTemplate[] = [];
  for (const field of NER_UNIGRAM_FIELDS) {
    if (!keep(field)) continue;
    for (let i = -2; i <= 2; i++) templates.push([[field, i]]);
  }
  for (const field of NER_BIGRAM_FIELDS) {
    if (!keep(field)) continue;
    for (let i = -2; i <= 1; i++) {
      templates.push([
        [field, i],
        [field, i + 1],
      ]);
    }
  }
  return templates;
}

const yesNo = (v: boolean): string => (v ? "yes" : "no");

function digitsAnd(chars: readonly string[], other: string | null): boolean {
  let digit = false;
  let seen = false;
  for (const c of chars) {
    const f = charFlags(c.codePointAt(0)!);
    if (f & DIGIT) digit = true;
    else if (other === null ? (f & ALPHA) !== 0 : c === other) seen = true;
    else return false;
  }
  return digit && seen;
}

/**
 * ner.py `observation(v)` for one word: the values of NER_UNIGRAM_FIELDS, in their order, with
 * empty strings for pos and chk (they come from the columns).
 */
function observe(word: string): string[] {
  const chars = codePoints(word);
  const p = profile(chars);
  const firstFlags = chars.length > 0 ? charFlags(chars[0]!.codePointAt(0)!) : 0;
  const s = shape(chars);
  const out: string[] = [];
  const put = (value: string): void => {
    out.push(escapeColons(value));
  };
  put(word);
  put(word.toLowerCase());
  put(""); // pos, chk: filled from the columns
  put("");
  put(s);
  put(degenerate(s));
  put(tokenType(chars));
  for (let n = 1; n <= 4; n++) put(prefix(chars, word, n));
  for (let n = 1; n <= 4; n++) put(suffix(chars, word, n));
  const digits = isDigitString(p);
  put(yesNo(chars.length === 2 && digits));
  put(yesNo(chars.length === 4 && digits));
  put(yesNo(digitsAnd(chars, null)));
  put(yesNo(digitsAnd(chars, "-")));
  put(yesNo(digitsAnd(chars, "/")));
  put(yesNo(digitsAnd(chars, ",")));
  put(yesNo(digitsAnd(chars, ".")));
  put(yesNo(chars.length === 2 && (firstFlags & UPPER) !== 0 && chars[1] === "."));
  put(yesNo((firstFlags & UPPER) !== 0));
  put(yesNo(isUpperString(p)));
  put(yesNo(isLowerString(p)));
  put(yesNo(digits));
  put(yesNo((p.any & ALNUM) === 0));
  put(yesNo((p.any & UPPER) !== 0));
  put(yesNo((p.any & LOWER) !== 0));
  put(yesNo((p.any & ALPHA) !== 0));
  put(yesNo((p.any & DIGIT) !== 0));
  // ner.py's contains_symbol ORs `~c.isalnum()`, which is -1 or -2 and so always true: the
  // script says "yes" for every non-empty token, and so do we, to keep the attribute sets equal.
  put(yesNo(chars.length > 0));
  return out;
}

/** Distinct words whose observations are kept before the cache starts over (bounds memory). */
const MAX_CACHED_WORDS = 200_000;

/**
 * {@link observe} once per distinct word, not per token: words repeat, and the observations were
 * a sizeable share of tagging. The cached values are also the same string objects each time, so
 * the field templates' lookups of them hash nothing new.
 */
class Observations {
  private readonly cache = new Map<string, readonly string[]>();

  of(word: string): readonly string[] {
    let values = this.cache.get(word);
    if (values === undefined) {
      if (this.cache.size >= MAX_CACHED_WORDS) this.cache.clear();
      values = observe(word);
      this.cache.set(word, values);
    }
    return values;
  }
}

/** The column layout ner.py reads: CoNLL-2003's input columns. */
export const NER_COLUMNS = ["word", "pos", "chunk"] as const;

/** Distinct window names kept numbered before the numbering starts over (bounds memory). */
const MAX_WINDOW_NAMES = 1_000_000;

/**
 * The disjunctive word windows' names `w[-4..-1]=word` and `w[1..4]=word`, numbered per word (see
 * SymbolSpace): a token lists up to eight of them, and building and hashing each string anew was
 * a large part of tagging.
 */
class WindowNames {
  space = new SymbolSpace();
  private readonly before = new Map<string, number>();
  private readonly after = new Map<string, number>();

  /** Per token, the numbers of its word's two names (before[t], after[t]). */
  prepare(words: readonly string[]): { before: Int32Array; after: Int32Array } {
    if (this.space.size >= MAX_WINDOW_NAMES) {
      this.space = new SymbolSpace();
      this.before.clear();
      this.after.clear();
    }
    const n = words.length;
    const before = new Int32Array(n);
    const after = new Int32Array(n);
    for (let t = 0; t < n; t++) {
      before[t] = this.number(this.before, "w[-4..-1]=", words[t]!);
      after[t] = this.number(this.after, "w[1..4]=", words[t]!);
    }
    return { before, after };
  }

  private number(known: Map<string, number>, prefix: string, word: string): number {
    let symbol = known.get(word);
    if (symbol === undefined) {
      symbol = this.space.add(prefix + word);
      known.set(word, symbol);
    }
    return symbol;
  }
}

/** A sentence as the ner preset reads it: its field values, and its window names' numbers. */
interface NerSentence {
  /** One array per field of NER_UNIGRAM_FIELDS (the field templates' input). */
  readonly values: string[][];
  readonly space: SymbolSpace;
  readonly before: Int32Array;
  readonly after: Int32Array;
}

/** ner.py's per-token attributes: the field templates, then the disjunctive word windows. */
function nerToken(templates: FieldTemplateSet) {
  /** A token's window names' numbers (scratch): at most four either side. */
  const run = new Int32Array(8);
  return (rows: Rows, sentence: NerSentence, t: number, sink: AttributeSink): void => {
    const n = rows.length;
    const { values, space, before, after } = sentence;
    templates.apply(values, n, t, sink);
    let count = 0;
    for (let p = Math.max(0, t - 4); p <= t - 1; p++) run[count++] = before[p]!;
    for (let p = t + 1; p <= Math.min(n - 1, t + 4); p++) run[count++] = after[p]!;
    numberedStates(sink, t, run, 0, count, space);
  };
}

export interface NerOptions {
  /**
   * The names of the data's input columns, left to right (default `word, pos, chunk`). The
   * observations of a `pos` or `chunk` column are used where the layout has one and left out where
   * it has not (CoNLL-2002 has `word, pos`; tweets have `word` alone); the word is the `word`
   * column, or the first.
   */
  readonly columns?: readonly string[];
}

/**
 * The attributes of CRFsuite's `example/ner.py` for CoNLL-2003 rows `[word, POS, chunk]`: 33
 * token observations (word, lower-cased word, shape, degenerated shape, type, prefixes and
 * suffixes of 1–4 characters, digit/case/symbol flags, POS, chunk) at offsets −2…2; bigrams of
 * word, POS, chunk, degenerated shape and type; the disjunctive word sets `w[-4..-1]` and
 * `w[1..4]`; `__BOS__` / `__EOS__`. Names and order as the script writes them (`:` escaped as
 * `__COLON__`). About 190 attributes per token. Another column layout keeps the fields its
 * columns give (see {@link NerOptions.columns}).
 */
export function nerPreset(options: NerOptions = {}): Preset {
  const layout = options.columns ?? NER_COLUMNS;
  const wordAt = Math.max(0, layout.indexOf("word"));
  const posAt = layout.indexOf("pos");
  const chunkAt = layout.indexOf("chunk");
  const keep = (field: string): boolean =>
    (field !== "pos" || posAt >= 0) && (field !== "chk" || chunkAt >= 0);
  const templates = new FieldTemplateSet(nerTemplates(keep), NER_UNIGRAM_FIELDS);
  const windows = new WindowNames();
  const observations = new Observations();
  const posField = NER_UNIGRAM_FIELDS.indexOf("pos");
  const chunkField = NER_UNIGRAM_FIELDS.indexOf("chk");
  const read = [wordAt, posAt, chunkAt].filter((c) => c >= 0);
  const columns = layout.slice(0, Math.max(...read) + 1);
  const standard = posAt === 1 && chunkAt === 2 && wordAt === 0;
  const wordsOnly = posAt < 0 && chunkAt < 0;
  return definePreset({
    name: standard ? "ner" : wordsOnly ? "ner-words" : "ner",
    description: wordsOnly
      ? "the ner preset on words alone (no POS or chunk columns, e.g. tweets): word, lower-case, shape, type, affixes, digit/case flags in a ±2 window, bigrams, disjunctive word windows"
      : `CRFsuite's example/ner.py on [${columns.join(", ")}]: word, lower-case, shape, type, affixes, digit/case flags${posAt >= 0 ? ", POS" : ""}${chunkAt >= 0 ? ", chunk" : ""} in a ±2 window, bigrams, disjunctive word windows`,
    columns,
    prepare(rows: Rows): NerSentence {
      const n = rows.length;
      const values = NER_UNIGRAM_FIELDS.map(() => new Array<string>(n));
      for (let t = 0; t < n; t++) {
        const row = rows[t]!;
        const observed = observations.of(row[wordAt]!);
        for (let k = 0; k < observed.length; k++) values[k]![t] = observed[k]!;
        if (posAt >= 0) values[posField]![t] = escapeColons(row[posAt]!);
        if (chunkAt >= 0) values[chunkField]![t] = escapeColons(row[chunkAt]!);
      }
      // The numbering may start over in prepare: its space is read after.
      const { before, after } = windows.prepare(values[0]!);
      return { values, space: windows.space, before, after };
    },
    token: nerToken(templates),
  });
}

/**
 * `ner` for corpora that have words only (tweets: WNUT-16/17, Ritter 2011): the same observations,
 * bigrams and disjunctive windows, without the POS and chunk fields (no tagger output is assumed).
 */
export function nerWordsPreset(): Preset {
  return nerPreset({ columns: ["word"] });
}
