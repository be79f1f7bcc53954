/**
 * Token predicates with Python `str` semantics (code points, Unicode properties), so that the ports
 * of CRFsuite's Python scripts give the same strings. Python's `isdigit` also accepts a few
 * non-decimal digits (superscripts, circled digits); here only `\p{Nd}` counts, which changes
 * nothing on the CoNLL corpora.
 */

export const UPPER = 1;
export const LOWER = 2;
export const TITLE = 4;
export const DIGIT = 8;
export const ALPHA = 16;
export const ALNUM = 32;

const ASCII_FLAGS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII_FLAGS[c] = UPPER | ALPHA | ALNUM;
  else if (c >= 97 && c <= 122) ASCII_FLAGS[c] = LOWER | ALPHA | ALNUM;
  else if (c >= 48 && c <= 57) ASCII_FLAGS[c] = DIGIT | ALNUM;
}

const nonAsciiFlags = new Map<number, number>();
const UPPER_RE = /^\p{Uppercase}$/u;
const LOWER_RE = /^\p{Lowercase}$/u;
const TITLE_RE = /^\p{Lt}$/u;
const DIGIT_RE = /^\p{Nd}$/u;
const ALPHA_RE = /^\p{L}$/u;
const ALNUM_RE = /^[\p{L}\p{N}]$/u;

/** Bit set of UPPER, LOWER, TITLE, DIGIT, ALPHA, ALNUM for one code point. */
export function charFlags(codePoint: number): number {
  if (codePoint < 128) return ASCII_FLAGS[codePoint]!;
  let flags = nonAsciiFlags.get(codePoint);
  if (flags === undefined) {
    const c = String.fromCodePoint(codePoint);
    flags =
      (UPPER_RE.test(c) ? UPPER : 0) |
      (LOWER_RE.test(c) ? LOWER : 0) |
      (TITLE_RE.test(c) ? TITLE : 0) |
      (DIGIT_RE.test(c) ? DIGIT : 0) |
      (ALPHA_RE.test(c) ? ALPHA : 0) |
      (ALNUM_RE.test(c) ? ALNUM : 0);
    nonAsciiFlags.set(codePoint, flags);
  }
  return flags;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** The code points of `token` as strings (Python's view of a `str`). */
export function codePoints(token: string): readonly string[] {
  return SURROGATE.test(token) ? Array.from(token) : token.split("");
}

/** Python `token[:k]` (empty when shorter than k, as ner.py's `defval`). */
export function prefix(chars: readonly string[], token: string, k: number): string {
  if (chars.length < k) return "";
  return chars.length === token.length ? token.slice(0, k) : chars.slice(0, k).join("");
}

/** Python `token[-k:]` (empty when shorter than k). */
export function suffix(chars: readonly string[], token: string, k: number): string {
  if (chars.length < k) return "";
  return chars.length === token.length ? token.slice(token.length - k) : chars.slice(-k).join("");
}

/** Summary of a token's characters, computed in one pass. */
export interface TokenProfile {
  /** OR of all character flags. */
  readonly any: number;
  /** AND of all character flags (0 for the empty token). */
  readonly all: number;
  readonly length: number;
}

export function profile(chars: readonly string[]): TokenProfile {
  let any = 0;
  let all = chars.length === 0 ? 0 : 0xff;
  for (const c of chars) {
    const f = charFlags(c.codePointAt(0)!);
    any |= f;
    all &= f;
  }
  return { any, all, length: chars.length };
}

/** Python `str.isupper()`: some cased character, and every cased one upper-case. */
export function isUpperString(p: TokenProfile): boolean {
  return (p.any & UPPER) !== 0 && (p.any & (LOWER | TITLE)) === 0;
}

/** Python `str.islower()`. */
export function isLowerString(p: TokenProfile): boolean {
  return (p.any & LOWER) !== 0 && (p.any & (UPPER | TITLE)) === 0;
}

/** Python `str.isdigit()`. */
export function isDigitString(p: TokenProfile): boolean {
  return p.length > 0 && (p.all & DIGIT) !== 0;
}

/** ner.py `get_shape`: U, L, D per letter/digit, punctuation mapped to a few classes. */
export function shape(chars: readonly string[]): string {
  let out = "";
  for (const c of chars) {
    const f = charFlags(c.codePointAt(0)!);
    if (f & UPPER) out += "U";
    else if (f & LOWER) out += "L";
    else if (f & DIGIT) out += "D";
    else if (c === "." || c === ",") out += ".";
    else if (c === ";" || c === ":" || c === "?" || c === "!") out += ";";
    else if (
      c === "+" ||
      c === "-" ||
      c === "*" ||
      c === "/" ||
      c === "=" ||
      c === "|" ||
      c === "_"
    )
      out += "-";
    else if (c === "(" || c === "{" || c === "[" || c === "<") out += "(";
    else if (c === ")" || c === "}" || c === "]" || c === ">") out += ")";
    else out += c;
  }
  return out;
}

/** ner.py `degenerate`: collapses runs of the same character (`ULLL` → `UL`). */
export function degenerate(text: string): string {
  let out = "";
  let last = "";
  for (const c of text) {
    if (c !== last) out += c;
    last = c;
  }
  return out;
}

const TYPE_NAMES = [
  "AllUpper",
  "AllDigit",
  "AllSymbol",
  "AllUpperDigit",
  "AllUpperSymbol",
  "AllDigitSymbol",
  "AllUpperDigitSymbol",
  "InitUpper",
  "AllLetter",
  "AllAlnum",
] as const;
const ALL_UPPER = 1 << 0;
const ALL_DIGIT = 1 << 1;
const ALL_SYMBOL = 1 << 2;
const ALL_UPPER_DIGIT = 1 << 3;
const ALL_UPPER_SYMBOL = 1 << 4;
const ALL_DIGIT_SYMBOL = 1 << 5;
const ALL_UPPER_DIGIT_SYMBOL = 1 << 6;
const INIT_UPPER = 1 << 7;
const ALL_LETTER = 1 << 8;
const ALL_ALNUM = 1 << 9;

/** ner.py `get_type`: the first of its ten token classes that fits, `EMPTY` or `NO`. */
export function tokenType(chars: readonly string[]): string {
  if (chars.length === 0) return "EMPTY";
  let r = (1 << TYPE_NAMES.length) - 1;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const f = charFlags(c.codePointAt(0)!);
    if (f & UPPER) {
      r &= ~(ALL_DIGIT | ALL_SYMBOL | ALL_DIGIT_SYMBOL);
    } else if (f & DIGIT || c === "," || c === ".") {
      r &= ~(ALL_UPPER | ALL_SYMBOL | ALL_UPPER_SYMBOL | ALL_LETTER);
    } else if (f & LOWER) {
      r &= ~(
        ALL_UPPER |
        ALL_DIGIT |
        ALL_SYMBOL |
        ALL_UPPER_DIGIT |
        ALL_UPPER_SYMBOL |
        ALL_DIGIT_SYMBOL |
        ALL_UPPER_DIGIT_SYMBOL
      );
    } else {
      r &= ~(ALL_UPPER | ALL_DIGIT | ALL_UPPER_DIGIT | ALL_LETTER | ALL_ALNUM);
    }
    if (i === 0 && !(f & UPPER)) r &= ~INIT_UPPER;
  }
  for (let k = 0; k < TYPE_NAMES.length; k++) if (r & (1 << k)) return TYPE_NAMES[k]!;
  return "NO";
}
