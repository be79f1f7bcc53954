import { constraintViolation, type LinearConstraint } from "./constraints.js";
import type { Solution } from "./solver.js";

/**
 * What every decoder returns: a {@link Solution} and its certificate. What the constraints did
 * (anzaroot2014 Table 2's statistics) is an optional part, {@link ConstraintStats}, filled by the
 * decoders that track it; a decoding without it counts as unconstrained.
 */
export interface Decoding extends Solution {
  /** The labelling is provably optimal for the decoder's objective (status `optimal`). */
  readonly certified: boolean;
  /** dual − primal (0 for an exact decoder; +∞ when no labelling met the hard constraints). */
  readonly gap: number;
  /**
   * What the constraints did: absent = unconstrained (first labels = labels, nothing violated).
   * Dual decomposition and the ILP decoders always fill it; others when they have something to say.
   */
  readonly constraintStats?: ConstraintStats;
}

/** How a decoding's constraints shaped it: the statistics of anzaroot2014's Table 2. */
export interface ConstraintStats {
  /** λ per constraint at the end (> 0: the constraint pushed on the scores); empty without multipliers. */
  readonly multipliers: Float64Array;
  /**
   * The labelling before the constraints acted: dual decomposition's first iterate (with λ₀ = 0
   * and one exact chain slave, what Viterbi alone would have said), the ILP's unconstrained
   * optimum; `labels` itself for a decoder that has none.
   */
  readonly firstLabels: Int32Array;
  /** Constraints `firstLabels` violates. */
  readonly firstViolated: number;
  /** Constraints `labels` violates (soft ones may stay violated). */
  readonly violated: number;
  /** Hard constraints `labels` violates: > 0 only when no labelling meeting them was found. */
  readonly hardViolated: number;
}

const NO_MULTIPLIERS = new Float64Array(0);

/** The multipliers of a decoding (empty without {@link ConstraintStats}). */
export function decodingMultipliers(d: Decoding): Float64Array {
  return d.constraintStats?.multipliers ?? NO_MULTIPLIERS;
}

/** The labelling before the constraints acted: `labels` for an unconstrained decoding. */
export function firstLabelsOf(d: Decoding): Int32Array {
  return d.constraintStats?.firstLabels ?? d.labels;
}

/** A decoding of an exact, unconstrained decoder (Viterbi, ILP without constraints, …). */
export function exactDecoding(labels: Int32Array, score: number): Decoding {
  const feasible = score > Number.NEGATIVE_INFINITY;
  return {
    labels,
    primal: score,
    dual: score,
    status: feasible ? "optimal" : "infeasible",
    iterations: 1,
    certified: feasible,
    gap: feasible ? 0 : Number.POSITIVE_INFINITY,
  };
}

/** Aggregate statistics of a decoded corpus: the columns of anzaroot2014's Table 2 and more. */
export interface DecodingSummary {
  readonly examples: number;
  /** Mean slave calls per example (anzaroot2014: 1.83). */
  readonly meanIterations: number;
  readonly maxIterations: number;
  /** Share of examples with a certificate of optimality, in [0, 1]. */
  readonly certifiedRate: number;
  /** Share whose first iterate (the unconstrained labelling) violated some constraint. */
  readonly initiallyViolatedRate: number;
  /** Mean iterations over those examples only (anzaroot2014: 4.52). */
  readonly meanIterationsWhenInitiallyViolated: number;
  /** Initially violated, and the returned labelling violates nothing (anzaroot2014: 11.99 %). */
  readonly repairedRate: number;
  /** The returned labelling still violates some (soft) constraint (anzaroot2014: 11.72 %). */
  readonly stillViolatedRate: number;
  /** Examples whose returned labels differ from the first iterate's. */
  readonly changedRate: number;
  /** Proven infeasible (a mask forbids every labelling, or a hard constraint is unsatisfiable). */
  readonly infeasible: number;
  /** Runs that ended without a labelling meeting the hard constraints (least-violating one kept). */
  readonly hardViolated: number;
}

