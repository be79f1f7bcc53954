import { LagrangeError } from "@lagrange/core";
import { compareCodePoints, formatFixed, padBytes, perlSplit, perlTrue } from "./perl.js";

/*
 * A re-implementation of conlleval.pl (version 2004-01-26, Erik Tjong Kim Sang), the CoNLL-2000
 * shared-task scorer: same chunk boundaries (its startOfChunk / endOfChunk, which read IOB1,
 * IOB2, IOE and bracket tags), same counting, same report to the byte.
 */

/** Options of conlleval.pl, by their command-line letter. */
export interface ConllevalOptions {
  /** `-r`: tags carry no B-/I- prefix; every non-outside tag is a one-token chunk. */
  readonly raw?: boolean;
  /**
   * `-d`: the field delimiter. conlleval uses it as a Perl regular expression; a string here is
   * matched literally (pass a RegExp for a pattern). Default: a single space, as in conlleval
   * (not any whitespace: a tab stays inside a field).
   */
  readonly delimiter?: string | RegExp;
  /** `-o`: the outside tag. As in conlleval, it is only read together with `raw`. Default `O`. */
  readonly outside?: string;
  /** `-l`: the LaTeX table instead of the text report (`conllevalReport` only). */
  readonly latex?: boolean;
  /**
   * conlleval counts a `-DOCSTART-` line as an ordinary token (tagged O/O in CoNLL-2003 files,
   * so it inflates token accuracy). `true` treats it as a sentence boundary instead. Default false.
   */
  readonly docstartAsBoundary?: boolean;
  /** Named in error messages. */
  readonly file?: string;
}

export interface PrecisionRecallF1 {
  /** Fractions in [0, 1] (conlleval prints percentages); 0 where undefined, as conlleval does. */
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

export interface TypeEvaluation extends PrecisionRecallF1 {
  /** Predicted chunks of this type (the last number on conlleval's per-type line). */
  readonly count: number;
  /** Gold chunks of this type. */
  readonly gold: number;
  /** Correctly predicted chunks of this type. */
  readonly correct: number;
}

export interface ChunkEvaluation extends PrecisionRecallF1 {
  /** Tokens counted (sentence boundaries are not tokens). */
  readonly tokens: number;
  /** Tokens whose predicted tag equals the gold tag. */
  readonly correctTokens: number;
  readonly tokenAccuracy: number;
  readonly goldChunks: number;
  readonly predictedChunks: number;
  readonly correctChunks: number;
  /** Per chunk type, in conlleval's order (Perl `sort`: by code point). */
  readonly perType: Readonly<Record<string, TypeEvaluation>>;
}

/** Raised for input conlleval would refuse; names the file and line. */
export class ConllevalInputError extends LagrangeError {
  override readonly name = "ConllevalInputError";
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super("bad-input", `${file}:${line}: ${message}`);
  }
}

const BOUNDARY = "-X-";

function endOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === "B" && (tag === "B" || tag === "O")) return true;
  if (prevTag === "I" && (tag === "B" || tag === "O")) return true;
  if (prevTag === "E" && (tag === "E" || tag === "I" || tag === "O")) return true;
  if (prevTag !== "O" && prevTag !== "." && prevType !== type) return true;
  return prevTag === "]" || prevTag === "[";
}

function startOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === "B" && (prevTag === "B" || prevTag === "I" || prevTag === "O")) return true;
  if (prevTag === "O" && (tag === "I" || tag === "E")) return true;
  if (prevTag === "E" && (tag === "E" || tag === "I")) return true;
  if (tag !== "O" && tag !== "." && prevType !== type) return true;
  return tag === "[" || tag === "]";
}

const TAG_AND_TYPE = /^([^-]*)-(.*)$/s;

