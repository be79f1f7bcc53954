import { openFileChunks, pathOfUrl } from "#platform";
import { DataFormatError } from "./errors.js";

/**
 * What a streaming reader accepts: a file path (string or `file:` URL), or any (async) iterable
 * of text or byte chunks — a Node `Readable`, a `fetch` body, an array of strings. Byte chunks
 * must be UTF-8; chunk boundaries may fall anywhere, even inside a character.
 */
export type TextSource =
  | string
  | URL
  | AsyncIterable<string | Uint8Array>
  | Iterable<string | Uint8Array>;

export interface ReadOptions {
  /** Name used in error messages and `source.file` when the source is not a path. */
  file?: string;
  signal?: AbortSignal;
}

/** Lines longer than this are taken as binary garbage rather than buffered without bound. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
const NEWLINE = 0x0a;

export function sourceName(source: TextSource, options: ReadOptions | undefined): string {
  if (options?.file !== undefined) return options.file;
  if (typeof source === "string") return source;
  if (source instanceof URL) return pathOfUrl(source);
  return "<stream>";
}

function openChunks(
  source: TextSource,
): AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array> {
  if (typeof source === "string" || source instanceof URL) {
    return openFileChunks(source);
  }
  return source;
}

/**
 * Splits a source into lines (without their `\n` or a trailing `\r`), yielding them in batches so
 * that the per-line cost is a plain loop, not an async step. Memory is bounded by the chunk size
 * plus the longest line. Invalid UTF-8 and NUL bytes become DataFormatError; I/O errors pass through.
 */
export async function* sourceLines(
  source: TextSource,
  file: string,
  signal?: AbortSignal,
): AsyncGenerator<string[]> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let linesBefore = 0;
  let first = true;
  let byteCarry: Uint8Array = new Uint8Array(0);
  let textCarry = "";

  const emit = (text: string, complete: boolean): string[] => {
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const nul = text.indexOf("\0");
    if (nul >= 0) {
      const line = linesBefore + countNewlines(text, nul) + 1;
      throw new DataFormatError(file, line, "NUL byte: expected text, found binary data");
    }
    const lines = text.split("\n");
    if (complete && lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
    }
    linesBefore += lines.length;
    return lines;
  };

  const decode = (bytes: Uint8Array): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      throw invalidUtf8Error(file, bytes, linesBefore);
    }
  };

  // I/O errors (a missing file, a failing stream) are not malformed input and keep their own type.
  for await (const chunk of openChunks(source)) {
    signal?.throwIfAborted();
    if (typeof chunk === "string") {
      if (byteCarry.length > 0) {
        textCarry += decode(byteCarry);
        byteCarry = new Uint8Array(0);
      }
      const text = textCarry + chunk;
      const cut = text.lastIndexOf("\n");
      if (cut < 0) {
        textCarry = text;
        if (textCarry.length > MAX_LINE_CHARS) throw tooLong(file, linesBefore + 1);
        continue;
      }
      textCarry = text.slice(cut + 1);
      yield emit(text.slice(0, cut + 1), true);
    } else {
      if (textCarry.length > 0)
        throw new DataFormatError(
          file,
          linesBefore + 1,
          "a stream must not mix text and byte chunks",
        );
      const bytes = byteCarry.length === 0 ? chunk : concat(byteCarry, chunk);
      const cut = bytes.lastIndexOf(NEWLINE);
      if (cut < 0) {
        byteCarry = bytes === chunk ? chunk.slice() : bytes;
        if (byteCarry.length > MAX_LINE_CHARS) throw tooLong(file, linesBefore + 1);
        continue;
      }
      const text = decode(bytes.subarray(0, cut + 1));
      byteCarry = bytes.slice(cut + 1);
      yield emit(text, true);
    }
  }
  if (byteCarry.length > 0) textCarry += decode(byteCarry);
  if (textCarry.length > 0) yield emit(textCarry, false);
}

/** Splits an in-memory text the same way `sourceLines` splits a stream. */
export function textLines(text: string, file: string): string[] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const nul = text.indexOf("\0");
  if (nul >= 0) {
    throw new DataFormatError(
      file,
      countNewlines(text, nul) + 1,
      "NUL byte: expected text, found binary data",
    );
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Only on the error path: finds the first byte that is not valid UTF-8, to name its line. */
function invalidUtf8Error(file: string, bytes: Uint8Array, linesBefore: number): DataFormatError {
  const at = firstInvalidUtf8(bytes);
  let line = linesBefore + 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (bytes[i] === NEWLINE) {
      line++;
      lineStart = i + 1;
    }
  }
  return new DataFormatError(
    file,
    line,
    `invalid UTF-8 at byte ${at - lineStart + 1} of the line: expected UTF-8 text`,
  );
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return Math.max(0, bytes.length - 1);
}

function tooLong(file: string, line: number): DataFormatError {
  return new DataFormatError(
    file,
    line,
    `line longer than ${MAX_LINE_CHARS} characters: expected line-based text`,
  );
}
