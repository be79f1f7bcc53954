import { DataFormatError } from "../formats/errors.js";

/**
 * Entries of a lexicon's text: one a line, trimmed, inner whitespace runs made one space (a
 * multi-word entry is its words separated by single spaces), blank lines and lines starting with
 * `#` skipped, duplicates kept once in first-seen order. A text with no entry is a
 * DataFormatError naming `file`. Carriage returns of CRLF files go with the trimming.
 */
export function parseLexiconText(text: string, file: string): string[] {
  const seen = new Set<string>();
  const entries: string[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const entry = line.split(/\s+/).join(" ");
    if (seen.has(entry)) continue;
    seen.add(entry);
    entries.push(entry);
  }
  if (entries.length === 0) {
    throw new DataFormatError(
      file,
      1,
      "no lexicon entries (only blank lines or # comments): expected one entry a line",
    );
  }
  return entries;
}
