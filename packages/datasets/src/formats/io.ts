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

/**
 * Lines longer than this are taken as binary garbage rather than buffered without bound: a
 * `DataFormatError` at that line, before more than this is held. 64 Mi characters is far more
 * than any CoNLL token line or NDJSON record needs, and bounds a line's memory at about 200 MB.
 */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export function sourceName(source: TextSource, options: ReadOptions | undefined): string {
  if (options?.file !== undefined) return options.file;
  if (typeof source === "string") return source;
  if (source instanceof URL) return pathOfUrl(source);
  return "<stream>";
}

function openChunks(
  source: TextSource,
  signal: AbortSignal | undefined,
): AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array> {
  if (typeof source === "string" || source instanceof URL) {
    return openFileChunks(source, signal);
  }
  return source;
}

/**
 * Splits a source into lines (without their `\n` or a trailing `\r`), yielding them in batches so
 * that the per-line cost is a plain loop, not an async step. Memory is bounded by the chunk size
 * plus the longest line. Invalid UTF-8, NUL bytes and carriage returns that end no line (old Mac
 * files, whose lines end in CR alone: they are refused, not guessed at, since a CR inside CRLF
 * text may as well be damage) become DataFormatError; I/O errors pass through.
 *
 * A line that spans chunks is kept as the list of its pieces, and only each new chunk is searched
 * for a newline, so that a line costs its length once (a 50 MB line is read in linear time).
 */
export async function* sourceLines(
  source: TextSource,
  file: string,
  signal?: AbortSignal,
): AsyncGenerator<string[]> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let linesBefore = 0;
  let first = true;
  // The line begun and not ended yet: its pieces (all bytes, or all text) and their length.
  let byteCarry: Uint8Array[] = [];
  let textCarry: string[] = [];
  let carryLength = 0;

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
    const lines = splitLines(text, complete);
    if (text.includes("\r")) checkCarriageReturns(lines, file, linesBefore);
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

  /** A carried piece: a CR followed by more than a LF means CR line endings (no wait for 64 MiB). */
  const carry = (piece: string | Uint8Array) => {
    // Binary data (/dev/zero) holds no newline: it is refused at once, not after 64 Mi of it.
    if (typeof piece === "string" ? piece.includes("\0") : piece.includes(0)) {
      throw new DataFormatError(
        file,
        linesBefore + 1,
        "NUL byte: expected text, found binary data",
      );
    }
    if (loneCarriageReturn(piece)) throw strayCarriageReturnError(file, linesBefore + 1);
    carryLength += piece.length;
    if (carryLength > MAX_LINE_CHARS) throw tooLong(file, linesBefore + 1);
  };

  // I/O errors (a missing file, a failing stream) are not malformed input and keep their own type.
  for await (const chunk of openChunks(source, signal)) {
    signal?.throwIfAborted();
    if (typeof chunk === "string") {
      if (byteCarry.length > 0) {
        const text = decode(joinBytes(byteCarry, carryLength));
        byteCarry = [];
        textCarry = [text];
        carryLength = text.length;
      }
      const cut = chunk.lastIndexOf("\n");
      if (cut < 0) {
        carry(chunk);
        textCarry.push(chunk);
        continue;
      }
      textCarry.push(chunk.slice(0, cut + 1));
      const text = textCarry.join("");
      const rest = chunk.slice(cut + 1);
      textCarry = rest === "" ? [] : [rest];
      carryLength = rest.length;
      yield emit(text, true);
    } else {
      if (textCarry.length > 0)
        throw new DataFormatError(
          file,
          linesBefore + 1,
          "a stream must not mix text and byte chunks",
        );
      const cut = chunk.lastIndexOf(NEWLINE);
      if (cut < 0) {
        carry(chunk);
        // Copied: the source may reuse its buffer for the next chunk.
        byteCarry.push(chunk.slice());
        continue;
      }
      byteCarry.push(chunk.subarray(0, cut + 1));
      const text = decode(joinBytes(byteCarry, carryLength + cut + 1));
      byteCarry = cut + 1 < chunk.length ? [chunk.slice(cut + 1)] : [];
      carryLength = chunk.length - (cut + 1);
      yield emit(text, true);
    }
  }
  if (byteCarry.length > 0) textCarry = [decode(joinBytes(byteCarry, carryLength))];
  const tail = textCarry.join("");
  if (tail.length > 0) yield emit(tail, false);
}

/** Lines of a text, without their `\n` or a `\r` before it; `complete`: a final "" is no line. */
function splitLines(text: string, complete: boolean): string[] {
  const lines = text.split("\n");
  if (complete && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** Only when the text holds a CR: a line (its CRLF's CR removed) that still holds one is refused. */
function checkCarriageReturns(lines: readonly string[], file: string, linesBefore: number): void {
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.includes("\r")) throw strayCarriageReturnError(file, linesBefore + i + 1);
  }
}

/** Whether a piece of a line holds a CR followed by something other than LF (one at its end may be CRLF's). */
function loneCarriageReturn(piece: string | Uint8Array): boolean {
  const last = piece.length - 1;
  if (typeof piece === "string") {
    for (let at = piece.indexOf("\r"); at >= 0 && at < last; at = piece.indexOf("\r", at + 1)) {
      if (piece.charCodeAt(at + 1) !== NEWLINE) return true;
    }
    return false;
  }
  for (let at = piece.indexOf(CARRIAGE_RETURN); at >= 0 && at < last; ) {
    if (piece[at + 1] !== NEWLINE) return true;
    at = piece.indexOf(CARRIAGE_RETURN, at + 1);
  }
  return false;
}

/**
 * A CR that ends no line, at `line`: the one message of every line reader (this one and the
 * queue's shard cutter). On the first line (no LF before it), the file's lines end in CR alone:
 * an old Mac file, said as such; further on, a stray CR inside a line.
 */
export function strayCarriageReturnError(file: string, line: number): DataFormatError {
  return new DataFormatError(
    file,
    line,
    line === 1
      ? "lines end in CR only (old Mac line endings); convert them to LF or CRLF (e.g. tr '\\r' '\\n')"
      : "a carriage return (CR) inside the line: expected lines that end in LF or CRLF",
  );
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
  const lines = splitLines(text, true);
  if (text.includes("\r")) checkCarriageReturns(lines, file, 0);
  return lines;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The pieces of a line joined once, when it ends (never once per chunk). */
function joinBytes(pieces: readonly Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
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
