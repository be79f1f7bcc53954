import { definePreset } from "./define-preset.js";
import { CITATION_LEXICONS, SEGMENT_START_WORDS } from "./lexicons.js";
import {
  ALNUM,
  ALPHA,
  charFlags,
  codePoints,
  DIGIT,
  degenerate,
  isLowerString,
  isUpperString,
  prefix,
  profile,
  shape,
  suffix,
  tokenType,
  UPPER,
} from "./token.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

export interface CitationOptions {
  /**
   * Extra word lists: a token whose lower-cased form (or that form stripped of surrounding
   * punctuation) is in set `S` gets attribute `lex:<name>`; its neighbours get `lex[-1]:<name>` /
   * `lex[1]:<name>`. Single tokens only. A name equal to a built-in replaces the built-in.
   */
  readonly lexicons?: Readonly<Record<string, ReadonlySet<string>>>;
  /** Use the built-in lexicons ({@link CITATION_LEXICONS}). Default true. */
  readonly builtinLexicons?: boolean;
  /** Number of bins for the relative position in the citation. Default 10. */
  readonly positionBins?: number;
}

const COLUMNS = ["word"] as const;
const YEAR = /^(?:19|20)\d\d[a-z]?$/;
const CONTAINS_YEAR = /(?:^|\D)(?:19|20)\d\d(?!\d)/;
const DIGIT_RANGE = /^\d+\s*[-–—]+\s*\d+$/;
const INITIALS = /^(?:\p{Lu}\.)+$/u;
const ORDINAL = /^\d+(?:st|nd|rd|th)$/i;
const URL_LIKE = /^(?:https?:|www\.|ftp:)/i;
const START_WORDS = new Set(SEGMENT_START_WORDS);

/** Per token: the lower-cased word, its degenerated shape and its lexicon matches. */
interface CitationSentence {
  readonly lowers: readonly string[];
  readonly shapes: readonly string[];
  readonly matches: ReadonlyArray<readonly string[] | undefined>;
}

const EDGE_NON_ALNUM = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** Lower-cased token stripped of leading and trailing characters that are not letters or digits. */
function core(lower: string): string {
  const n = lower.length;
  if (n === 0) return lower;
  const first = lower.charCodeAt(0);
  const last = lower.charCodeAt(n - 1);
  if (first < 128 && last < 128 && charFlags(first) & ALNUM && charFlags(last) & ALNUM)
    return lower;
  return lower.replace(EDGE_NON_ALNUM, "");
}

/**
 * A rule-based segmenter's boundary (Anzaroot & McCallum 2014): after a punctuation token or one
 * ending in `, ; : )`, after a lower-case or numeric token ending in `.` (not after initials or
 * capitalised abbreviations such as "E." or "Proc.", which sit inside fields), or at a word that
 * usually opens a field ("In", "vol.", "pp.").
 */
function startsSegment(previous: string, previousLower: string, lower: string): boolean {
  const last = previous[previous.length - 1];
  if (last === "," || last === ";" || last === ":" || last === ")" || last === "(") return true;
  if (last === "." && (previous.length === 1 || previous === previousLower)) return true;
  return START_WORDS.has(core(lower));
}

function buildLexiconIndex(options: CitationOptions): Map<string, string[]> {
  const lists = new Map<string, Iterable<string>>();
  if (options.builtinLexicons ?? true) {
    for (const [name, words] of Object.entries(CITATION_LEXICONS)) lists.set(name, words);
  }
  for (const [name, words] of Object.entries(options.lexicons ?? {})) {
    if (name.length === 0)
      throw new RangeError("citation preset: a lexicon needs a non-empty name");
    lists.set(name, words);
  }
  const index = new Map<string, string[]>();
  for (const [name, words] of lists) {
    for (const word of words) {
      const key = word.toLowerCase();
      if (key.length === 0) continue;
      const names = index.get(key);
      if (names === undefined) index.set(key, [name]);
      else if (!names.includes(name)) names.push(name);
    }
  }
  return index;
}

/**
 * Citation field extraction features in the spirit of Anzaroot & McCallum (2013, 2014): word
 * identity (lower-cased, ±2 window), shape, capitalisation, digit patterns (years, page ranges),
 * punctuation, binned relative position, prefixes and suffixes of 1–4 characters, lexicon matches
 * (months, venue, publisher, institution, name-particle words, …) and a rule-based segment-start
 * flag (after punctuation or at words such as "In" and "vol."). Input rows: `[word]`.
 */
