import { join } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { inputFileError, readInput } from "@lagrange/core/node";
import { DataFormatError } from "../formats/errors.js";
import { DatasetUnavailableError } from "../registry/errors.js";
import { findMirrorDir, type LocateOptions } from "../registry/resolve.js";
import { LEXICONS, type LexiconInfo, lexiconNames } from "./catalog.js";
import { normaliseLexiconLines, parseLexiconText } from "./lexicon-text.js";
import { checkLineEndings } from "./line-endings.js";
import { packageLexiconLines } from "./package-lexicons.js";

export interface LexiconOptions extends LocateOptions {
  readonly signal?: AbortSignal;
}

/**
 * A lexicon's bytes through core's one input opener: a device is refused, a FIFO waited for
 * stoppably, and the lexicon cap applies (`InputTooLargeError`).
 */
async function readBytes(file: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const bytes = await readInput(file, {
    kind: "lexicon",
    ...(signal === undefined ? {} : { signal }),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

function lineOf(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

function decode(bytes: Buffer, file: string, encoding: "utf-8" | "latin1"): string {
  if (bytes.length === 0) {
    throw new DataFormatError(file, 1, "empty file: expected one lexicon entry a line");
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new DataFormatError(
      file,
      lineOf(bytes, nul),
      "NUL byte: this is a binary file, expected text with one lexicon entry a line",
    );
  }
  if (encoding === "latin1") return checked(bytes.toString("latin1"), file);
  try {
    return checked(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), file);
  } catch (error) {
    if (error instanceof DataFormatError) throw error;
    // The first line that does not decode names the place.
    const strict = new TextDecoder("utf-8", { fatal: true });
    let line = 1;
    let from = 0;
    while (from <= bytes.length) {
      const newline = bytes.indexOf(0x0a, from);
      const to = newline < 0 ? bytes.length : newline;
      try {
        strict.decode(bytes.subarray(from, to));
      } catch {
        break;
      }
      if (newline < 0) break;
      from = newline + 1;
      line++;
    }
    throw new DataFormatError(
      file,
      line,
      "invalid UTF-8: expected UTF-8 text with one lexicon entry a line (convert it, e.g. iconv -f latin1 -t utf-8)",
    );
  }
}

function checked(text: string, file: string): string {
  checkLineEndings(text, file);
  return text;
}

/**
 * A user's lexicon: one entry a line, UTF-8, `#` starting a comment line; entries trimmed, inner
 * whitespace runs made one space (a multi-word entry is its words separated by spaces), duplicates
 * kept once, in file order. An empty file, a binary file (NUL bytes), invalid UTF-8, lines that end
 * in CR alone or a file with no entry is a DataFormatError naming `file` (and the line); an
 * unreadable file or a device an InputFileError, one over the lexicon cap an InputTooLargeError.
 */
export async function readLexiconFile(
  file: string,
  options: { readonly signal?: AbortSignal } = {},
): Promise<string[]> {
  const text = decode(await readBytes(file, options.signal), file, "utf-8");
  return parseLexiconText(text, file);
}

/** The catalogue entry called `name`; a `usage` error listing the names otherwise. */
export function getLexicon(name: string): LexiconInfo {
  const found = LEXICONS.find((l) => l.name === name);
  if (found === undefined) {
    throw new LagrangeError(
      "usage",
      `unknown lexicon "${name}"; known: ${lexiconNames().join(", ")} (or give a file of your own)`,
    );
  }
  return found;
}

/** Package lexicons built in this process: building the cities decodes 138,000 records. */
const built = new Map<string, Promise<readonly string[]>>();

async function packageLexicon(name: string, signal: AbortSignal | undefined): Promise<string[]> {
  let entries = built.get(name);
  if (entries === undefined) {
    entries = packageLexiconLines(name, signal).then((lines) => {
      const normalised = normaliseLexiconLines(lines);
      // A package whose data moved or emptied would otherwise give a lexicon that never fires.
      if (normalised.length === 0) {
        throw new LagrangeError(
          "unavailable",
          `lexicon ${name}: its npm package gave no entries (reinstall the workspace's dependencies)`,
        );
      }
      return normalised;
    });
    built.set(name, entries);
    // A failed or aborted build is not kept: the next call tries again.
    entries.catch(() => built.delete(name));
  }
  return [...(await entries)];
}

/**
 * The entries of a catalogue lexicon (`LEXICONS`) by the rules of `readLexiconFile`: a mirror
 * lexicon read from the dataset mirror in its declared encoding, a package lexicon built from the
 * npm packages it names (no mirror needed). No mirror, or no such file in it, is a
 * DatasetUnavailableError that says where the file belongs.
 */
export async function openLexicon(name: string, options: LexiconOptions = {}): Promise<string[]> {
  const lexicon = getLexicon(name);
  if (lexicon.source === "package") return packageLexicon(name, options.signal);
  const mirror = findMirrorDir(options);
  if (mirror === undefined) {
    throw new DatasetUnavailableError(
      `lexicon "${name}" is read from the dataset mirror only, and no mirror was found: set LAGRANGE_DATA_DIR to a copy of shared/datasets that holds ${lexicon.file}`,
      [],
    );
  }
  const path = join(mirror, lexicon.file);
  let bytes: Buffer;
  try {
    bytes = await readBytes(path, options.signal);
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    if ((error as { errno?: string }).errno === "ENOENT") {
      throw new DatasetUnavailableError(
        `lexicon "${name}": ${path} is not in the mirror; place the unzipped NLTK file there (see lexicons/SOURCE.md)`,
        [path],
      );
    }
    throw inputFileError(path, error);
  }
  return parseLexiconText(decode(bytes, path, lexicon.encoding), path);
}
