import { LagrangeError } from "@lagrange/core";
import type { PseudoBooleanTerm } from "./function.js";

/**
 * The term an error blames: its kind, variables, values and coefficient, and the indices of the
 * stored terms it stands for (several when terms over the same variables and values were merged
 * before reducing; empty for a pair handed to `buildCutGraph` directly).
 */
export interface OffendingTerm extends Omit<PseudoBooleanTerm, "index"> {
  readonly termIndices: readonly number[];
}

/**
 * Raised when a pseudo-Boolean function cannot be made graph-representable (a submodular
 * quadratic function, minimised by a minimum s-t cut) by the reductions of this package: a pair
 * of variables keeps a positive quadratic coefficient after every term is reduced (and after the
 * ψ reparameterisation, when one-hot groups were given), or a pattern is too mixed to expand.
 * Never a silently wrong minimum: the message names the term, its variables and coefficient.
 */
export class NonRepresentableTermError extends LagrangeError {
  override readonly name = "NonRepresentableTermError";

  constructor(
    /** The term that makes the function non-representable (the largest positive contributor). */
    readonly term: OffendingTerm,
    /** The pair of variables whose total quadratic coefficient stays positive, if that is why. */
    readonly pair: readonly [number, number] | undefined,
    /** That pair's total coefficient after every reduction (> 0). */
    readonly pairCoefficient: number | undefined,
    message: string,
  ) {
    super("invalid-problem", message);
  }
}

/** Malformed `.pbf.txt` input; the message starts with `file:line:`. */
export class PbfFormatError extends LagrangeError {
  override readonly name = "PbfFormatError";

  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super("bad-input", `${file}:${line}: ${detail}`);
  }
}
