import type { Sentence } from "../sentence.js";
import { DataFormatError } from "./errors.js";
import {
  configurableRecordWriters,
  type LineParser,
  noRecordError,
  type ReadOptions,
  recordReaders,
} from "./text-format.js";

/** An element tag anywhere in a string: `<name>` or `</name>`. */
export const TAG_PATTERN = /<(\/?)([A-Za-z_][A-Za-z0-9_.-]*)>/g;
const TAG_ANYWHERE = /<\/?[A-Za-z_][A-Za-z0-9_.-]*>/;

/**
 * How inline-tag readers label tokens. `bio`: one B-/I- prefix per nesting level, levels joined
 * by `/` (`I-authors/B-person/B-person-first`; flat files give `B-title`); `path`: the element
 * names without prefixes (`authors/person/person-first`); `leaf`: the innermost element only
 * (`person-first`). Tokens outside every element get `O` in all three.
 */
export type InlineLabelMode = "bio" | "path" | "leaf";

export interface OpenElement {
  name: string;
  /** Whether a token has already been labelled inside this element instance. */
  used: boolean;
}

/** The hierarchical BIO label of the next token under `stack`, marking every level as used. */
export function takeBioLabel(stack: OpenElement[]): string {
  if (stack.length === 0) return "O";
  let label = "";
  for (let k = 0; k < stack.length; k++) {
    const element = stack[k]!;
    if (k > 0) label += "/";
    label += element.used ? "I-" : "B-";
    label += element.name;
    element.used = true;
  }
  return label;
}

/** Rewrites hierarchical BIO labels in another view. */
export function viewLabels(bio: readonly string[], mode: InlineLabelMode): string[] {
  if (mode === "bio") return bio.slice();
  return bio.map((label) => {
    if (label === "O") return label;
    const names = label.split("/").map((level) => level.slice(2));
    return mode === "leaf" ? names[names.length - 1]! : names.join("/");
  });
}

/**
 * Rebuilds inline markup from tokens and hierarchical BIO labels: pieces (tags and tokens) to be
 * joined by single spaces. Throws a RangeError when a label or a token (holding a tag or a
 * character of `whitespace`, the reader's token separators) cannot be read back the same way.
 */
export function bioToInline(
  tokens: readonly string[],
  labels: readonly string[],
  where: string,
  whitespace: RegExp,
): string[] {
  if (labels.length !== tokens.length) {
    throw new RangeError(`${where}: ${labels.length} labels for ${tokens.length} tokens`);
  }
  const pieces: string[] = [];
  const open: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === "" || whitespace.test(token) || TAG_ANYWHERE.test(token)) {
      throw new RangeError(
        `${where}, token ${i + 1}: ${JSON.stringify(token)} is empty, holds whitespace or looks like a tag`,
      );
    }
    const label = labels[i]!;
    const levels = label === "O" ? [] : label.split("/");
    let keep = 0;
    while (keep < levels.length && keep < open.length && levels[keep] === `I-${open[keep]}`) keep++;
    for (let k = keep; k < levels.length; k++) {
      const level = levels[k]!;
      const name = level.slice(2);
      if (!level.startsWith("B-") || !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
        throw new RangeError(
          `${where}, token ${i + 1}: label ${JSON.stringify(label)} level ${k + 1}: expected B-<element> (an I- level must continue the element open on the token before)`,
        );
      }
    }
    while (open.length > keep) pieces.push(`</${open.pop()}>`);
    for (let k = keep; k < levels.length; k++) {
      const name = levels[k]!.slice(2);
      pieces.push(`<${name}>`);
      open.push(name);
    }
    pieces.push(token);
  }
  while (open.length > 0) pieces.push(`</${open.pop()}>`);
  return pieces;
}

export interface InlineTagsReadOptions extends ReadOptions {
  /** Default `bio` (flat IOB2 labels such as `B-title`). */
  labels?: InlineLabelMode;
  /**
   * A line that separates records (`<NEWREFERENCE>`, `<NEW_HEADER>`): records may then span
   * several lines. Default: detected from the first non-blank line when it looks like `<NEW…>`;
   * otherwise each non-blank line is one record. `null` forces one record per line.
   */
  recordSeparator?: string | null;
}

/**
 * Whether a line (trimmed) separates multi-line records of flat inline tags (`<NEWREFERENCE>`,
 * `<NEW_HEADER>`): the one rule the reader, the writer and the queue's shard cutter share.
 */
export function isInlineRecordSeparator(line: string): boolean {
  return /^<NEW[A-Z_]*>$/.test(line);
}

export interface InlineTagsWriteOptions {
  /** Written on its own line before each record (`<NEWREFERENCE>`); default none, one record per line. */
  recordSeparator?: string;
}

/**
 * Flat inline tags (the Cora reference and header sets): fields are `<name> … </name>` with no
 * nesting; tags may touch words, so they are split off with a pattern, and the text between is
 * split on whitespace.
 */
class FlatInlineParser implements LineParser<Sentence> {
  readonly out: Sentence[] = [];
  private separator: string | null | undefined;
  private tokens: string[] = [];
  private labels: string[] = [];
  private open: OpenElement[] = [];
  private openedAt = { line: 0, column: 0 };
  private recordLine = 0;
  private records = 0;
  private seenContent = false;

  constructor(
    private readonly file: string,
    private readonly options: InlineTagsReadOptions,
  ) {
    this.separator = options.recordSeparator;
  }

