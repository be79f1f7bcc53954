import {
  type ChainScores,
  constraintPenalty,
  constraintViolation,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  type Decoding,
  type LinearConstraint,
  scoreLabelling,
  throwIfAborted,
  validateChainScores,
} from "@lagrange/core";
import { transitionOffset } from "@lagrange/core/chain";
import {
  LabelConstraintTracker,
  type LabelConstraintTrackerOptions,
} from "../bridge/allowed-labels.js";

const NEG = Number.NEGATIVE_INFINITY;
const POS = Number.POSITIVE_INFINITY;
const NO_MULTIPLIERS = new Float64Array(0);

export interface GreedyDecoderOptions extends LabelConstraintTrackerOptions {
  /** The decoder's name (default "greedy"). */
  readonly name?: string;
}

/** A {@link Decoding} of the greedy decoder, with what its tracker had to give up. */
export interface GreedyDecoding extends Decoding {
  /** Decisions where no label met every hard constraint's necessary condition (least violation taken). */
  readonly constraintFallbacks: number;
}

/** The greedy decoder: its decodings say how often its tracker fell back. */
export interface GreedyDecoder extends Decoder {
  decode(problem: DecodeProblem, options?: DecodeOptions): GreedyDecoding;
}

/**
 * Left-to-right greedy search over a {@link DecodeProblem}: learning to search's test-time policy
 * with the chain's scores as the policy. At position i it takes, among the labels a
 * {@link LabelConstraintTracker} allows after the labels chosen so far (the mask's −∞ pattern and
 * the hard constraints prune; soft constraints add their costs),
 *   argmax_y  unary[i][y] + (i = 0 ? start[y] : transition(i, prev, y)) + (i = n−1 ? end[y] : 0) − cost(y),
 * the lowest label id on ties.
 *
 * The {@link Decoding}: `primal` is the chain score of the output minus the penalties of the soft
 * constraints it violates, −∞ if it breaks the mask or a hard constraint (soft-dd's objective,
 * `constrainedObjective`); no dual bound (`dual` and `gap` +∞, never certified); status
 * `infeasible` only when the problem provably has no feasible labelling (the mask admits none,
 * or one hard constraint alone is unsatisfiable), else `converged` — with `hardViolated > 0` when
 * the hard constraints jointly defeated the tracker's necessary conditions. With constraints, its
 * `constraintStats` count what the output violates; greedy search has no labelling before the
 * constraints act (they prune as it goes), so its first labels are its output. One pass,
 * `iterations` 1.
 *
 * A decoder keeps its buffers between sentences: per sentence it allocates only its output
 * (labels, the result object).
 */
export function greedyDecoder(options: GreedyDecoderOptions = {}): GreedyDecoder {
  const { name = "greedy", ...trackerOptions } = options;
  const tracker = new LabelConstraintTracker(trackerOptions);
  let allowed = new Int32Array(0);
  let costs = new Float64Array(0);
  const tolerance = trackerOptions.tolerance ?? 1e-9;

  const pass = (t: LabelConstraintTracker, scores: ChainScores, out: Int32Array): void => {
    const { n, L, unary, transition, start, end } = scores;
    for (let i = 0; i < n; i++) {
      const count = t.allowedAt(i, allowed, costs);
      const row = i * L;
      const prev = i === 0 ? -1 : out[i - 1]!;
      const from = i === 0 ? 0 : transitionOffset(scores, i) + prev * L;
      let best = allowed[0]!;
      let bestScore = NEG;
      for (let c = 0; c < count; c++) {
        const y = allowed[c]!;
        let s = unary[row + y]! - costs[c]!;
        if (i === 0) {
          if (start !== undefined) s += start[y]!;
        } else s += transition[from + y]!;
        if (i === n - 1 && end !== undefined) s += end[y]!;
        if (s > bestScore) {
          bestScore = s;
          best = y;
        }
      }
      out[i] = best;
      t.commit(i, best);
    }
  };

  return {
    name,
    decode(problem: DecodeProblem, decodeOptions?: DecodeOptions): GreedyDecoding {
      throwIfAborted(decodeOptions?.signal);
      const { scores } = problem;
      validateChainScores(scores, "problem.scores");
      const { n, L } = scores;
      if (allowed.length < L) {
        allowed = new Int32Array(L);
        costs = new Float64Array(L);
      }
      const constraints: readonly LinearConstraint[] = problem.constraints ?? [];
      tracker.resetFromScores(scores, constraints);
      const labels = new Int32Array(n);
      pass(tracker, scores, labels);

      let violated = 0;
      let hardViolated = 0;
      for (const c of constraints) {
        if (constraintViolation(c, labels, L) > tolerance) {
          violated++;
          if (c.penalty === undefined) hardViolated++;
        }
      }
      const chain = scoreLabelling(scores, labels);
      const primal =
        chain === NEG ? NEG : chain - constraintPenalty(constraints, labels, L, tolerance);
      return {
        labels,
        primal,
        dual: POS,
        status: tracker.provablyInfeasible ? "infeasible" : "converged",
        iterations: 1,
        certified: false,
        gap: POS,
        ...(constraints.length === 0
          ? {}
          : {
              constraintStats: {
                multipliers: NO_MULTIPLIERS,
                firstLabels: labels,
                firstViolated: violated,
                violated,
                hardViolated,
              },
            }),
        constraintFallbacks: tracker.constraintFallbacks,
      };
    },
  };
}

/** `greedy`: the registry's name for {@link greedyDecoder}. */
export const greedyDefinition: DecoderDefinition = {
  name: "greedy",
  description:
    "left-to-right greedy search, learning to search's test-time policy: constraints prune the allowed labels (hard) and add costs (soft)",
  accepts: { constraints: true, slaves: false },
  // Alone, it is a left-to-right greedy search of the chain's scores.
  capabilities: { needsConstraints: false, certificate: "none" },
  create: () => greedyDecoder(),
};
