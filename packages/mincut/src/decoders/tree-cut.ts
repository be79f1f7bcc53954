import { type ChainScores, ProblemValidationError } from "@lagrange/core";
import { transitionOffset } from "@lagrange/core/chain";
import type { PatternFactor } from "@lagrange/core/factor-graph";

/** A general CRF split along its spanning tree (the chain): what the tree slave and the rest get. */
export interface TreeCutSplit {
  /** The chain, with every pattern factor over two consecutive positions folded into its transitions. */
  readonly chain: ChainScores;
  /** The factors the chain cannot take: skip edges and higher-order patterns. */
  readonly rest: readonly PatternFactor[];
  /** How many factors went into the chain. */
  readonly folded: number;
}

/**
 * qian-liu2014 §3.3's tree-cut split with the chain as spanning tree T: a pattern factor over two
 * consecutive positions (i−1, i) is an edge of T, so its table is added to the chain's transition
 * block i (made position-specific on a copy, the input is not touched); every other factor is
 * left for the second slave(s). Exact: the chain's score of any labelling grows by exactly the
 * folded factors' scores. A tree edge in the chain slave needs no ψ (Viterbi takes any sign), which
 * is where the reference code loses tightness (it keeps those corrections in the cut slave).
 */
export function splitTreeCut(
  scores: ChainScores,
  patterns: readonly PatternFactor[],
): TreeCutSplit {
  const { n, L } = scores;
  const rest: PatternFactor[] = [];
  let transition: Float64Array | null = null;
  let folded = 0;
  patterns.forEach((factor, f) => {
    const vars = factor.variables;
    for (const v of vars) {
      if (!(Number.isInteger(v) && v >= 0 && v < n)) {
        throw new ProblemValidationError(
          `problem.patterns[${f}].variables`,
          `expected positions in 0..${n - 1}, got ${v}`,
        );
      }
    }
    if (vars.length !== 2 || Math.abs(vars[0]! - vars[1]!) !== 1) {
      rest.push(factor);
      return;
    }
    if (transition === null) transition = positionSpecific(scores);
    const forward = vars[0]! < vars[1]!;
    const block = (Math.max(vars[0]!, vars[1]!) - 1) * L * L;
    const base = factor.defaultScore;
    if (base !== 0) for (let k = 0; k < L * L; k++) transition[block + k]! += base;
    for (let p = 0; p < factor.scores.length; p++) {
      const a = factor.patterns[2 * p]!;
      const b = factor.patterns[2 * p + 1]!;
      const at = forward ? a * L + b : b * L + a;
      transition[block + at]! += factor.scores[p]! - base;
    }
    folded++;
  });
  const chain: ChainScores = transition === null ? scores : { ...scores, transition };
  return { chain, rest, folded };
}

function positionSpecific(scores: ChainScores): Float64Array {
  const { n, L } = scores;
  const LL = L * L;
  const out = new Float64Array(Math.max(0, n - 1) * LL);
  for (let i = 1; i < n; i++) {
    const offset = transitionOffset(scores, i);
    out.set(scores.transition.subarray(offset, offset + LL), (i - 1) * LL);
  }
  return out;
}