/**
 * A running {@link DecodingSummary}: `add` each decoding as it comes (a corpus streamed through a
 * decoder need not be kept), `summary()` at any time.
 */
export class DecodingTally {
  #examples = 0;
  #iterations = 0;
  #maxIterations = 0;
  #certified = 0;
  #initiallyViolated = 0;
  #iterationsWhenViolated = 0;
  #repaired = 0;
  #stillViolated = 0;
  #changed = 0;
  #infeasible = 0;
  #hardViolated = 0;

  add(d: Decoding): this {
    this.#examples++;
    this.#iterations += d.iterations;
    this.#maxIterations = Math.max(this.#maxIterations, d.iterations);
    if (d.certified) this.#certified++;
    // Without constraint statistics a decoding is unconstrained: nothing violated, nothing changed.
    const stats = d.constraintStats;
    if (d.status === "infeasible") this.#infeasible++;
    else if (stats !== undefined && stats.hardViolated > 0) this.#hardViolated++;
    if (stats === undefined) return this;
    if (stats.firstViolated > 0) {
      this.#initiallyViolated++;
      this.#iterationsWhenViolated += d.iterations;
      if (stats.violated === 0) this.#repaired++;
    }
    if (stats.violated > 0) this.#stillViolated++;
    const first = stats.firstLabels;
    if (d.labels.some((y, i) => y !== first[i])) this.#changed++;
    return this;
  }

  summary(): DecodingSummary {
    const examples = this.#examples;
    const share = (k: number) => (examples === 0 ? 0 : k / examples);
    const violated = this.#initiallyViolated;
    return {
      examples,
      meanIterations: share(this.#iterations),
      maxIterations: this.#maxIterations,
      certifiedRate: share(this.#certified),
      initiallyViolatedRate: share(violated),
      meanIterationsWhenInitiallyViolated:
        violated === 0 ? 0 : this.#iterationsWhenViolated / violated,
      repairedRate: share(this.#repaired),
      stillViolatedRate: share(this.#stillViolated),
      changedRate: share(this.#changed),
      infeasible: this.#infeasible,
      hardViolated: this.#hardViolated,
    };
  }
}

export function summarizeDecodings(decodings: readonly Decoding[]): DecodingSummary {
  const tally = new DecodingTally();
  for (const d of decodings) tally.add(d);
  return tally.summary();
}

/** How one constraint fared: on the first iterate and on the returned labelling. */
export interface ConstraintEffect {
  /** Index in the problem's constraint array. */
  readonly index: number;
  /** The constraint's name (its rule in words), or `constraint #i`. */
  readonly name: string;
  readonly violationBefore: number;
  readonly violationAfter: number;
  /** Final multiplier λ_i: > 0 means the constraint pushed on the slaves' scores. */
  readonly multiplier: number;
}

/**
 * The constraints that shaped a decoding: those whose violation changed between the first
 * iterate and the returned labelling, or whose multiplier ended above zero; most violation
 * removed first. For demos and reports ("labels changed because of: at most one authors segment").
 */
export function constraintEffects(
  constraints: readonly LinearConstraint[],
  decoding: Decoding,
  L: number,
): ConstraintEffect[] {
  const out: ConstraintEffect[] = [];
  const first = firstLabelsOf(decoding);
  const multipliers = decodingMultipliers(decoding);
  constraints.forEach((c, index) => {
    const violationBefore = constraintViolation(c, first, L);
    const violationAfter = constraintViolation(c, decoding.labels, L);
    const multiplier = multipliers[index] ?? 0;
    if (violationBefore === violationAfter && multiplier === 0) return;
    out.push({
      index,
      name: c.name ?? `constraint #${index}`,
      violationBefore,
      violationAfter,
      multiplier,
    });
  });
  return out.sort(
    (a, b) =>
      b.violationBefore - b.violationAfter - (a.violationBefore - a.violationAfter) ||
      b.multiplier - a.multiplier,
  );
}
