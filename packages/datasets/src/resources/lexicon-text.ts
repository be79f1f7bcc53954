import { DataFormatError } from "../formats/errors.js";

/**
 * Entries of a lexicon's text: one a line, trimmed, inner whitespace runs made one space (a
 * multi-word entry is its words separated by single spaces), blank lines and lines starting with
 * `#` skipped, duplicates kept once in first-seen order. A text with no entry is a
 * DataFormatError naming `file`. Carriage returns of CRLF files go with the trimming.
 */
export function parseLexiconText(text: string, file: string): string[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const entries = normaliseLexiconLines(body.split("\n"));
  if (entries.length === 0) {
    throw new DataFormatError(
      file,
      1,
      "no lexicon entries (only blank lines or # comments): expected one entry a line",
    );
  }
  return entries;
}

/**
 * The entries of lexicon lines by `parseLexiconText`'s rules (trimmed, inner whitespace one space,
 * blanks and `#` lines skipped, first of duplicates kept): one normalisation for files and for
 * the lists built from packages.
 */
export function normaliseLexiconLines(lines: Iterable<string>): string[] {
  const seen = new Set<string>();
  const entries: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const entry = line.split(/\s+/).join(" ");
    if (seen.has(entry)) continue;
    seen.add(entry);
    entries.push(entry);
  }
  return entries;
}
