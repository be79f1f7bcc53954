import type { DocumentInfo, Sentence } from "../sentence.js";
import { DataFormatError } from "./errors.js";
import {
  type LineParser,
  noRecordError,
  type ReadOptions,
  recordReaders,
  recordWriters,
  rowsToColumns,
} from "./text-format.js";

/** What a model reads of a CoNLL-U token: FORM (the other fields are ids or gold layers). */
const CONLLU_INPUT_COLUMNS: readonly number[] = [1];

/** The ten CoNLL-U fields, in file order; `ConlluSentence.columns[k]` holds field `CONLLU_FIELDS[k]`. */
export const CONLLU_FIELDS = [
  "ID",
  "FORM",
  "LEMMA",
  "UPOS",
  "XPOS",
  "FEATS",
  "HEAD",
  "DEPREL",
  "DEPS",
  "MISC",
] as const;
export type ConlluField = (typeof CONLLU_FIELDS)[number];

/** A multiword-token line (`3-4`) or an empty node (`8.1`): not a word, kept only to write the sentence back. */
export interface ConlluExtraLine {
  /** Number of words that come before this line in the sentence. */
  readonly before: number;
  readonly fields: readonly string[];
}

export interface ConlluSentence extends Sentence {
  /** The comment lines before the sentence, without the leading `#`, in order (`" sent_id = x"`). */
  comments: string[];
  /** `key = value` comments by key (`sent_id`, `text`, `newdoc id`); a comment without `=` maps to "". */
  meta: Record<string, string>;
  extraLines: ConlluExtraLine[];
}

export interface ConlluReadOptions extends ReadOptions {
  /** Which field becomes `labels`. Default `UPOS`; `null` for none. */
  labelField?: ConlluField | null;
}

const WORD_ID = /^[1-9][0-9]*$/;
const RANGE_ID = /^([1-9][0-9]*)-([1-9][0-9]*)$/;
const EMPTY_NODE_ID = /^(0|[1-9][0-9]*)\.[1-9][0-9]*$/;

class ConlluParser implements LineParser<ConlluSentence> {
  readonly out: ConlluSentence[] = [];
  private comments: string[] = [];
  private rows: string[][] = [];
  private extra: ConlluExtraLine[] = [];
  private firstLine = 0;
  private document: DocumentInfo | undefined;
  private documents = 0;
  private sentences = 0;
  private readonly labelIndex: number | undefined;

  constructor(
    private readonly file: string,
    options: ConlluReadOptions,
  ) {
    const field = options.labelField === undefined ? "UPOS" : options.labelField;
    this.labelIndex = field === null ? undefined : CONLLU_FIELDS.indexOf(field);
  }

  line(text: string, lineNumber: number): void {
    if (text === "") {
      this.flush(lineNumber);
      return;
    }
    if (this.firstLine === 0) this.firstLine = lineNumber;
    if (text.startsWith("#")) {
      if (this.rows.length > 0 || this.extra.length > 0) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          "comment inside a sentence: expected comments only before the first word line",
        );
      }
      this.comments.push(text.slice(1));
      return;
    }
    const fields = text.split("\t");
    if (fields.length !== 10) {
      throw new DataFormatError(
        this.file,
        lineNumber,
        `found ${fields.length} tab-separated field${fields.length === 1 ? "" : "s"}: expected 10 (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC)`,
      );
    }
    for (let c = 0; c < 10; c++) {
      if (fields[c] === "") {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `empty ${CONLLU_FIELDS[c]} field: expected a value or "_"`,
          c + 1,
        );
      }
    }
    const id = fields[0]!;
    const expected = this.rows.length + 1;
    if (WORD_ID.test(id)) {
      if (Number(id) !== expected) {
        throw new DataFormatError(this.file, lineNumber, `word ID ${id}: expected ${expected}`, 1);
      }
      this.rows.push(fields);
      return;
    }
    const range = RANGE_ID.exec(id);
    if (range !== null) {
      if (Number(range[1]) !== expected || Number(range[2]) <= expected) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `multiword token ${id}: expected a range ${expected}-N with N > ${expected}`,
          1,
        );
      }
    } else if (EMPTY_NODE_ID.test(id)) {
      if (Math.floor(Number(id)) !== expected - 1) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          `empty node ${id}: expected ${expected - 1}.N after word ${expected - 1}`,
          1,
        );
      }
    } else {
      throw new DataFormatError(
        this.file,
        lineNumber,
        `ID ${JSON.stringify(id)}: expected a word ID, a range N-M or an empty node N.M`,
        1,
      );
    }
    this.extra.push({ before: this.rows.length, fields });
  }

  finish(lastLine: number): void {
    this.flush(lastLine + 1);
    if (this.sentences === 0) {
      throw noRecordError(this.file, lastLine, "no word line: expected at least one sentence");
    }
  }

  private flush(lineNumber: number): void {
    if (this.rows.length === 0) {
      if (this.comments.length > 0 || this.extra.length > 0) {
        throw new DataFormatError(
          this.file,
          lineNumber,
          "sentence without words: expected word lines before the blank line",
        );
      }
      return;
    }
    const columns = rowsToColumns(this.rows, 10);
    const meta: Record<string, string> = {};
    for (const comment of this.comments) {
      const eq = comment.indexOf("=");
      if (eq < 0) meta[comment.trim()] = "";
      else meta[comment.slice(0, eq).trim()] = comment.slice(eq + 1).trim();
      if (/^\s*newdoc(\s|$)/.test(comment)) {
        const id = eq < 0 ? undefined : comment.slice(eq + 1).trim();
        this.document = {
          index: this.documents++,
          ...(id === undefined ? {} : { id }),
          source: { file: this.file, line: this.firstLine },
        };
      }
    }
    const sentence: ConlluSentence = {
      tokens: columns[1]!,
      columns,
      inputColumns: CONLLU_INPUT_COLUMNS,
      comments: this.comments,
      meta,
      extraLines: this.extra,
      source: { file: this.file, line: this.firstLine },
    };
    if (this.labelIndex !== undefined) sentence.labels = columns[this.labelIndex]!;
    if (this.document !== undefined) sentence.document = this.document;
    this.out.push(sentence);
    this.sentences++;
    this.rows = [];
    this.comments = [];
    this.extra = [];
    this.firstLine = 0;
  }
}

