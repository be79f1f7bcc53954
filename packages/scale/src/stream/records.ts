import { DataFormatError, type DocumentInfo, type Sentence, sourceLines } from "@lagrange/datasets";

/** The line formats a stream is read and written in. */
export type StreamFormat = "conll" | "ndjson";

export const STREAM_FORMATS: readonly StreamFormat[] = ["conll", "ndjson"];

/** One record of the input, in input order: a sentence, or why its lines could not be read. */
export type StreamRecord =
  | { readonly kind: "sentence"; readonly sentence: Sentence }
  | { readonly kind: "error"; readonly error: DataFormatError };

const BLANK = /^[ \t]*$/;
const DEFAULT_MARKER = "-DOCSTART-";

interface RecordParser {
  /** Reads one line (without its newline); pushes finished records to `out`. */
  line(text: string, lineNumber: number, out: StreamRecord[]): void;
  /** End of input. */
  finish(out: StreamRecord[]): void;
}

/**
 * CoNLL column blocks read as `readConll` reads them (separator from the first line with more than
 * one column, width from the first token line, `-DOCSTART-` documents, gold last when there are at
 * least two columns), but record by record: a malformed block becomes one error record and the
 * next block is read, so that a caller may skip it rather than lose the rest of the stream.
 */
class ConllRecords implements RecordParser {
  #separator: string | undefined;
  #width = 0;
  #rows: string[][] = [];
  #firstLine = 0;
  #error: DataFormatError | undefined;
  #document: DocumentInfo | undefined;
  #documents = 0;

  constructor(readonly file: string) {}

  line(text: string, lineNumber: number, out: StreamRecord[]): void {
    if (BLANK.test(text)) {
      this.#flush(out);
      return;
    }
    if (this.#error !== undefined) return; // the rest of a malformed block
    if (this.#separator === undefined) {
      if (text.includes("\t")) this.#separator = "\t";
      else if (text.includes(" ")) this.#separator = " ";
    }
    const fields = this.#separator === undefined ? [text] : text.split(this.#separator);
    if (fields[0] === DEFAULT_MARKER) {
      this.#flush(out);
      this.#document = {
        index: this.#documents++,
        marker: fields,
        source: { file: this.file, line: lineNumber },
      };
      return;
    }
    if (this.#rows.length === 0) this.#firstLine = lineNumber;
    const separator = this.#separator === "\t" ? "tab" : "space";
    for (let c = 0; c < fields.length; c++) {
      if (fields[c] === "") {
        this.#error = new DataFormatError(
          this.file,
          lineNumber,
          `empty column ${c + 1}: expected ${this.#width || fields.length} ${separator}-separated non-empty columns`,
          c + 1,
        );
        return;
      }
    }
    if (this.#width === 0) this.#width = fields.length;
    else if (fields.length !== this.#width) {
      this.#error = new DataFormatError(
        this.file,
        lineNumber,
        `found ${fields.length} column${fields.length === 1 ? "" : "s"}: expected ${this.#width} ${separator}-separated columns as on the file's first token line`,
      );
      return;
    }
    this.#rows.push(fields);
  }

  finish(out: StreamRecord[]): void {
    this.#flush(out);
  }

  #flush(out: StreamRecord[]): void {
    const error = this.#error;
    if (error !== undefined) {
      this.#error = undefined;
      this.#rows = [];
      out.push({ kind: "error", error });
      return;
    }
    const rows = this.#rows;
    if (rows.length === 0) return;
    this.#rows = [];
    const width = this.#width;
    const columns: string[][] = [];
    for (let c = 0; c < width; c++) {
      const column = new Array<string>(rows.length);
      for (let i = 0; i < rows.length; i++) column[i] = rows[i]![c]!;
      columns.push(column);
    }
    const sentence: Sentence = {
      tokens: columns[0]!,
      columns,
      source: { file: this.file, line: this.#firstLine, tokenPerLine: true },
    };
    if (width >= 2) sentence.labels = columns[width - 1]!;
    if (this.#document !== undefined) sentence.document = this.#document;
    out.push({ kind: "sentence", sentence });
  }
}

/**
 * One JSON object per line: `{"tokens": [...], "columns": [[...], ...]?, "labels": [...]?}`.
 * `columns`, when given, are the input columns, tokens first (as in a CoNLL file); `labels` are
 * gold. Blank lines are skipped.
 */
class NdjsonRecords implements RecordParser {
  constructor(readonly file: string) {}

