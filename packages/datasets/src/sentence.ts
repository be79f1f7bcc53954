/** Where a record came from: the file (or the name given for a stream) and its 1-based line. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  /** Token t is on line `line + t` (CoNLL columns); otherwise the whole sentence is on `line`. */
  readonly tokenPerLine?: boolean;
}

/**
 * Where token `position` of a sentence is, as `file:line` (with the token's number where the
 * sentence shares one line), so that an error message points at what the user can open.
 */
export function tokenPlace(sentence: Sentence, position: number): string {
  const source = sentence.source;
  if (source === undefined) return `token ${position + 1}`;
  return source.tokenPerLine === true
    ? `${source.file}:${source.line + position}`
    : `${source.file}:${source.line} (token ${position + 1})`;
}

/**
 * A document boundary. CoNLL files open each document with a `-DOCSTART-` line and CoNLL-U
 * files with a `# newdoc` comment; every sentence of a document refers to the same object.
 */
export interface DocumentInfo {
  /** 0-based, counting document markers from the start of the file. */
  readonly index: number;
  /** The marker line's fields as read (`["-DOCSTART-", "-X-", "O", "O"]`), kept so that writers reproduce it. */
  readonly marker?: readonly string[];
  /** A document id where the format has one (`# newdoc id = …` in CoNLL-U). */
  readonly id?: string;
  readonly source?: SourcePosition;
}

/**
 * A labelled token sequence: the common currency of every reader and writer.
 *
 * `columns` is the lossless view: every per-token field of the source, one array per column,
 * each as long as `tokens`. `tokens` and `labels` are the task view and are the very same array
 * objects as two of the columns wherever the format stores them as columns (CoNLL: first and
 * last column; CoNLL-U: FORM and UPOS/XPOS). Inline-tag formats have no columns in the file; their
 * readers give `[tokens, hierarchicalBioLabels]`, from which the writers rebuild the tags.
 */
export interface Sentence {
  tokens: string[];
  columns: string[][];
  /** Gold labels, one per token, in the view the reader was asked for. */
  labels?: string[];
  document?: DocumentInfo;
  source?: SourcePosition;
  /**
   * The columns a model reads (indices into `columns`), where not all but the label column: a
   * CoNLL-U sentence's input is FORM alone, since its other fields (ID, LEMMA, XPOS, FEATS,
   * HEAD, …) are either bookkeeping or gold annotation layers a tagger must not see.
   */
  inputColumns?: readonly number[];
}

/** A document and its sentences, for callers that want the grouping rather than the per-sentence link. */
export interface DocumentGroup<S extends Sentence = Sentence> {
  /** Undefined for sentences that come before any document marker. */
  readonly document: DocumentInfo | undefined;
  readonly sentences: S[];
}

/** Groups consecutive sentences by their `document`. Documents with no sentence do not appear. */
export function groupByDocument<S extends Sentence>(sentences: Iterable<S>): DocumentGroup<S>[] {
  const groups: DocumentGroup<S>[] = [];
  let current: DocumentGroup<S> | undefined;
  for (const sentence of sentences) {
    if (current === undefined || !sameDocument(current.document, sentence.document)) {
      current = { document: sentence.document, sentences: [] };
      groups.push(current);
    }
    current.sentences.push(sentence);
  }
  return groups;
}

function sameDocument(a: DocumentInfo | undefined, b: DocumentInfo | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.index === b.index;
}

/**
 * The model-input view of a sentence: per token its fields from every column except the label
 * column (e.g. `[word, POS]` for CoNLL-2000), or from its `inputColumns` where the reader set
 * them (CoNLL-U: FORM), the rows feature extractors read.
 */
export function inputRows(sentence: Sentence): string[][] {
  const { columns, tokens, labels } = sentence;
  const only = sentence.inputColumns;
  if (only !== undefined) {
    const rows: string[][] = new Array(tokens.length);
    for (let t = 0; t < tokens.length; t++) rows[t] = only.map((c) => columns[c]![t]!);
    return rows;
  }
  const labelColumn = labels === undefined ? -1 : columns.indexOf(labels);
  const rows: string[][] = new Array(tokens.length);
  for (let t = 0; t < tokens.length; t++) {
    const row: string[] = [];
    for (let c = 0; c < columns.length; c++) if (c !== labelColumn) row.push(columns[c]![t]!);
    rows[t] = row;
  }
  return rows;
}
