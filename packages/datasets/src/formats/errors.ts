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
    super(
      "bad-input",
      `${file}:${line}${column === undefined ? "" : `:${column}`}: ${clipDetail(detail)}`,
    );
    if (column !== undefined) this.column = column;
  }
}

const MAX_DETAIL = 400;

/** A message quoting a megabyte-long token or line stays one readable line. */
function clipDetail(detail: string): string {
  if (detail.length <= MAX_DETAIL) return detail;
  return `${detail.slice(0, MAX_DETAIL - 100)} … ${detail.slice(-80)} (${detail.length} characters)`;
}
