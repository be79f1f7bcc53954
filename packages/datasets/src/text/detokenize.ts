/**
 * CoNLL-style tokens back to running text, with each token's offsets in it: the gold side of
 * measuring a tokeniser on corpora that ship only tokens. The usual detokenisation rules: no space
 * before `, . ; : ! ? % ) ] }`, `...`, the clitics (`'s`, `n't`, `'re`, …), `''` and closing
 * quotes; none after `( [ {`, a currency sign (`$`, `US$`, `£`, `#`), ``` `` ``` and opening
 * quotes. Straight double quotes alternate open, close, open; a lone `'` is taken as closing (the
 * plural possessive of news text: `players '`).
 */
import type { TextToken } from "./segment.js";

const NO_SPACE_BEFORE = new Set([
  ",",
  ".",
  ";",
  ":",
  "!",
  "?",
  "%",
  ")",
  "]",
  "}",
  "...",
  "…",
  "''",
  "'",
  "”",
  "’",
  "»",
]);
const NO_SPACE_AFTER = new Set(["(", "[", "{", "``", "“", "‘", "«", "¿", "¡", "£", "€", "¥", "#"]);
const CLITIC = /^(?:n['’]t|['’](?:s|re|ve|ll|d|m))$/i;
const CURRENCY = /^\p{Lu}{0,3}\$$/u;

/** The text of a token list and each token's place in it (`text.slice(start, end) === token`). */
export function detokenize(tokens: readonly string[]): { text: string; tokens: TextToken[] } {
  const out: TextToken[] = [];
  let text = "";
  let glueNext = true;
  let quoteOpen = false;
  for (const token of tokens) {
    let glue = glueNext;
    glueNext = false;
    if (token === '"') {
      if (quoteOpen) glue = true;
      else glueNext = true;
      quoteOpen = !quoteOpen;
    } else if (NO_SPACE_BEFORE.has(token) || CLITIC.test(token)) {
      glue = true;
    }
    if (NO_SPACE_AFTER.has(token) || CURRENCY.test(token)) glueNext = true;
    if (!glue) text += " ";
    out.push({ text: token, start: text.length, end: text.length + token.length });
    text += token;
  }
  return { text, tokens: out };
}