export function citationPreset(options: CitationOptions = {}): Preset {
  const bins = options.positionBins ?? 10;
  if (!Number.isInteger(bins) || bins < 1) {
    throw new RangeError(`citation preset: positionBins must be a positive integer, got ${bins}`);
  }
  const lexicon = buildLexiconIndex(options);
  const lookup = (lower: string): readonly string[] | undefined => {
    const direct = lexicon.get(lower);
    const stripped = core(lower);
    if (stripped === lower) return direct;
    const other = lexicon.get(stripped);
    if (direct === undefined) return other;
    if (other === undefined) return direct;
    return [...direct, ...other.filter((name) => !direct.includes(name))];
  };

  return definePreset({
    name: "citation",
    description:
      "Citation fields: lower-cased words (±2), shape, capitalisation, digit/year/page-range patterns, punctuation, binned position, affixes 1–4, lexicons, segment starts",
    columns: COLUMNS,
    prepare(rows: Rows): CitationSentence {
      const n = rows.length;
      const lowers = new Array<string>(n);
      const shapes = new Array<string>(n);
      const matches = new Array<readonly string[] | undefined>(n);
      for (let t = 0; t < n; t++) {
        const word = rows[t]![0]!;
        const lower = word.toLowerCase();
        lowers[t] = lower;
        shapes[t] = degenerate(shape(codePoints(word)));
        matches[t] = lookup(lower);
      }
      return { lowers, shapes, matches };
    },
    token(rows: Rows, sentence: CitationSentence, t: number, sink: AttributeSink): void {
      const n = rows.length;
      const { lowers, shapes, matches } = sentence;
      const word = rows[t]![0]!;
      const lower = lowers[t]!;
      const chars = codePoints(word);
      const p = profile(chars);
      const add = (name: string): void => sink.state(t, name, 1);

      add(`w=${lower}`);
      if (t >= 2) add(`w[-2]=${lowers[t - 2]}`);
      if (t >= 1) add(`w[-1]=${lowers[t - 1]}`);
      if (t + 1 < n) add(`w[1]=${lowers[t + 1]}`);
      if (t + 2 < n) add(`w[2]=${lowers[t + 2]}`);
      if (t >= 1) add(`w[-1]|w[0]=${lowers[t - 1]}|${lower}`);
      if (t + 1 < n) add(`w[0]|w[1]=${lower}|${lowers[t + 1]}`);

      add(`shape=${shapes[t]}`);
      if (t >= 1) add(`shape[-1]=${shapes[t - 1]}`);
      if (t + 1 < n) add(`shape[1]=${shapes[t + 1]}`);
      add(`type=${tokenType(chars)}`);

      if (p.any & ALPHA) {
        const firstUpper = chars.length > 0 && (charFlags(chars[0]!.codePointAt(0)!) & UPPER) !== 0;
        if (isUpperString(p)) add("cap=all");
        else if (isLowerString(p)) add("cap=lower");
        else if (firstUpper) add("cap=init");
        else add("cap=mixed");
        if (INITIALS.test(word)) add("initials");
        if (chars.length === 1 && firstUpper) add("single-upper");
      }

      if (p.any & DIGIT) {
        if (p.all & DIGIT) add("digits=all");
        else add("digits=some");
        let count = 0;
        for (const c of chars) if (charFlags(c.codePointAt(0)!) & DIGIT) count++;
        add(`digits=${Math.min(count, 5)}`);
        const stripped = core(lower);
        if (YEAR.test(stripped)) add("year");
        else if (CONTAINS_YEAR.test(word)) add("yearlike");
        if (DIGIT_RANGE.test(stripped)) add("range");
        if (ORDINAL.test(stripped)) add("ordinal");
      }

      if ((p.any & ALNUM) === 0) {
        add("punct");
      } else {
        const last = chars[chars.length - 1]!;
        if (!(charFlags(last.codePointAt(0)!) & ALNUM)) add(`ends=${last}`);
      }
      if (/[([{]/.test(word)) add("open-bracket");
      if (/[)\]}]/.test(word)) add("close-bracket");
      if (/["'`“”‘’]/.test(word)) add("quote");
      if (word.includes("-") && (p.any & ALNUM) !== 0) add("hyphen");
      if (URL_LIKE.test(word) || word.includes("@")) add("url");

      add(`bin=${Math.floor((t * bins) / n)}`);

      const lowerChars = codePoints(lower);
      for (let k = 1; k <= 4 && k <= lowerChars.length; k++) {
        add(`p${k}=${prefix(lowerChars, lower, k)}`);
        add(`s${k}=${suffix(lowerChars, lower, k)}`);
      }

      const here = matches[t];
      if (here !== undefined) for (const name of here) add(`lex:${name}`);
      const before = t >= 1 ? matches[t - 1] : undefined;
      if (before !== undefined) for (const name of before) add(`lex[-1]:${name}`);
      const after = t + 1 < n ? matches[t + 1] : undefined;
      if (after !== undefined) for (const name of after) add(`lex[1]:${name}`);

      if (t === 0 || startsSegment(rows[t - 1]![0]!, lowers[t - 1]!, lower)) add("segstart");
    },
  });
}