  line(text: string, lineNumber: number): void {
    const trimmed = text.trim();
    if (this.separator === undefined) {
      if (trimmed === "") return;
      this.separator = isInlineRecordSeparator(trimmed) ? trimmed : null;
    }
    if (this.separator !== null && trimmed === this.separator) {
      this.endRecord(lineNumber);
      this.recordLine = lineNumber;
      this.seenContent = true;
      return;
    }
    if (trimmed === "") return;
    if (this.separator === null) this.recordLine = lineNumber;
    else if (!this.seenContent) {
      throw new DataFormatError(
        this.file,
        lineNumber,
        `text before the first ${this.separator}: expected a record separator line`,
      );
    }
    this.tokenize(text, lineNumber);
    if (this.separator === null) this.endRecord(lineNumber);
  }

  finish(lastLine: number): void {
    this.endRecord(lastLine);
    if (this.records === 0) {
      throw noRecordError(this.file, lastLine, "no tagged record: expected at least one");
    }
  }

  private tokenize(text: string, lineNumber: number): void {
    TAG_PATTERN.lastIndex = 0;
    let from = 0;
    for (let match = TAG_PATTERN.exec(text); match !== null; match = TAG_PATTERN.exec(text)) {
      this.words(text.slice(from, match.index));
      from = match.index + match[0].length;
      const name = match[2]!;
      const column = match.index + 1;
      if (match[1] === "") {
        const current = this.open[0];
        if (current !== undefined) {
          throw new DataFormatError(
            this.file,
            lineNumber,
            `<${name}> inside <${current.name}> (opened at line ${this.openedAt.line}): expected flat tags, </${current.name}> first`,
            column,
          );
        }
        this.open.push({ name, used: false });
        this.openedAt = { line: lineNumber, column };
      } else {
        const current = this.open[0];
        if (current?.name !== name) {
          throw new DataFormatError(
            this.file,
            lineNumber,
            current === undefined
              ? `</${name}> with no element open: expected <${name}> before it`
              : `</${name}> while <${current.name}> is open: expected </${current.name}>`,
            column,
          );
        }
        if (!current.used) {
          throw new DataFormatError(
            this.file,
            lineNumber,
            `empty <${name}> element: expected at least one word inside`,
            column,
          );
        }
        this.open.pop();
      }
    }
    this.words(text.slice(from));
  }

  private words(text: string): void {
    for (const word of text.split(/\s+/)) {
      if (word === "") continue;
      this.tokens.push(word);
      this.labels.push(takeBioLabel(this.open));
    }
  }

  private endRecord(lineNumber: number): void {
    const open = this.open[0];
    if (open !== undefined) {
      throw new DataFormatError(
        this.file,
        this.openedAt.line,
        `<${open.name}> is never closed: expected </${open.name}> before the end of the record (line ${lineNumber})`,
        this.openedAt.column,
      );
    }
    if (this.tokens.length === 0) {
      if (this.separator !== null && this.seenContent && this.recordLine > 0) {
        throw new DataFormatError(
          this.file,
          this.recordLine,
          "record without words: expected tagged text after the separator",
        );
      }
      return;
    }
    const tokens = this.tokens;
    const bio = this.labels;
    const mode = this.options.labels ?? "bio";
    this.out.push({
      tokens,
      columns: [tokens, bio],
      labels: mode === "bio" ? bio : viewLabels(bio, mode),
      source: { file: this.file, line: this.recordLine },
    });
    this.records++;
    this.tokens = [];
    this.labels = [];
  }
}

const inlineTagsReaders = recordReaders(FlatInlineParser);

/** Streams records of flat inline tags (Cora references and headers). */
export const readInlineTags = inlineTagsReaders.read;
export const parseInlineTags = inlineTagsReaders.parse;
export const readInlineTagsFile = inlineTagsReaders.readFile;

/** The label column the inline writers read: the last one (the reader's lossless BIO column). */
export function bioColumn(sentence: Sentence, where: string): readonly string[] {
  const column = sentence.columns[sentence.columns.length - 1];
  if (column === undefined || sentence.columns.length < 2) {
    throw new RangeError(
      `${where}: expected a label column (the last of \`columns\`) besides the tokens`,
    );
  }
  return column;
}

function formatFlatRecord(
  sentence: Sentence,
  index: number,
  options: InlineTagsWriteOptions,
): string {
  const where = `record ${index}`;
  const labels = bioColumn(sentence, where);
  for (let i = 0; i < labels.length; i++) {
    if (labels[i]!.includes("/")) {
      throw new RangeError(
        `${where}, token ${i + 1}: nested label ${JSON.stringify(labels[i])}: the flat format has one level`,
      );
    }
  }
  if (sentence.tokens.length === 0)
    throw new RangeError(`${where}: a record needs at least one token`);
  // The reader splits text on any whitespace (`\s`), so a token must hold none.
  const line = bioToInline(sentence.tokens, labels, where, /\s/).join(" ");
  return options.recordSeparator === undefined
    ? `${line}\n`
    : `${options.recordSeparator}\n${line}\n`;
}

const inlineTagsWriters = configurableRecordWriters((options: InlineTagsWriteOptions) => {
  const separator = options.recordSeparator;
  if (separator !== undefined && !isInlineRecordSeparator(separator)) {
    throw new RangeError(
      `recordSeparator ${JSON.stringify(separator)}: expected a line like <NEWREFERENCE>`,
    );
  }
  return (sentence: Sentence, index: number) => formatFlatRecord(sentence, index, options);
});

export const formatInlineTags = inlineTagsWriters.format;
export const writeInlineTagsFile = inlineTagsWriters.writeFile;
