import { writeFileAtomic } from "#platform";
import { DataFormatError } from "./errors.js";
import {
  collect,
  type ReadOptions,
  sourceLines,
  sourceName,
  type TextSource,
  textLines,
} from "./io.js";

export type { ReadOptions, TextSource } from "./io.js";

/**
 * A push parser: sees one line at a time and appends finished records to `out`. A format supplies
 * only this; the entry points below drive it, so that its streaming reader, its in-memory parser
 * and its whole-file reader accept exactly the same input and report errors the same way.
 */
export interface LineParser<T> {
  readonly out: T[];
  line(text: string, lineNumber: number): void;
  /** Called once after the last line; `lastLine` is the number of lines seen (0 for an empty input). */
  finish(lastLine: number): void;
}

/** Makes a parser for one input; `file` is the name its errors and `source` positions carry. */
export type ParserFactory<T> = (file: string) => LineParser<T>;

/**
 * Streams the records `source` holds, decoding and splitting it lazily, chunk by chunk. The name
 * and the parser are settled at the call, not at the first `next()`, so that a bad source (a URL
 * that is no file) throws where the reader is called.
 */
export function readRecords<T>(
  source: TextSource,
  options: ReadOptions,
  createParser: ParserFactory<T>,
): AsyncGenerator<T> {
  const file = sourceName(source, options);
  return runParser(sourceLines(source, file, options.signal), createParser(file));
}

/** Parses text already in memory, line for line as `readRecords` would stream it. */
export function parseRecords<T>(
  text: string,
  options: ReadOptions,
  createParser: ParserFactory<T>,
): T[] {
  const file = options.file ?? "<text>";
  const parser = createParser(file);
  const lines = textLines(text, file);
  for (let i = 0; i < lines.length; i++) parser.line(lines[i]!, i + 1);
  parser.finish(lines.length);
  return parser.out;
}

/** Reads a whole file into memory, through the same streaming path as `readRecords`. */
export function readFileRecords<T>(
  path: string,
  options: ReadOptions,
  createParser: ParserFactory<T>,
): Promise<T[]> {
  return collect(readRecords(path, options, createParser));
}

/** A format's three readers; plain functions, so that a module can export them as they are. */
export interface RecordReaders<T, O extends ReadOptions> {
  readonly read: (source: TextSource, options?: O) => AsyncGenerator<T>;
  readonly parse: (text: string, options?: O) => T[];
  readonly readFile: (path: string, options?: O) => Promise<T[]>;
}

/**
 * Builds a format's readers from the one thing that differs between formats: its parser class,
 * constructed once per input with the input's name and the caller's options.
 */
export function recordReaders<T, O extends ReadOptions>(
  Parser: new (file: string, options: O) => LineParser<T>,
): RecordReaders<T, O> {
  // Every format's options are optional fields only, so an empty object is a valid O.
  return {
    read: (source, options = {} as O) =>
      readRecords(source, options, (file) => new Parser(file, options)),
    parse: (text, options = {} as O) =>
      parseRecords(text, options, (file) => new Parser(file, options)),
    readFile: (path, options = {} as O) =>
      readFileRecords(path, options, (file) => new Parser(file, options)),
  };
}

/** Makes the text of one record, newline included; `index` counts from 1, for error messages. */
export type RecordFormatter<T> = (record: T, index: number) => string;

/** A format's two writers, for formats whose output takes no options. */
export interface RecordWriters<T> {
  readonly format: (records: Iterable<T>) => string;
  readonly writeFile: (
    path: string,
    records: Iterable<T> | AsyncIterable<T>,
    options?: { signal?: AbortSignal },
  ) => Promise<void>;
}

/** A format's two writers, for formats whose output options shape each record. */
export interface ConfigurableRecordWriters<T, O extends object> {
  readonly format: (records: Iterable<T>, options?: O) => string;
  readonly writeFile: (
    path: string,
    records: Iterable<T> | AsyncIterable<T>,
    options?: O & { signal?: AbortSignal },
  ) => Promise<void>;
}

/**
 * Builds a format's writers from a factory that checks the options and returns the record
 * formatter; it runs once per call, before any output, so a formatter may keep state between
 * records (the current document, say) and bad options fail before a file is touched.
 */
export function configurableRecordWriters<T, O extends object>(
  createFormatter: (options: O) => RecordFormatter<T>,
): ConfigurableRecordWriters<T, O> {
  return {
    format: (records, options = {} as O) => {
      const formatRecord = createFormatter(options);
      let text = "";
      let index = 0;
      for (const record of records) text += formatRecord(record, ++index);
      return text;
    },
    writeFile: async (path, records, options = {} as O & { signal?: AbortSignal }) => {
      const formatRecord = createFormatter(options);
      let index = 0;
      await writeFileAtomic(
        path,
        mapAsync(records, (record) => formatRecord(record, ++index)),
        options.signal === undefined ? {} : { signal: options.signal },
      );
    },
  };
}

/** Builds the writers of a format whose output takes no options. */
export function recordWriters<T>(formatRecord: RecordFormatter<T>): RecordWriters<T> {
  return configurableRecordWriters<T, object>(() => formatRecord);
}

/**
 * The error every format raises for an input without a single record, placed on its last line
 * so that all formats name the same line for it (line 1 when the input is empty).
 */
export function noRecordError(file: string, lastLine: number, detail: string): DataFormatError {
  return new DataFormatError(file, Math.max(1, lastLine), detail);
}

/** Turns the token rows of a sentence into the per-field columns that `Sentence.columns` holds. */
export function rowsToColumns(rows: readonly (readonly string[])[], width: number): string[][] {
  const columns: string[][] = [];
  for (let c = 0; c < width; c++) {
    const column = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) column[i] = rows[i]![c]!;
    columns.push(column);
  }
  return columns;
}

async function* runParser<T>(
  batches: AsyncIterable<string[]>,
  parser: LineParser<T>,
): AsyncGenerator<T> {
  let lineNumber = 0;
  for await (const batch of batches) {
    for (const text of batch) parser.line(text, ++lineNumber);
    if (parser.out.length > 0) yield* parser.out.splice(0);
  }
  parser.finish(lineNumber);
  yield* parser.out.splice(0);
}

async function* mapAsync<T, U>(
  items: Iterable<T> | AsyncIterable<T>,
  map: (item: T) => U,
): AsyncGenerator<U> {
  for await (const item of items) yield map(item);
}
