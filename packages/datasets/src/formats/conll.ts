import type { DocumentInfo, Sentence } from "../sentence.js";
import { DataFormatError } from "./errors.js";
import {
  configurableRecordWriters,
  type LineParser,
  noRecordError,
  type ReadOptions,
  recordReaders,
  rowsToColumns,
} from "./text-format.js";

export type ColumnSeparator = "tab" | "space";

export interface ConllReadOptions extends ReadOptions {
  /** Default: detected per file from the first line that has more than one column (tab wins). */
  separator?: ColumnSeparator;
  /** Which column holds the tokens; negative counts from the end. Default 0. */
  tokenColumn?: number;
  /** Which column holds the labels; negative counts from the end; `null` for none. Default: the last column when there are at least two. */
  labelColumn?: number | null;
  /** First field of a document-boundary line. Default `-DOCSTART-`. */
  documentMarker?: string;
}

export interface ConllWriteOptions {
  /** Default `space`. */
  separator?: ColumnSeparator;
  /** Marker fields written for a document that has none recorded. Default `-DOCSTART-` then `-X-`… then `O`, as wide as the sentence. */
  documentMarker?: readonly string[];
}

const DEFAULT_MARKER = "-DOCSTART-";
const BLANK = /^[ \t]*$/;

class ConllParser implements LineParser<Sentence> {
  readonly out: Sentence[] = [];
  private separator: string | undefined;
  private width = 0;
  private rows: string[][] = [];
  private firstLine = 0;
  private document: DocumentInfo | undefined;
  private documents = 0;
  private sentences = 0;
  private readonly marker: string;

  constructor(
    private readonly file: string,
    private readonly options: ConllReadOptions,
  ) {
    this.marker = options.documentMarker ?? DEFAULT_MARKER;
    if (options.separator !== undefined) this.separator = options.separator === "tab" ? "\t" : " ";
  }

  line(text: string, lineNumber: number): void {
    if (isBlank(text)) {
      this.flush();
      return;
    }
    if (this.separator === undefined) {
      if (text.includes("\t")) this.separator = "\t";
      else if (text.includes(" ")) this.separator = " ";
    }
    const fields = this.separator === undefined ? [text] : text.split(this.separator);
    if (fields[0] === this.marker) {
      this.flush();
      this.document = {
        index: this.documents++,
        marker: fields,
        source: { file: this.file, line: lineNumber },
      };
      return;
    }
    for (let c = 0; c < fields.length; c++) {
      if (fields[c] === "") {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `empty column ${c + 1}: expected ${this.width || fields.length} ${separatorName(this.separator)}-separated non-empty columns`,
          c + 1,
        );
      }
    }
    if (this.width === 0) this.width = fields.length;
    else if (fields.length !== this.width) {
      throw new DataFormatError(
        this.file,
        lineNumber,
        `found ${fields.length} column${fields.length === 1 ? "" : "s"}: expected ${this.width} ${separatorName(this.separator)}-separated columns as on the file's first token line`,
      );
    }
    if (this.rows.length === 0) this.firstLine = lineNumber;
    this.rows.push(fields);
  }

  finish(lastLine: number): void {
    this.flush();
    if (this.sentences === 0) {
      throw noRecordError(this.file, lastLine, "no token line: expected at least one sentence");
    }
  }

  private flush(): void {
    const rows = this.rows;
    if (rows.length === 0) return;
    this.rows = [];
    const columns = rowsToColumns(rows, this.width);
    const tokenIndex = resolveColumn(this.options.tokenColumn ?? 0, this.width);
    if (tokenIndex === undefined) {
      throw new DataFormatError(
        this.file,
        this.firstLine,
        `tokenColumn ${this.options.tokenColumn} out of range: the file has ${this.width} columns`,
      );
    }
    const sentence: Sentence = {
      tokens: columns[tokenIndex]!,
      columns,
      source: { file: this.file, line: this.firstLine, tokenPerLine: true },
    };
    const labelOption =
      this.options.labelColumn === undefined
        ? this.width >= 2
          ? -1
          : null
        : this.options.labelColumn;
    if (labelOption !== null) {
      const labelIndex = resolveColumn(labelOption, this.width);
      if (labelIndex === undefined) {
        throw new DataFormatError(
          this.file,
          this.firstLine,
          `labelColumn ${labelOption} out of range: the file has ${this.width} columns`,
        );
      }
      sentence.labels = columns[labelIndex]!;
    }
    if (this.document !== undefined) sentence.document = this.document;
    this.sentences++;
    this.out.push(sentence);
  }
}