  line(text: string, lineNumber: number, out: StreamRecord[]): void {
    if (BLANK.test(text)) return;
    try {
      out.push({ kind: "sentence", sentence: this.#sentence(text, lineNumber) });
    } catch (error) {
      if (!(error instanceof DataFormatError)) throw error;
      out.push({ kind: "error", error });
    }
  }

  finish(): void {}

  #sentence(text: string, line: number): Sentence {
    const bad = (detail: string) => new DataFormatError(this.file, line, detail);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw bad(`${(error as Error).message}: expected one JSON object per line`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw bad('expected a JSON object {"tokens": [...], "labels"?: [...]}');
    }
    const record = value as { tokens?: unknown; columns?: unknown; labels?: unknown };
    const tokens = strings(record.tokens);
    if (tokens === undefined || tokens.length === 0) {
      throw bad('"tokens": expected a non-empty array of non-empty strings');
    }
    const n = tokens.length;
    let columns: string[][];
    if (record.columns === undefined) columns = [tokens];
    else {
      if (!Array.isArray(record.columns) || record.columns.length === 0) {
        throw bad(`"columns": expected an array of input columns, each an array of ${n} strings`);
      }
      columns = [];
      for (let c = 0; c < record.columns.length; c++) {
        const column = strings(record.columns[c]);
        if (column === undefined || column.length !== n) {
          throw bad(`"columns"[${c}]: expected an array of ${n} non-empty strings (one per token)`);
        }
        columns.push(column);
      }
      if (columns[0]!.some((t, i) => t !== tokens[i])) {
        throw bad('"columns"[0]: expected the tokens (the first input column is "tokens")');
      }
      columns[0] = tokens;
    }
    const sentence: Sentence = { tokens, columns, source: { file: this.file, line } };
    if (record.labels !== undefined) {
      const labels = strings(record.labels);
      if (labels === undefined || labels.length !== n) {
        throw bad(`"labels": expected an array of ${n} non-empty strings (one per token)`);
      }
      sentence.columns = [...columns, labels];
      sentence.labels = labels;
    }
    return sentence;
  }
}

function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const x of value) if (typeof x !== "string" || x === "") return undefined;
  return value as string[];
}

export interface ReadRecordsOptions {
  readonly format: StreamFormat;
  /** The name in messages and `source.file` (`<stdin>` for standard input). */
  readonly file: string;
  readonly signal?: AbortSignal;
}

/**
 * Splits a stream of text or UTF-8 byte chunks into records, yielded in batches (one per batch of
 * lines that completes any) so that the per-line cost is a plain loop. The lines come from the
 * datasets package's one line reader (`sourceLines`: UTF-8, NUL and line-length checks at their
 * line), so a stream reads its text exactly as the file readers do. Memory: a chunk, the longest
 * line and the records of one batch.
 */
export async function* readRecords(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: ReadRecordsOptions,
): AsyncGenerator<StreamRecord[]> {
  const { file, signal } = options;
  const parser: RecordParser =
    options.format === "ndjson" ? new NdjsonRecords(file) : new ConllRecords(file);
  let lineNumber = 0;
  for await (const batch of sourceLines(input, file, signal)) {
    const out: StreamRecord[] = [];
    for (const line of batch) parser.line(line, ++lineNumber, out);
    if (out.length > 0) yield out;
  }
  const out: StreamRecord[] = [];
  parser.finish(out);
  if (out.length > 0) yield out;
}
