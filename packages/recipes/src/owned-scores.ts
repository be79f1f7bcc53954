import type { ChainScores } from "@lagrange/core";

/**
 * Chain scores that own their arrays: a model's scorer reuses its buffers, so scores kept past
 * the next sentence (a document's chains, learning examples) are copied; a shared transition block
 * stays shared.
 */
export function ownScores(scores: ChainScores): ChainScores {
  return {
    ...scores,
    unary: scores.unary.slice(),
    transition:
      scores.transition.length === scores.L * scores.L
        ? scores.transition
        : scores.transition.slice(),
  };
}
