import { openInput } from "@lagrange/core/node";
import { isInlineRecordSeparator, strayCarriageReturnError } from "@lagrange/datasets";
import { isBlankRange } from "../stream/records.js";

/**
 * The file formats a corpus may be sharded in: their sentences never span a blank line (CoNLL,
 * CoNLL-U), or a line (inline), or, in inline files with a record separator (Cora's
 * `<NEWREFERENCE>`), the lines from one separator to the next.
 */
export const SHARD_FORMATS = ["conll", "conllu", "inline"] as const;
export type ShardFormat = (typeof SHARD_FORMATS)[number];

/** A run of whole sentences of the corpus, with the line it starts on for error messages. */
export interface Shard {
  readonly index: number;
  /** 1-based line of the corpus file on which the shard's text begins. */
  readonly firstLine: number;
  /** Sentences (blocks of non-blank lines; for inline, lines or separated records) in the shard. */
  readonly sentences: number;
  /** The corpus's lines, unchanged, each ending in `\n`. */
  readonly text: string;
}

/**
 * Cuts a corpus file into shards of `size` sentences, streaming (the corpus is never held whole).
 * Cuts fall only between sentences: for CoNLL and CoNLL-U, on a blank line (a shard keeps the
 * blank lines that end its sentences); for inline, between lines. So shard texts laid end to end
 * are the file itself (with `\r\n` line ends written `\n`, and a last line given its `\n`), and
 * tagging them one by one gives what tagging the file gives. A CR that ends no line (old Mac line
 * endings) is refused at its line, as every line reader refuses it (datasets' `sourceLines`).
 * The file is opened by core's `openInput`: a FIFO is read to its end, and its wait stoppably.
 *
 * It works on the file's chunks, slicing shard texts out of them, rather than line by line: a
 * million-citation corpus is cut while the workers already tag, on the same cores, and building
 * each line as its own string made the garbage collector the larger part of the cost.
 */
export async function* shardCorpus(
  path: string,
  format: ShardFormat,
  size: number,
  signal?: AbortSignal,
  chunkBytes = 1 << 20,
): AsyncGenerator<Shard> {
  if (!Number.isInteger(size) || size < 1) {
    throw new TypeError(`shard size ${size}: expected a positive integer`);
  }
  const perLine = format === "inline";
  let index = 0;
  /** Lines read so far. */
  let lineNumber = 0;
  let firstLine = 1;
  /** The current shard's text: slices of chunks. */
  let pieces: string[] = [];
  let sentences = 0;
  let inSentence = false;
  /**
   * Inline only: the record separator line, decided by the first non-blank line as the reader
   * decides it (`undefined` until then); `null` when each line is a record. A Cora record is two
   * lines, its separator and its text: counting lines counted each citation twice.
   */
  let separator: string | null | undefined;

  /** Whether the line [start, end) of `text` is the separator, trimmed as the reader trims it. */
  const isSeparator = (text: string, start: number, end: number, line: string): boolean => {
    let i = start;
    while (i < end && /\s/.test(text[i]!)) i++;
    // Sliced only after the separator: a record's text lines are not cut into strings.
    return text.startsWith(line, i) && text.slice(i + line.length, end).trim() === "";
  };

  /** Cuts the whole lines of `text` (which ends in `\n`, or its tail is returned unread). */
  function* cut(text: string): Generator<Shard, string> {
    let pieceStart = 0;
    let lineStart = 0;
    for (;;) {
      const end = text.indexOf("\n", lineStart);
      if (end < 0) break;
      lineNumber++;
      const blank = isBlankRange(text, lineStart, end);
      if (perLine && !blank && separator === undefined) {
        const first = text.slice(lineStart, end).trim();
        // A line of other white space (no-break spaces) decides nothing, as for the reader.
        if (first !== "") separator = isInlineRecordSeparator(first) ? first : null;
      }
      const starts =
        perLine && !blank && typeof separator === "string"
          ? isSeparator(text, lineStart, end, separator)
          : !blank && !inSentence;
      if (starts) {
        // A new sentence begins: the shard is full, so this line opens the next one.
        if (sentences === size) {
          pieces.push(text.slice(pieceStart, lineStart));
          yield { index, firstLine, sentences, text: pieces.join("") };
          index++;
          firstLine = lineNumber;
          pieces = [];
          sentences = 0;
          pieceStart = lineStart;
        }
        sentences++;
        inSentence = !perLine;
      } else if (blank) {
        inSentence = false;
      }
      lineStart = end + 1;
    }
    pieces.push(text.slice(pieceStart, lineStart));
    return text.slice(lineStart);
  }

  /** CRLF → LF; a CR left is one that ends no line: refused at its line. */
  const lineEnds = (text: string): string => {
    const unix = text.replace(/\r\n/g, "\n");
    const stray = unix.indexOf("\r");
    if (stray >= 0) {
      let line = lineNumber + 1;
      for (let at = unix.indexOf("\n"); at >= 0 && at < stray; at = unix.indexOf("\n", at + 1)) {
        line++;
      }
      throw strayCarriageReturnError(path, line);
    }
    return unix;
  };

  // Decoded as Node's "utf8" stream encoding decodes (a byte order mark kept, bad bytes replaced).
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const input = await openInput(path, {
    // A corpus: a device is refused, and an endless pipe stops at the data cap.
    kind: "data",
    chunkBytes,
    ...(signal === undefined ? {} : { signal }),
  });
  let carry = "";
  for await (const bytes of input) {
    signal?.throwIfAborted();
    let text = carry + decoder.decode(bytes, { stream: true });
    // A \r at the chunk's end may be the first half of \r\n: it waits for the next chunk.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    if (text.includes("\r")) text = lineEnds(text);
    carry = yield* cut(text);
    if (heldCr) carry += "\r";
  }
  carry += decoder.decode();
  if (carry !== "") {
    const tail = lineEnds(carry);
    yield* cut(tail.endsWith("\n") ? tail : `${tail}\n`);
  }
  if (pieces.length > 0 && pieces.some((p) => p !== "")) {
    yield { index, firstLine, sentences, text: pieces.join("") };
  }
}
