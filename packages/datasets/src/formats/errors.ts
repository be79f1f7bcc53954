import { LagrangeError } from "@lagrange/core";

/**
 * Malformed input: names the file (or stream name), the 1-based line, optionally the 1-based
 * column (field or character, as the message says), and what was expected there.
 * Every reader reports bad input with this class and no other.
 */
export class DataFormatError extends LagrangeError {
  override readonly name = "DataFormatError";
  readonly column?: number;

  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
    column?: number,
  ) {
    super("bad-input", `${file}:${line}${column === undefined ? "" : `:${column}`}: ${detail}`);
    if (column !== undefined) this.column = column;
  }
}
