import { createReadStream } from "node:fs";
import { isBlankRange } from "../stream/records.js";

/** The file formats a corpus may be sharded in: their sentences never span a blank line (CoNLL, CoNLL-U) or a line (inline). */
export const SHARD_FORMATS = ["conll", "conllu", "inline"] as const;
export type ShardFormat = (typeof SHARD_FORMATS)[number];

/** A run of whole sentences of the corpus, with the line it starts on for error messages. */
export interface Shard {
  readonly index: number;
  /** 1-based line of the corpus file on which the shard's text begins. */
  readonly firstLine: number;
  /** Sentences (blocks of non-blank lines, or lines for inline) in the shard. */
  readonly sentences: number;
  /** The corpus's lines, unchanged, each ending in `\n`. */
  readonly text: string;
}

/**
 * Cuts a corpus file into shards of `size` sentences, streaming (the corpus is never held whole).
 * Cuts fall only between sentences: for CoNLL and CoNLL-U, on a blank line (a shard keeps the
 * blank lines that end its sentences); for inline, between lines. So shard texts laid end to end
 * are the file itself (with `\r\n` and lone `\r` line ends written `\n`, and a last line given
 * its `\n`), and tagging them one by one gives what tagging the file gives.
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

  /** Cuts the whole lines of `text` (which ends in `\n`, or its tail is returned unread). */
  function* cut(text: string): Generator<Shard, string> {
    let pieceStart = 0;
    let lineStart = 0;
    for (;;) {
      const end = text.indexOf("\n", lineStart);
      if (end < 0) break;
      lineNumber++;
      const blank = isBlankRange(text, lineStart, end);
      if (!blank && !inSentence) {
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

  let carry = "";
  for await (const chunk of createReadStream(path, {
    encoding: "utf8",
    highWaterMark: chunkBytes,
  }) as AsyncIterable<string>) {
    signal?.throwIfAborted();
    let text = carry + chunk;
    // A \r at the chunk's end may be the first half of \r\n: it waits for the next chunk.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    carry = yield* cut(text);
    if (heldCr) carry += "\r";
  }
  if (carry !== "") {
    const tail = carry.replace(/\r\n?/g, "\n");
    yield* cut(tail.endsWith("\n") ? tail : `${tail}\n`);
  }
  if (pieces.length > 0 && pieces.some((p) => p !== "")) {
    yield { index, firstLine, sentences, text: pieces.join("") };
  }
}
