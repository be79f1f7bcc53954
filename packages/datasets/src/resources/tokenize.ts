/**
 * A small, documented Penn-Treebank-like tokeniser for untokenised English text (ABC news, State
 * of the Union), so that its words look like CoNLL tokens. Rules, applied to each
 * whitespace-separated chunk:
 *
 * 1. Opening brackets and quotes (`( [ { " “ ‘ « ¿ ¡`, ``` `` ```) are split off the front; a
 *    leading `'` too, unless it starts a clitic (`'s`) or a year (`'80s`). A currency sign or `#`
 *    before a digit is split off (`$49` → `$ 49`).
 * 2. Closing brackets, quotes and `, ; : ! ?` are split off the end, and so is a trailing `...`
 *    (or `…`). A final `.` is split off unless the chunk is an abbreviation: letters each
 *    followed by a period (`U.S.`, `e.g.`, `W.`) or a common title, month or company word
 *    (`Mr.`, `Jan.`, `Inc.`; see `ABBREVIATIONS`). A trailing `'` after an `s` is the plural
 *    possessive and is split off (`Americans'` → `Americans '`).
 * 3. Inside a word only `--`, `—` and `...` split it; so numbers (`3.5`, `1,000`), hyphenated words and
 *    abbreviations stay whole.
 * 4. Clitics: `n't` and `'s 're 've 'll 'd 'm` (with `'` or `’`) are split off
 *    (`don't` → `do n't`, `can't` → `ca n't`, `Bush's` → `Bush 's`).
 *
 * `splitSentences` then cuts a line's tokens after `.`, `?`, `!` or `...` (and any closing quotes
 * or brackets right after it) where the next token starts with a capital letter, a digit or an
 * opening quote or bracket. An abbreviation kept whole never ends a sentence, so `U.S.` at the end
 * of a sentence joins it to the next: a known, accepted error of this simple rule.
 */

/** Abbreviations (lower case, without the final period) whose period stays on the word. */
export const ABBREVIATIONS: ReadonlySet<string> = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "mt",
  "ft",
  "gen",
  "gov",
  "sen",
  "rep",
  "rev",
  "col",
  "lt",
  "sgt",
  "capt",
  "adm",
  "maj",
  "pres",
  "hon",
  "messrs",
  "inc",
  "ltd",
  "corp",
  "bros",
  "co",
  "vs",
  "etc",
  "approx",
  "dept",
  "univ",
  "assn",
  "ave",
  "blvd",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);

const OPENERS = new Set(["(", "[", "{", '"', "“", "‘", "«", "¿", "¡"]);
const CLOSERS = new Set([")", "]", "}", '"', "”", "’", "»", ",", ";", ":", "!", "?"]);
const CURRENCY = new Set(["$", "£", "€", "¥", "#"]);
const CLITIC = /^(.*[^'’\s])(n['’]t)$/i;
const SUFFIX_CLITIC = /^(.*[^'’\s])(['’](?:s|re|ve|ll|d|m))$/i;
const LEADING_APOSTROPHE_KEPT = /^['’](?:s|re|ve|ll|d|m|t|\d\d)/i;
const INITIALS = /^(?:\p{L}\.)+$/u;
const DIGIT = /\p{Nd}/u;

function isAbbreviation(word: string): boolean {
  if (!word.endsWith(".") || word.length < 2) return false;
  if (INITIALS.test(word)) return true;
  return ABBREVIATIONS.has(word.slice(0, -1).toLowerCase());
}

/** Splits `--` and inner `...` out of a chunk, then clitics off each piece. */
function splitMiddle(word: string, out: string[]): void {
  const pieces = word.split(/(--+|—|\.\.\.|…)/);
  for (const piece of pieces) {
    if (piece === "") continue;
    const nt = CLITIC.exec(piece);
    if (nt !== null) {
      out.push(nt[1]!, nt[2]!);
      continue;
    }
    const clitic = SUFFIX_CLITIC.exec(piece);
    if (clitic !== null) {
      out.push(clitic[1]!, clitic[2]!);
      continue;
    }
    out.push(piece);
  }
}

function tokenizeChunk(chunk: string, out: string[]): void {
  let word = chunk;
  // 1. Openers off the front.
  for (;;) {
    if (word.length < 2) break;
    if (word.startsWith("``")) {
      out.push("``");
      word = word.slice(2);
      continue;
    }
    const first = word[0]!;
    if (OPENERS.has(first)) {
      out.push(first);
      word = word.slice(1);
      continue;
    }
    if ((first === "'" || first === "’") && !LEADING_APOSTROPHE_KEPT.test(word)) {
      out.push(first);
      word = word.slice(1);
      continue;
    }
    if (CURRENCY.has(first) && DIGIT.test(word[1]!)) {
      out.push(first);
      word = word.slice(1);
    }
    break;
  }
  // 2. Closers off the end (collected in reverse).
  const tail: string[] = [];
  for (;;) {
    if (word.length < 2) break;
    if (word.endsWith("''")) {
      tail.push("''");
      word = word.slice(0, -2);
      continue;
    }
    if (word.endsWith("...") && word.length > 3) {
      tail.push("...");
      word = word.slice(0, -3);
      continue;
    }
    if (word.endsWith("…")) {
      tail.push("…");
      word = word.slice(0, -1);
      continue;
    }
    const last = word[word.length - 1]!;
    if (CLOSERS.has(last)) {
      tail.push(last);
      word = word.slice(0, -1);
      continue;
    }
    if (last === "'") {
      // The plural possessive (`Americans'`) or a closing single quote; a lone clitic such as
      // `'` in `rock 'n'` is split the same way.
      tail.push("'");
      word = word.slice(0, -1);
      continue;
    }
    if (last === "." && !isAbbreviation(word)) {
      tail.push(".");
      word = word.slice(0, -1);
      continue;
    }
    break;
  }
  if (word !== "") splitMiddle(word, out);
  for (let i = tail.length - 1; i >= 0; i--) out.push(tail[i]!);
}

/** Tokens of one line (or any text) of untokenised English, by the rules above. */
export function tokenizeText(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    if (chunk !== "") tokenizeChunk(chunk, out);
  }
  return out;
}

const SENTENCE_END = new Set([".", "?", "!", "...", "…"]);
const AFTER_END = new Set(['"', "''", "”", "’", "'", ")", "]", "}"]);
const STARTS_SENTENCE = /^(?:\p{Lu}|\p{Nd}|["“‘'`([])/u;

/** Cuts one line's tokens into sentences (see the module comment); never returns empty ones. */
export function splitSentences(tokens: readonly string[]): string[][] {
  const sentences: string[][] = [];
  let current: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    current.push(tokens[i]!);
    if (!SENTENCE_END.has(tokens[i]!)) continue;
    while (i + 1 < tokens.length && AFTER_END.has(tokens[i + 1]!)) current.push(tokens[++i]!);
    const next = tokens[i + 1];
    if (next !== undefined && STARTS_SENTENCE.test(next)) {
      sentences.push(current);
      current = [];
    }
  }
  if (current.length > 0) sentences.push(current);
  return sentences;
}
