// The kernels' input and gradient layout is chain-crf's objective contract: one definition.
import { type ChainInput, emptyChainInput } from "@lagrange/chain-crf";
import { type ChainScores, validateChainScores } from "@lagrange/core";
import { isPositionSpecific } from "@lagrange/core/chain";

export { type ChainGradient, type ChainInput, emptyChainInput } from "@lagrange/chain-crf";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Points `input` at a core {@link ChainScores} (validated), the start and end scores folded into
 * the local scores in `input.local`, which grows when too short. Returns `input`.
 */
export function loadChainScores(
  scores: ChainScores,
  input: ChainInput = emptyChainInput(),
): ChainInput {
  validateChainScores(scores);
  const { n, L } = scores;
  if (input.local.length < n * L)
    input.local = new Float64Array(Math.max(n * L, 2 * input.local.length));
  const local = input.local;
  local.set(scores.unary);
  if (scores.start !== undefined) for (let t = 0; t < L; t++) local[t]! += scores.start[t]!;
  if (scores.end !== undefined)
    for (let t = 0; t < L; t++) local[(n - 1) * L + t]! += scores.end[t]!;
  input.n = n;
  input.L = L;
  input.localBase = 0;
  input.transition = scores.transition;
  input.transitionBase = 0;
  input.transitionStride = isPositionSpecific(scores) ? L * L : 0;
  input.allowed = scores.allowed ?? null;
  return input;
}

/** Score of labels[base … base + n) under `input`; −∞ when it uses a forbidden label or pair. */
export function labellingScore(input: ChainInput, labels: ArrayLike<number>, base = 0): number {
  const { n, L, local, localBase, transition, transitionBase, transitionStride, allowed } = input;
  let score = 0;
  for (let i = 0; i < n; i++) {
    const y = labels[base + i]!;
    score += local[localBase + i * L + y]!;
    if (i > 0) {
      const pair = labels[base + i - 1]! * L + y;
      if (allowed !== null && allowed[pair] === 0) return NEG;
      score += transition[transitionBase + (i - 1) * transitionStride + pair]!;
    }
  }
  return Number.isNaN(score) ? NEG : score;
}
