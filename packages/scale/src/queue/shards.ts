import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

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
 * are the file itself, and tagging them one by one gives what tagging the file gives.
 */
export async function* shardCorpus(
  path: string,
  format: ShardFormat,
  size: number,
  signal?: AbortSignal,
): AsyncGenerator<Shard> {
  if (!Number.isInteger(size) || size < 1) {
    throw new TypeError(`shard size ${size}: expected a positive integer`);
  }
  const lines = createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let index = 0;
  let lineNumber = 0;
  let firstLine = 1;
  let text = "";
  let sentences = 0;
  let inSentence = false;
  const perLine = format === "inline";
  try {
    for await (const line of lines) {
      signal?.throwIfAborted();
      lineNumber++;
      const blank = /^[ \t\r]*$/.test(line);
      if (!blank && !inSentence) {
        // A new sentence begins: the shard is full, so this line opens the next one.
        if (sentences === size) {
          yield { index, firstLine, sentences, text };
          index++;
          firstLine = lineNumber;
          text = "";
          sentences = 0;
        }
        sentences++;
        inSentence = !perLine;
      } else if (blank) {
        inSentence = false;
      }
      text += `${line}\n`;
    }
  } finally {
    lines.close();
  }
  if (text !== "") yield { index, firstLine, sentences, text };
}
