import type { ChainScores } from "./chain.js";
import type { DecodeProblem } from "./decoder-types.js";
import { ProblemValidationError } from "./errors.js";

/** A position left free in a list of fixed labels. */
export const FREE_LABEL = -1;

/**
 * Which labels each position may take, n·L (1 = allowed, 0 = ruled out): forced decoding fixes a
 * position by allowing one label there, and Lawler–Murty's partition also rules single labels out.
 */
export type LabelRestriction = Uint8Array;

/** A restriction from one label id per position, {@link FREE_LABEL} (−1) for a free position. */
export function fixedLabelsRestriction(
  n: number,
  L: number,
  fixed: ArrayLike<number>,
): LabelRestriction {
  if (fixed.length !== n) {
    throw new ProblemValidationError("fixed", `expected ${n} entries, got ${fixed.length}`);
  }
  const allowed = new Uint8Array(n * L);
  for (let i = 0; i < n; i++) {
    const y = fixed[i]!;
    if (y === FREE_LABEL) {
      allowed.fill(1, i * L, (i + 1) * L);
    } else if (Number.isInteger(y) && y >= 0 && y < L) {
      allowed[i * L + y] = 1;
    } else {
      throw new ProblemValidationError(
        `fixed[${i}]`,
        `expected a label id in 0..${L - 1} or ${FREE_LABEL} (free), got ${y}`,
      );
    }
  }
  return allowed;
}

/** Whether a labelling takes only allowed labels. */
export function meetsRestriction(
  restriction: LabelRestriction,
  L: number,
  labels: ArrayLike<number>,
): boolean {
  for (let i = 0; i < labels.length; i++) if (restriction[i * L + labels[i]!] !== 1) return false;
  return true;
}

/**
 * The problem with every ruled-out label's unary score at −∞ (nothing else changes): what every
 * decoder maximises over then is the restricted set (a decoder must take −∞ unaries as it takes
 * the mask's −∞ transitions), and a position whose every label is ruled out, or
 * fixings the transition mask forbids, make the problem infeasible as any mask does.
 */
export function restrictProblem(
  problem: DecodeProblem,
  restriction: LabelRestriction,
): DecodeProblem {
  return { ...problem, scores: restrictScores(problem.scores, restriction) };
}

/** The chain scores of {@link restrictProblem}: a copy of the unaries, the rest shared. */
export function restrictScores(scores: ChainScores, restriction: LabelRestriction): ChainScores {
  const { n, L } = scores;
  if (restriction.length !== n * L) {
    throw new ProblemValidationError(
      "restriction",
      `expected n·L = ${n * L} entries, got ${restriction.length}`,
    );
  }
  const unary = scores.unary.slice();
  for (let k = 0; k < unary.length; k++) {
    if (restriction[k] === 0) unary[k] = Number.NEGATIVE_INFINITY;
  }
  return { ...scores, unary };
}
