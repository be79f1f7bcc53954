import { LagrangeError } from "@lagrange/core";

/** A malformed CRF++ template; `line` and `column` are 1-based. */
export class TemplateSyntaxError extends LagrangeError {
  override readonly name = "TemplateSyntaxError";
  constructor(
    readonly source: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super("bad-input", `${source}:${line}:${column}: ${detail}`);
  }
}

/** Token rows that do not fit an extractor (too few columns, no tokens where some are needed). */
export class FeatureInputError extends LagrangeError {
  override readonly name = "FeatureInputError";
  constructor(
    readonly extractor: string,
    readonly token: number,
    readonly detail: string,
  ) {
    super("bad-input", `${extractor}: token ${token}: ${detail}`);
  }
}
