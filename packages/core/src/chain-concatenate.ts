import { type ChainScores, transitionOffset, validateChainScores } from "./chain.js";
import { ProblemValidationError } from "./errors.js";

/**
 * One chain over a whole group: the parts (one chain per sentence) laid end to end, so that a
 * group-level solver sees a single chain slave plus whatever couples its positions (a general
 * CRF's consistency patterns, a document's constraints).
 *
 * The score of any labelling of the concatenation is the sum of the parts' scores of their
 * pieces. Transitions become position-specific: inside a part they are the part's own (its
 * `allowed` mask folded in as −∞); across the boundary from part a to part b the block is
 * `end_a[x] + start_b[y]`, which carries the two sentence-edge scores and couples nothing else.
 * `starts[p]` is the first position of part p. A single part is returned unchanged.
 */
export function concatenateChains(parts: readonly ChainScores[]): {
  scores: ChainScores;
  starts: Int32Array;
} {
  if (parts.length === 0) {
    throw new ProblemValidationError("parts", "expected at least one chain");
  }
  const L = parts[0]!.L;
  let n = 0;
  const starts = new Int32Array(parts.length);
  parts.forEach((part, p) => {
    validateChainScores(part, `parts[${p}]`);
    if (part.L !== L) {
      throw new ProblemValidationError(
        `parts[${p}].L`,
        `expected the same label count as parts[0] (${L}), got ${part.L}`,
      );
    }
    starts[p] = n;
    n += part.n;
  });
  if (parts.length === 1) return { scores: parts[0]!, starts };

  const LL = L * L;
  const unary = new Float64Array(n * L);
  const transition = new Float64Array((n - 1) * LL);
  parts.forEach((part, p) => {
    const base = starts[p]!;
    unary.set(part.unary, base * L);
    for (let i = 1; i < part.n; i++) {
      const to = (base + i - 1) * LL;
      const from = transitionOffset(part, i);
      transition.set(part.transition.subarray(from, from + LL), to);
      if (part.allowed !== undefined) {
        for (let k = 0; k < LL; k++) {
          if (part.allowed[k] === 0) transition[to + k] = Number.NEGATIVE_INFINITY;
        }
      }
    }
    if (p === 0) return;
    // The block between the last position of part p−1 and the first of part p.
    const to = (base - 1) * LL;
    const end = parts[p - 1]!.end;
    const start = part.start;
    for (let x = 0; x < L; x++) {
      for (let y = 0; y < L; y++) {
        transition[to + x * L + y] = (end?.[x] ?? 0) + (start?.[y] ?? 0);
      }
    }
  });
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const scores: ChainScores = {
    n,
    L,
    unary,
    transition,
    ...(first.start !== undefined ? { start: first.start } : {}),
    ...(last.end !== undefined ? { end: last.end } : {}),
  };
  return { scores, starts };
}
