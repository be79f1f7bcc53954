import type { Sentence } from "../sentence.js";
import { DataFormatError } from "./errors.js";
import {
  bioColumn,
  bioToInline,
  type InlineLabelMode,
  type OpenElement,
  TAG_PATTERN,
  takeBioLabel,
  viewLabels,
} from "./inline.js";
import {
  type LineParser,
  noRecordError,
  parseRecords,
  type ReadOptions,
  readFileRecords,
  readRecords,
  recordWriters,
  type TextSource,
} from "./text-format.js";

/** A citation line whose markup is broken, and what the lenient reader did with it. */
export interface CitationIssue {
  readonly file: string;
  readonly line: number;
  /** Every problem found on the line, in order, each naming the token column. */
  readonly problems: readonly string[];
  readonly action: "repaired" | "skipped";
}

/** What a whole-file read found: never silent about lines it changed or dropped. */
export interface CitationReport {
  /** Citation lines seen (blank lines excluded). */
  lines: number;
  wellFormed: number;
  repaired: number;
  skipped: number;
  issues: CitationIssue[];
}

/**
 * `error` (default): the first markup error throws a DataFormatError naming file, line and token.
 * `repair`: broken tag tokens are mended, stray closing tags dropped, elements left open are
 * closed where an enclosing element closes or at the end of the line. `skip`: the line is dropped.
 * Both lenient modes report each affected line.
 */
export type MalformedCitationPolicy = "error" | "repair" | "skip";

interface UmassCommonOptions extends ReadOptions {
  /** Default `bio`: `I-authors/B-person/B-person-first`. */
  labels?: InlineLabelMode;
}

/** Streaming options: a lenient policy needs a callback, so that no change to the data goes unreported. */
export type UmassReadOptions = UmassCommonOptions &
  (
    | { malformed?: "error"; onIssue?: (issue: CitationIssue) => void }
    | { malformed: "repair" | "skip"; onIssue: (issue: CitationIssue) => void }
  );

export interface UmassFileOptions extends UmassCommonOptions {
  malformed?: MalformedCitationPolicy;
  onIssue?: (issue: CitationIssue) => void;
}

interface Piece {
  readonly text: string;
  /** 1-based character column of the whitespace-separated token the piece comes from. */
  readonly column: number;
  readonly tag?: { readonly closing: boolean; readonly name: string };
}

const WHOLE_TAG = /^<(\/?)([A-Za-z_][A-Za-z0-9_.-]*)>$/;
const HAS_TAG = /<\/?[A-Za-z_][A-Za-z0-9_.-]*>/;

function emptyReport(): CitationReport {
  return { lines: 0, wellFormed: 0, repaired: 0, skipped: 0, issues: [] };
}

class UmassParser implements LineParser<Sentence> {
  readonly out: Sentence[] = [];
  private readonly policy: MalformedCitationPolicy;
  private readonly mode: InlineLabelMode;
  private readonly onIssue: ((issue: CitationIssue) => void) | undefined;

  /** `report` belongs to the caller, which hands it back beside the sentences. */
  constructor(
    private readonly file: string,
    options: UmassFileOptions,
    private readonly report: CitationReport,
  ) {
    this.policy = options.malformed ?? "error";
    this.mode = options.labels ?? "bio";
    this.onIssue = options.onIssue;
  }

  line(text: string, lineNumber: number): void {
    const pieces = splitPieces(text);
    if (pieces.length === 0) return;
    this.report.lines++;
    const problems: { column: number; message: string }[] = [];
    const fail = (message: string, column: number): void => {
      if (this.policy === "error")
        throw new DataFormatError(this.file, lineNumber, message, column);
      problems.push({ column, message });
    };

    // Broken tag tokens first: they are the cause of the nesting errors that follow them.
    let lastBroken = 0;
    for (const piece of pieces) {
      if (piece.tag === undefined || piece.column === lastBroken) continue;
      if (piece.text !== `<${piece.tag.closing ? "/" : ""}${piece.tag.name}>`) {
        lastBroken = piece.column;
        fail(
          `broken tag token ${JSON.stringify(piece.text)}: expected one <name> or </name> per space-separated token`,
          piece.column,
        );
      }
    }

    const tokens: string[] = [];
    const labels: string[] = [];
    const stack: (OpenElement & { column: number })[] = [];
    for (const piece of pieces) {
      if (piece.tag === undefined) {
        tokens.push(piece.text);
        labels.push(takeBioLabel(stack));
        continue;
      }
      const { closing, name } = piece.tag;
      if (!closing) {
        stack.push({ name, used: false, column: piece.column });
        continue;
      }
      const top = stack[stack.length - 1];
      if (top?.name === name) {
        stack.pop();
        continue;
      }
      let depth = stack.length - 1;
      while (depth >= 0 && stack[depth]!.name !== name) depth--;
      if (depth < 0) {
        fail(
          top === undefined
            ? `</${name}> with no element open: expected <${name}> before it`
            : `</${name}> matches no open element: expected </${top.name}>`,
          piece.column,
        );
        continue;
      }
      const unclosed = stack.splice(depth).slice(1);
      fail(
        `</${name}> while ${unclosed.map((e) => `<${e.name}>`).join(" ")} still open: expected ${unclosed
          .reverse()
          .map((e) => `</${e.name}>`)
          .join(" ")} first`,
        piece.column,
      );
    }
    for (let k = stack.length - 1; k >= 0; k--) {
      const element = stack[k]!;
      fail(
        `<${element.name}> is never closed: expected </${element.name}> before the end of the line`,
        element.column,
      );
    }
    if (tokens.length === 0) fail("no text between the tags: expected at least one token", 1);

    if (problems.length > 0) {
      problems.sort((a, b) => a.column - b.column);
      const skip = this.policy === "skip" || tokens.length === 0;
      const issue: CitationIssue = {
        file: this.file,
        line: lineNumber,
        problems: problems.map((p) => `column ${p.column}: ${p.message}`),
        action: skip ? "skipped" : "repaired",
      };
      this.report.issues.push(issue);
      this.onIssue?.(issue);
      if (skip) {
        this.report.skipped++;
        return;
      }
      this.report.repaired++;
    } else {
      this.report.wellFormed++;
    }
    this.out.push({
      tokens,
      columns: [tokens, labels],
      labels: this.mode === "bio" ? labels : viewLabels(labels, this.mode),
      source: { file: this.file, line: lineNumber },
    });
  }

