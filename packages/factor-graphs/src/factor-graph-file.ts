import { LagrangeError } from "@lagrange/core";
import type { BinaryFactor, BinaryProblem } from "@lagrange/core/dual-decomposition";

/**
 * What a global binary variable of a parsed file stands for, so that posteriors can be printed in
 * the file's own terms.
 */
export interface FileBinaryVariable {
  /**
   * The variable's id as the file writes it: 1-based in AD3's `.fg` format (the number a factor
   * line links), 0-based in UAI (the position in the cardinality line).
   */
  readonly fileVariable: number;
  /** For a UAI variable, the state this binary variable indicates; −1 for a `.fg` variable. */
  readonly state: number;
}

/** A multi-valued variable: the global binary variables that indicate its states, in order. */
export interface FileMultiVariable {
  /**
   * The UAI variable's index; in a `.fg` file, the multi-variable's index in the order DENSE
   * factors declare them (ad3_multi's own id; the format has no other name for it).
   */
  readonly fileVariable: number;
  /** Global binary variable of each state. */
  readonly states: Int32Array;
}

/** A factor graph read from one of AD3's formats. */
export interface FactorGraphFile {
  readonly format: "ad3" | "uai";
  /** The name given to the parser, used in errors. */
  readonly source: string;
  /**
   * The graph as ad3_multi builds it: the same binary variables in the same order (the posteriors
   * it writes line up with these), the same factors in the same order.
   */
  readonly problem: BinaryProblem;
  /** One per global binary variable of `problem`. */
  readonly binaryVariables: readonly FileBinaryVariable[];
  /** UAI: one per file variable; `.fg`: the groups DENSE factors declare. */
  readonly multiVariables: readonly FileMultiVariable[];
  readonly counts: FactorGraphCounts;
}

export interface FactorGraphCounts {
  /** Variables the file declares (binary ones in `.fg`, multi-valued ones in UAI). */
  readonly variables: number;
  /** Factors the file declares (UAI: including its single-variable tables). */
  readonly factors: number;
  /**
   * Factors by type: `.fg` type names as written (OR, XOR, PAIR, SEQUENCE, …); for UAI, `UNARY`
   * (single-variable tables, which become unaries), `DENSE` (tables over two or more variables)
   * and `XOR` (the one-of constraint ad3_multi adds over the states of every variable).
   */
  readonly factorsByType: Readonly<Record<string, number>>;
}

/**
 * A malformed factor-graph file: the message starts with `source:line:` and says what was
 * expected there.
 */
export class FactorGraphFormatError extends LagrangeError {
  override readonly name = "FactorGraphFormatError";
  constructor(
    readonly source: string,
    /** 1-based; the line after the last one when the file ended too soon. */
    readonly line: number,
    readonly detail: string,
  ) {
    super("bad-input", `${source}:${line}: ${detail}`);
  }
}

/** The lines of a text, with `#` comments cut off and 1-based numbers for errors. */
export class LineReader {
  private readonly lines: string[];
  private next = 0;

  constructor(
    text: string,
    readonly source: string,
  ) {
    this.lines = text.split(/\r?\n/);
    // A final newline does not start another line.
    if (this.lines.length > 0 && this.lines[this.lines.length - 1] === "") this.lines.pop();
  }

  /** 1-based number of the line `read` returned last. */
  get lineNumber(): number {
    return this.next;
  }

  /** Lines not read yet. */
  get remaining(): number {
    return this.lines.length - this.next;
  }

  get atEnd(): boolean {
    return this.next >= this.lines.length;
  }

  /** The next line without its comment; throws, saying `expected`, at the end of the text. */
  read(expected: string): string {
    if (this.next >= this.lines.length) {
      throw new FactorGraphFormatError(
        this.source,
        this.lines.length + 1,
        `expected ${expected}, found the end of the file`,
      );
    }
    const line = this.lines[this.next++]!;
    const hash = line.indexOf("#");
    return hash < 0 ? line : line.slice(0, hash);
  }

  /** The next line that is not blank once its comment is cut, or undefined at the end. */
  readNonBlank(): string | undefined {
    while (this.next < this.lines.length) {
      const line = this.read("a line");
      if (line.trim() !== "") return line;
    }
    return undefined;
  }

  /** Throws naming the line `read` returned last. */
  fail(detail: string): never {
    throw new FactorGraphFormatError(this.source, this.next, detail);
  }

  /** Throws naming the line after the last one, where the file ended too soon. */
  failAtEnd(detail: string): never {
    throw new FactorGraphFormatError(this.source, this.lines.length + 1, detail);
  }
}

/** Whitespace-separated fields (spaces and tabs, as AD3 splits them). */
export function fieldsOf(line: string): string[] {
  return line.split(/[ \t]+/).filter((f) => f !== "");
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A decimal integer, or an error naming the line and `what` was expected. */
export function parseInteger(reader: LineReader, field: string | undefined, what: string): number {
  if (field === undefined) reader.fail(`expected ${what}, found the end of the line`);
  if (!INTEGER.test(field)) reader.fail(`expected ${what} (an integer), found "${field}"`);
  const value = Number(field);
  if (!Number.isSafeInteger(value)) reader.fail(`expected ${what}, found "${field}" (too large)`);
  return value;
}

/**
 * A finite real number in C's `atof` decimal syntax, or an error naming the line: `inf`, `nan`
 * and decimals beyond the doubles (`1e999`) are refused — AD3 would carry them into every bound
 * and report a NaN or infinite objective as if it were a solution.
 */
export function parseReal(reader: LineReader, field: string | undefined, what: string): number {
  if (field === undefined) reader.fail(`expected ${what}, found the end of the line`);
  const value = DECIMAL.test(field) ? Number(field) : Number.NaN;
  if (Number.isFinite(value)) return value;
  return reader.fail(`expected ${what} (a finite number), found "${field}"`);
}

/** Adds one to `counts[type]`. */
export function countType(counts: Record<string, number>, type: string): void {
  counts[type] = (counts[type] ?? 0) + 1;
}

/** A line holding one count ≥ 0 and nothing else. */
export function readCountLine(reader: LineReader, what: string): number {
  const fields = fieldsOf(reader.read(what));
  if (fields.length !== 1) reader.fail(`expected ${what} alone on the line`);
  const n = parseInteger(reader, fields[0], what);
  if (n < 0) reader.fail(`expected ${what} ≥ 0, found ${n}`);
  return n;
}

/** Runs a factor factory; its complaint about the arguments becomes an error naming the line. */
export function buildFactor(reader: LineReader, make: () => BinaryFactor): BinaryFactor {
  try {
    return make();
  } catch (error) {
    if (error instanceof FactorGraphFormatError) throw error;
    return reader.fail((error as Error).message);
  }
}