const conllReaders = recordReaders(ConllParser);

/** Streams the sentences of a CoNLL column file (any number of columns, `-DOCSTART-` documents). */
export const readConll = conllReaders.read;
/** Parses CoNLL column text held in memory. */
export const parseConll = conllReaders.parse;
export const readConllFile = conllReaders.readFile;

/** Formats sentence after sentence; keeps the document state between them. */
class ConllFormatter {
  private readonly separator: string;
  private readonly forbidden: RegExp;
  private previousDocument = -1;

  constructor(private readonly options: ConllWriteOptions) {
    this.separator = options.separator === "tab" ? "\t" : " ";
    this.forbidden = options.separator === "tab" ? /[\t\n\r]/ : /[ \t\n\r]/;
  }

  format(sentence: Sentence, index: number): string {
    const where = `sentence ${index}`;
    const columns = sentence.columns;
    const n = sentence.tokens.length;
    if (n === 0) throw new RangeError(`${where}: a CoNLL sentence needs at least one token`);
    if (columns.length === 0) throw new RangeError(`${where}: no columns to write`);
    for (const column of columns) {
      if (column.length !== n)
        throw new RangeError(`${where}: a column has ${column.length} entries, expected ${n}`);
    }
    // One column and tab separation: a space inside a token would make the reader pick spaces.
    const forbidden = columns.length === 1 ? /[ \t\n\r]/ : this.forbidden;
    let text = "";
    const document = sentence.document;
    if (document !== undefined && document.index !== this.previousDocument) {
      const marker =
        document.marker?.[0] === DEFAULT_MARKER
          ? document.marker
          : (this.options.documentMarker ?? defaultMarker(columns.length));
      this.check(marker, forbidden, `${where}: document marker`);
      // Markers are repeated over gaps in the indices (documents without sentences) so that
      // indices read back unchanged.
      const gap = Math.max(1, document.index - this.previousDocument);
      const line = `${marker.join(this.separator)}\n\n`;
      for (let k = 0; k < gap; k++) text += line;
      this.previousDocument = document.index;
    }
    const row = new Array<string>(columns.length);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < columns.length; c++) row[c] = columns[c]![i]!;
      this.check(row, forbidden, `${where}, token ${i + 1}`);
      if (i === 0 && row[0] === DEFAULT_MARKER) {
        throw new RangeError(
          `${where}: a first field "${DEFAULT_MARKER}" would read back as a document marker`,
        );
      }
      text += `${row.join(this.separator)}\n`;
    }
    return `${text}\n`;
  }

  private check(fields: readonly string[], forbidden: RegExp, where: string): void {
    for (const field of fields) {
      // A blank field could make a whole row blank, which reads back as a sentence break.
      if (BLANK.test(field) || forbidden.test(field)) {
        throw new RangeError(
          `${where}: field ${JSON.stringify(field)} is blank or holds a separator or line break`,
        );
      }
    }
  }
}

function defaultMarker(width: number): string[] {
  if (width <= 1) return [DEFAULT_MARKER];
  return [DEFAULT_MARKER, ...new Array<string>(Math.max(0, width - 2)).fill("-X-"), "O"];
}

const conllWriters = configurableRecordWriters((options: ConllWriteOptions) => {
  const formatter = new ConllFormatter(options);
  return (sentence: Sentence, index: number) => formatter.format(sentence, index);
});

/**
 * CoNLL text: one token per line with its columns, a blank line after each sentence, and a
 * marker line (plus a blank line) where a new document starts.
 */
export const formatConll = conllWriters.format;
/** Writes sentences (from an array or a stream) as a CoNLL file, atomically. */
export const writeConllFile = conllWriters.writeFile;

function resolveColumn(index: number, width: number): number | undefined {
  const resolved = index < 0 ? width + index : index;
  return Number.isInteger(resolved) && resolved >= 0 && resolved < width ? resolved : undefined;
}

function isBlank(text: string): boolean {
  return BLANK.test(text);
}

function separatorName(separator: string | undefined): string {
  return separator === "\t" ? "tab" : "space";
}