/** Splits a tag at its first hyphen; conlleval maps a false-in-Perl type ("0") to "". */
function splitTag(label: string): [string, string] {
  const m = TAG_AND_TYPE.exec(label);
  if (m === null) return [label, ""];
  const type = m[2]!;
  return [m[1]!, perlTrue(type) ? type : ""];
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/**
 * conlleval's state machine, fed one token (or boundary) at a time. Internal: the public faces
 * are evaluateConllText, evaluateChunks and conllevalReport.
 */
export class ConllevalCounter {
  #lastCorrect = "O";
  #lastCorrectType = "";
  #lastGuessed = "O";
  #lastGuessedType = "";
  #inCorrect = false;
  #finished = false;
  #correctChunks = 0;
  #foundCorrect = 0;
  #foundGuessed = 0;
  #correctTags = 0;
  #tokens = 0;
  readonly #correctByType = new Map<string, number>();
  readonly #foundCorrectByType = new Map<string, number>();
  readonly #foundGuessedByType = new Map<string, number>();

  /** One token with its gold and predicted tags (already `B-`-prefixed in raw mode). */
  addToken(goldLabel: string, predictedLabel: string): void {
    const [correct, correctType] = splitTag(goldLabel);
    const [guessed, guessedType] = splitTag(predictedLabel);
    this.#step(correct, correctType, guessed, guessedType, false);
  }

  /** A sentence break: counted as outside of any chunk, not as a token. */
  addBoundary(): void {
    this.#step("O", "", "O", "", true);
  }

  #step(
    correct: string,
    correctType: string,
    guessed: string,
    guessedType: string,
    boundary: boolean,
  ): void {
    if (this.#finished) throw new Error("ConllevalCounter: already finished");
    const lastCorrect = this.#lastCorrect;
    const lastGuessed = this.#lastGuessed;
    const lastCorrectType = this.#lastCorrectType;
    const lastGuessedType = this.#lastGuessedType;
    if (this.#inCorrect) {
      const goldEnds = endOfChunk(lastCorrect, correct, lastCorrectType, correctType);
      const guessEnds = endOfChunk(lastGuessed, guessed, lastGuessedType, guessedType);
      if (goldEnds && guessEnds && lastGuessedType === lastCorrectType) {
        this.#inCorrect = false;
        this.#correctChunks++;
        increment(this.#correctByType, lastCorrectType);
      } else if (goldEnds !== guessEnds || guessedType !== correctType) {
        this.#inCorrect = false;
      }
    }
    const goldStarts = startOfChunk(lastCorrect, correct, lastCorrectType, correctType);
    const guessStarts = startOfChunk(lastGuessed, guessed, lastGuessedType, guessedType);
    if (goldStarts && guessStarts && guessedType === correctType) this.#inCorrect = true;
    if (goldStarts) {
      this.#foundCorrect++;
      increment(this.#foundCorrectByType, correctType);
    }
    if (guessStarts) {
      this.#foundGuessed++;
      increment(this.#foundGuessedByType, guessedType);
    }
    if (!boundary) {
      if (correct === guessed && guessedType === correctType) this.#correctTags++;
      this.#tokens++;
    }
    this.#lastGuessed = guessed;
    this.#lastCorrect = correct;
    this.#lastGuessedType = guessedType;
    this.#lastCorrectType = correctType;
  }

  finish(): ChunkEvaluation {
    if (!this.#finished) {
      this.#finished = true;
      if (this.#inCorrect) {
        this.#correctChunks++;
        increment(this.#correctByType, this.#lastCorrectType);
      }
    }
    const types = [
      ...new Set([...this.#foundCorrectByType.keys(), ...this.#foundGuessedByType.keys()]),
    ];
    types.sort(compareCodePoints);
    const perType: [string, TypeEvaluation][] = types.map((type) => {
      const correct = this.#correctByType.get(type) ?? 0;
      const count = this.#foundGuessedByType.get(type) ?? 0;
      const gold = this.#foundCorrectByType.get(type) ?? 0;
      return [type, { ...prf(correct, count, gold), count, gold, correct }];
    });
    return {
      tokens: this.#tokens,
      correctTokens: this.#correctTags,
      tokenAccuracy: this.#tokens > 0 ? this.#correctTags / this.#tokens : 0,
      goldChunks: this.#foundCorrect,
      predictedChunks: this.#foundGuessed,
      correctChunks: this.#correctChunks,
      ...prf(this.#correctChunks, this.#foundGuessed, this.#foundCorrect),
      perType: Object.fromEntries(perType),
    };
  }
}

/** Precision, recall and F1 from counts; 0 where a denominator is 0 (conlleval's convention). */
export function prf(correct: number, predicted: number, gold: number): PrecisionRecallF1 {
  const precision = predicted > 0 ? correct / predicted : 0;
  const recall = gold > 0 ? correct / gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/**
 * Scores conlleval input text: one token per line, fields split by the delimiter, the gold tag
 * second to last and the prediction last; empty lines and lines whose first field is `-X-` are
 * sentence boundaries.
 */
export function evaluateConllText(text: string, options: ConllevalOptions = {}): ChunkEvaluation {
  const reader = new ConllevalLineReader(options);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) reader.line(line);
  return reader.finish();
}

/** conlleval's main loop: one input line at a time. */
class ConllevalLineReader {
  readonly file: string;
  lineNumber = 0;
  readonly #options: ConllevalOptions;
  readonly #delimiter: string | RegExp;
  readonly #outsideTag: string;
  readonly #counter = new ConllevalCounter();
  #fieldsPerLine = -1;
  #fieldsLine = 0;

  constructor(options: ConllevalOptions) {
    this.#options = options;
    this.file = options.file ?? "<input>";
    this.#delimiter = options.delimiter ?? " ";
    this.#outsideTag = options.outside ?? "O";
  }

  line(raw: string): void {
    const lineNumber = ++this.lineNumber;
    // CRLF files (written on Windows) read like LF ones; conlleval.pl would see a field "\r".
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    let features = perlSplit(text, this.#delimiter);
    if (this.#fieldsPerLine < 0) {
      this.#fieldsPerLine = features.length - 1;
      this.#fieldsLine = lineNumber;
    } else if (this.#fieldsPerLine !== features.length - 1 && features.length !== 0) {
      throw new ConllevalInputError(
        this.file,
        lineNumber,
        `unexpected number of fields: ${features.length} (expected ${this.#fieldsPerLine + 1}, as on line ${this.#fieldsLine})`,
      );
    }
    if (
      features.length === 0 ||
      features[0] === BOUNDARY ||
      (this.#options.docstartAsBoundary === true && features[0] === "-DOCSTART-")
    ) {
      features = [BOUNDARY, "O", "O"];
    }
    if (features.length < 2) {
      throw new ConllevalInputError(
        this.file,
        lineNumber,
        `expected at least two fields (gold and predicted tag), got ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)}${text.length > 60 ? ` (${text.length} characters)` : ""}`,
      );
    }
    let guessedLabel = features[features.length - 1]!;
    let correctLabel = features[features.length - 2]!;
    if (this.#options.raw === true) {
      const oTag = this.#outsideTag;
      if (guessedLabel === oTag) guessedLabel = "O";
      if (correctLabel === oTag) correctLabel = "O";
      if (guessedLabel !== "O") guessedLabel = `B-${guessedLabel}`;
      if (correctLabel !== "O") correctLabel = `B-${correctLabel}`;
    }
    // Every boundary line was rewritten to (-X-, O, O) above, so its first field tells.
    if (features[0] === BOUNDARY) this.#counter.addBoundary();
    else this.#counter.addToken(correctLabel, guessedLabel);
  }

  finish(): ChunkEvaluation {
    return this.#counter.finish();
  }
}

/** conlleval's standard output for `text`, byte for byte. */
export function conllevalReport(text: string, options: ConllevalOptions = {}): string {
  return formatConllevalReport(evaluateConllText(text, options), { latex: options.latex === true });
}

function percent(correct: number, total: number): number {
  return total > 0 ? (100 * correct) / total : 0;
}

function fb1(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/**
 * Prints an evaluation as conlleval does (`latex`: as `conlleval -l`). The numbers are recomputed
 * from the counts in conlleval's own arithmetic (percentages first), so rounding matches.
 */
export function formatConllevalReport(
  evaluation: ChunkEvaluation,
  options: { readonly latex?: boolean } = {},
): string {
  const f = (x: number): string => formatFixed(x, 6, 2);
  const precision = percent(evaluation.correctChunks, evaluation.predictedChunks);
  const recall = percent(evaluation.correctChunks, evaluation.goldChunks);
  const overallF = fb1(precision, recall);
  // Perl's de-duplication of the sorted type list compares with the previous name unless that
  // name is false, so the empty type (tags without a hyphen) is listed twice when it occurs in
  // both columns.
  const rows: string[] = [];
  for (const [type, entry] of Object.entries(evaluation.perType)) {
    rows.push(type);
    if (!perlTrue(type) && entry.gold > 0 && entry.count > 0) rows.push(type);
  }
  let out = "";
  if (options.latex === true) {
    out += "        & Precision &  Recall  & F$_{\\beta=1} \\\\\\hline";
    for (const type of rows) {
      const entry = evaluation.perType[type]!;
      const p = percent(entry.correct, entry.count);
      const r = percent(entry.correct, entry.gold);
      out += `\n${padBytes(type, 7, true)} &  ${f(p)}\\% & ${f(r)}\\% & ${f(fb1(p, r))} \\\\`;
    }
    out += "\\hline\n";
    out += `Overall &  ${f(precision)}\\% & ${f(recall)}\\% & ${f(overallF)} \\\\\\hline\n`;
    return out;
  }
  out += `processed ${evaluation.tokens} tokens with ${evaluation.goldChunks} phrases; `;
  out += `found: ${evaluation.predictedChunks} phrases; correct: ${evaluation.correctChunks}.\n`;
  if (evaluation.tokens > 0) {
    out += `accuracy: ${f(percent(evaluation.correctTokens, evaluation.tokens))}%; `;
    out += `precision: ${f(precision)}%; recall: ${f(recall)}%; FB1: ${f(overallF)}\n`;
  }
  for (const type of rows) {
    const entry = evaluation.perType[type]!;
    const p = percent(entry.correct, entry.count);
    const r = percent(entry.correct, entry.gold);
    out += `${padBytes(type, 17)}: precision: ${f(p)}%; recall: ${f(r)}%; FB1: ${f(fb1(p, r))}  ${entry.count}\n`;
  }
  return out;
}