const conlluReaders = recordReaders(ConlluParser);

/**
 * Streams CoNLL-U sentences. Only words (integer IDs) become tokens; multiword-token ranges and
 * empty nodes are kept aside in `extraLines`, comments in `comments` and `meta`.
 */
export const readConllu = conlluReaders.read;
export const parseConllu = conlluReaders.parse;
export const readConlluFile = conlluReaders.readFile;

/**
 * Formats one sentence. A plain `Sentence` (no CoNLL-U fields) is written with its tokens as
 * FORM, its labels as UPOS and `_` elsewhere.
 */
function formatConlluSentence(sentence: Sentence | ConlluSentence, index: number): string {
  const where = `sentence ${index}`;
  const n = sentence.tokens.length;
  if (n === 0) throw new RangeError(`${where}: a CoNLL-U sentence needs at least one word`);
  let columns = sentence.columns;
  if (columns.length !== 10) {
    const blank = new Array<string>(n).fill("_");
    columns = [
      Array.from({ length: n }, (_, i) => String(i + 1)),
      sentence.tokens,
      blank,
      sentence.labels ?? blank,
      blank,
      blank,
      blank,
      blank,
      blank,
      blank,
    ];
  }
  const conllu = "comments" in sentence ? sentence : undefined;
  let text = "";
  for (const comment of conllu?.comments ?? []) {
    if (/[\n\r]/.test(comment)) throw new RangeError(`${where}: a comment holds a line break`);
    text += `#${comment}\n`;
  }
  const extra = conllu?.extraLines ?? [];
  let e = 0;
  const row = new Array<string>(10);
  for (let i = 0; i <= n; i++) {
    for (; e < extra.length && extra[e]!.before === i; e++)
      text += `${checked(extra[e]!.fields, where)}\n`;
    if (i === n) break;
    for (let c = 0; c < 10; c++) {
      const field = columns[c]![i];
      if (field === undefined)
        throw new RangeError(
          `${where}: field ${CONLLU_FIELDS[c]} has ${columns[c]!.length} entries, expected ${n}`,
        );
      row[c] = field;
    }
    text += `${checked(row, where)}\n`;
  }
  if (e !== extra.length) throw new RangeError(`${where}: an extra line comes after the last word`);
  return `${text}\n`;
}

function checked(fields: readonly string[], where: string): string {
  if (fields.length !== 10)
    throw new RangeError(`${where}: a line needs 10 fields, found ${fields.length}`);
  for (const field of fields) {
    if (field === "" || /[\t\n\r]/.test(field)) {
      throw new RangeError(
        `${where}: field ${JSON.stringify(field)} is empty or holds a tab or line break`,
      );
    }
  }
  return fields.join("\t");
}

const conlluWriters = recordWriters(formatConlluSentence);

export const formatConllu = conlluWriters.format;
export const writeConlluFile = conlluWriters.writeFile;
