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

/**
 * What a CoNLL reader has decided by a given line (the separator, the width of a token line, the
 * document in effect), carried into a batch of lines that another thread reads from there on.
 */
export interface ConllState {
  readonly separator: string | undefined;
  readonly width: number;
  readonly document: DocumentInfo | undefined;
  /** Document markers seen so far. */
  readonly documents: number;
}

const FRESH_CONLL_STATE: ConllState = {
  separator: undefined,
  width: 0,
  document: undefined,
  documents: 0,
};

/**
 * Follows a CoNLL stream's {@link ConllState} line by line, as {@link ConllRecords} decides it,
 * without building records: the main thread cuts the stream into batches with it and hands each
 * worker the state at its batch's start. Once the width is known only marker lines matter.
 */
class ConllStateTracker {
  #separator: string | undefined;
  #width = 0;
  #document: DocumentInfo | undefined;
  #documents = 0;
  #inError = false;

  constructor(readonly file: string) {}

  state(): ConllState {
    return {
      separator: this.#separator,
      width: this.#width,
      document: this.#document,
      documents: this.#documents,
    };
  }

  line(text: string, lineNumber: number, blank: boolean): void {
    if (blank) {
      this.#inError = false;
      return;
    }
    if (this.#separator === undefined) {
      if (text.includes("\t")) this.#separator = "\t";
      else if (text.includes(" ")) this.#separator = " ";
    }
    if (this.#width !== 0 && !text.startsWith(DEFAULT_MARKER)) return;
    const fields = this.#separator === undefined ? [text] : text.split(this.#separator);
    if (fields[0] === DEFAULT_MARKER) {
      this.#inError = false;
      this.#document = {
        index: this.#documents++,
        marker: fields,
        source: { file: this.file, line: lineNumber },
      };
      return;
    }
    if (this.#width !== 0 || this.#inError) return;
    // The first token line sets the width unless it has an empty column (then its block is malformed).
    if (fields.includes("")) this.#inError = true;
    else this.#width = fields.length;
  }
}

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
  #width: number;
  #rows: string[][] = [];
  #firstLine = 0;
  #error: DataFormatError | undefined;
  #document: DocumentInfo | undefined;
  #documents: number;

  /** `state`: what the lines before this reader's first line decided (a batch read by a worker). */
  constructor(
    readonly file: string,
    state: ConllState = FRESH_CONLL_STATE,
  ) {
    this.#separator = state.separator;
    this.#width = state.width;
    this.#document = state.document;
    this.#documents = state.documents;
  }

  line(text: string, lineNumber: number, out: StreamRecord[]): void {
    if (BLANK.test(text)) {
      this.#flush(out);
      return;
    }
    // No line of a malformed block can decide the separator: a block is malformed only once it is known.
    if (this.#separator === undefined) {
      if (text.includes("\t")) this.#separator = "\t";
      else if (text.includes(" ")) this.#separator = " ";
    }
    const fields = this.#separator === undefined ? [text] : text.split(this.#separator);
    // A document marker ends the block before it, even a malformed one (whose error it reports).
    if (fields[0] === DEFAULT_MARKER) {
      this.#flush(out);
      this.#document = {
        index: this.#documents++,
        marker: fields,
        source: { file: this.file, line: lineNumber },
      };
      return;
    }
    if (this.#error !== undefined) return; // the rest of a malformed block
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

/** Whether `text[start, end)` holds only spaces and tabs: the record separator of the line formats. */
export function isBlankRange(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * A run of whole records of the input, as lines: what the main thread cuts and a worker parses
 * and tags (so that the thread that reads the stream does little more than split it into lines).
 */
export interface LineBatch {
  readonly lines: readonly string[];
  /** The input line number of `lines[0]`. */
  readonly firstLine: number;
  /** Records (sentences, or malformed blocks) that begin in the batch. */
  readonly records: number;
  /** CoNLL: the reader's state at the batch's first line. */
  readonly conll?: ConllState;
}

export interface LineBatchOptions extends ReadRecordsOptions {
  /** Records per batch. */
  readonly records: number;
  /** The number of the input's first line (default 1): a shard cut from a larger file. */
  readonly firstLine?: number;
}

/**
 * Cuts a stream into batches of whole records, as lines: a CoNLL batch ends on a blank line (a
 * batch keeps the blank lines after its records), an NDJSON batch between lines. The lines come
 * from `sourceLines` as in {@link readRecords}; {@link parseLineBatch} reads a batch's records
 * exactly as `readRecords` reads them in the whole stream.
 */
export async function* readLineBatches(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: LineBatchOptions,
): AsyncGenerator<LineBatch> {
  const { file, signal } = options;
  if (!Number.isInteger(options.records) || options.records < 1) {
    throw new RangeError(`records per batch: expected an integer ≥ 1, got ${options.records}`);
  }
  const tracker = options.format === "conll" ? new ConllStateTracker(file) : undefined;
  const perLine = options.format === "ndjson";
  let lines: string[] = [];
  let firstLine = options.firstLine ?? 1;
  let records = 0;
  let lineNumber = firstLine - 1;
  let inRecord = false;
  let state = tracker?.state();
  const batch = (): LineBatch => ({
    lines,
    firstLine,
    records,
    ...(state === undefined ? {} : { conll: state }),
  });
  for await (const chunk of sourceLines(input, file, signal)) {
    for (const line of chunk) {
      lineNumber++;
      const blank = isBlankRange(line, 0, line.length);
      if (!blank && !inRecord) {
        if (records === options.records) {
          yield batch();
          lines = [];
          firstLine = lineNumber;
          records = 0;
          state = tracker?.state();
        }
        records++;
        inRecord = !perLine;
      } else if (blank) {
        inRecord = false;
      }
      tracker?.line(line, lineNumber, blank);
      lines.push(line);
    }
  }
  if (records > 0) yield batch();
}

/** The records of a batch cut by {@link readLineBatches}. */
export function parseLineBatch(
  batch: LineBatch,
  options: { readonly format: StreamFormat; readonly file: string },
): StreamRecord[] {
  const parser: RecordParser =
    options.format === "ndjson"
      ? new NdjsonRecords(options.file)
      : new ConllRecords(options.file, batch.conll);
  const out: StreamRecord[] = [];
  let lineNumber = batch.firstLine;
  for (const line of batch.lines) parser.line(line, lineNumber++, out);
  parser.finish(out);
  return out;
}