  finish(lastLine: number): void {
    if (this.report.lines === 0) {
      throw noRecordError(this.file, lastLine, "no citation line: expected at least one");
    }
  }
}

/**
 * Splits a citation line on spaces into text tokens and tags. A token that is not exactly one tag
 * but holds tags (`</thesis><institution>`, `</<person-first>`, `<language>(`) is split into its
 * tags and the text around them, each piece remembering the raw token so the caller can report it.
 */
function splitPieces(line: string): Piece[] {
  const pieces: Piece[] = [];
  const words = /[^ \t]+/g;
  for (let word = words.exec(line); word !== null; word = words.exec(line)) {
    const raw = word[0];
    const column = word.index + 1;
    const whole = WHOLE_TAG.exec(raw);
    if (whole !== null) {
      pieces.push({ text: raw, column, tag: { closing: whole[1] === "/", name: whole[2]! } });
      continue;
    }
    if (!HAS_TAG.test(raw)) {
      pieces.push({ text: raw, column });
      continue;
    }
    // `</<name>` is a closing tag typed twice: mend it before splitting.
    const mended = raw.replace(/<\/<([A-Za-z_][A-Za-z0-9_.-]*)>/g, "</$1>");
    TAG_PATTERN.lastIndex = 0;
    let from = 0;
    for (let match = TAG_PATTERN.exec(mended); match !== null; match = TAG_PATTERN.exec(mended)) {
      if (match.index > from) pieces.push({ text: mended.slice(from, match.index), column });
      pieces.push({ text: raw, column, tag: { closing: match[1] === "/", name: match[2]! } });
      from = match.index + match[0].length;
    }
    if (from < mended.length) pieces.push({ text: mended.slice(from), column });
  }
  return pieces;
}

/**
 * Streams UMass citation lines (nested inline tags, one citation per line) as sentences whose
 * `columns` are `[tokens, hierarchicalBioLabels]` and whose `labels` follow `options.labels`.
 */
export function readUmassCitations(
  source: TextSource,
  options: UmassReadOptions = {},
): AsyncGenerator<Sentence> {
  return readRecords(source, options, (file) => new UmassParser(file, options, emptyReport()));
}

export interface UmassCitations {
  sentences: Sentence[];
  report: CitationReport;
}

export function parseUmassCitations(text: string, options: UmassFileOptions = {}): UmassCitations {
  const report = emptyReport();
  const createParser = (file: string) => new UmassParser(file, options, report);
  return { sentences: parseRecords(text, options, createParser), report };
}

export async function readUmassCitationsFile(
  path: string,
  options: UmassFileOptions = {},
): Promise<UmassCitations> {
  const report = emptyReport();
  const createParser = (file: string) => new UmassParser(file, options, report);
  return { sentences: await readFileRecords(path, options, createParser), report };
}

function formatCitation(sentence: Sentence, index: number): string {
  const where = `citation ${index}`;
  if (sentence.tokens.length === 0)
    throw new RangeError(`${where}: a citation needs at least one token`);
  // The reader splits lines on spaces and tabs only.
  return `${bioToInline(sentence.tokens, bioColumn(sentence, where), where, /[ \t\n\r]/).join(" ")}\n`;
}

const umassWriters = recordWriters(formatCitation);

/**
 * Writes citations back to the inline format, one per line, from the hierarchical BIO labels in
 * the last of `columns` (what the reader puts there). Well-formed lines read back identically.
 */
export const formatUmassCitations = umassWriters.format;
export const writeUmassCitationsFile = umassWriters.writeFile;
