import { type AttributeSequence, explainLabelling, type TokenScore } from "@lagrange/chain-crf";
import { constraintViolation, type Decoding } from "@lagrange/core";
import { firstLabelsOf, isHard } from "@lagrange/core/dual-decomposition";
import type { Sentence } from "@lagrange/datasets";
import { modelDecodingConstraints } from "./model-scheme.js";
import type { Tagger } from "./tagger.js";

/** A constraint's push on one token's label: −λ · coefficient, with where it comes from. */
export interface ConstraintTerm {
  /** The constraint's rule in words (its template's name). */
  readonly name: string;
  /** Its final multiplier λ (≥ 0; at most the penalty for a soft constraint). */
  readonly multiplier: number;
  /** Its coefficient on (this token, this label). */
  readonly coefficient: number;
  /** −λ · coefficient: what it added to this label's score in the decoder's last subproblem. */
  readonly term: number;
  /** The learned penalty per unit of violation; null for a hard constraint. */
  readonly penalty: number | null;
}

/** One token: the chain's breakdown of its label, plus the constraint multipliers that touched it. */
export interface TokenExplanation extends TokenScore {
  readonly token: string;
  /** The strongest constraint terms on the token's label, by magnitude (all with `top` unset). */
  readonly constraintTerms: readonly ConstraintTerm[];
  /** Σ of every constraint term on the token's label (listed or not). */
  readonly constraintTerm: number;
  /** The terms on the token's label that `top` left out. */
  readonly omittedTerms: number;
  /** The label the chain alone gave the token (Viterbi; the decoder's first iterate). */
  readonly unconstrained: string;
  /**
   * Where the decoder moved the token off `unconstrained`: the terms on that label (a constraint
   * may push the old label down rather than the new one up). Empty where the label did not move.
   */
  readonly unconstrainedTerms: readonly ConstraintTerm[];
  /** The terms on each `compared` label, in its order. */
  readonly comparedTerms: readonly (readonly ConstraintTerm[])[];
}

/** How one constraint ended: what the labelling does with it, and its multiplier. */
export interface ConstraintOutcome {
  readonly name: string;
  readonly multiplier: number;
  readonly penalty: number | null;
  /** a · y of the labelling, and the bound it should stay under. */
  readonly activity: number;
  readonly rhs: number;
  /** max(0, activity − rhs) for the labelling, and for the unconstrained one. */
  readonly violation: number;
  readonly violationBefore: number;
  /** penalty × violation (0 for a hard constraint). */
  readonly paid: number;
}

/** One sentence's labelling, explained: chain parts per token, constraint terms, and the sums. */
export interface SentenceExplanation {
  readonly tokens: readonly string[];
  readonly labels: readonly string[];
  readonly perToken: readonly TokenExplanation[];
  /** The labelling's chain score: Σ of the tokens' `chosen.total`. */
  readonly score: number;
  /** Constraints that pushed (λ ≠ 0) or that a labelling breaks; empty without constraints. */
  readonly constraints: readonly ConstraintOutcome[];
  /** Σ penalty × violation over the soft constraints the labelling breaks. */
  readonly penaltyPaid: number;
  /** score − penaltyPaid: the soft-constrained objective (Soft-DD's primal). */
  readonly objective: number;
  /**
   * The Lagrangian at the decoder's final multipliers: score + Σ tokens' constraint terms +
   * Σ λ·rhs (the constant). Equals score − Σ λ·(a·y − rhs).
   */
  readonly lagrangian: { readonly constant: number; readonly value: number };
  readonly decoding: {
    readonly status: Decoding["status"];
    readonly certified: boolean;
    readonly iterations: number;
    readonly primal: number;
    readonly dual: number | undefined;
    readonly gap: number;
  };
}

export interface ExplainSentenceOptions {
  /** Keep the k strongest contributions (features, conditioned bigrams, constraint terms) per token. */
  readonly top?: number;
  /** Also break down these labels at every token, or each token's runner-up label. */
  readonly compare?: readonly string[] | "runner-up";
  readonly signal?: AbortSignal;
}

/**
 * Decodes one sentence with a {@link Tagger} (its decoder, constraints and slaves) and explains
 * the labelling: per token the state features, the transition and the start/end weights of its
 * label (they add up to the chain score), the margin to the runner-up label, and the constraint
 * multipliers λ that touched it (the terms −λ·a a dual-decomposition decoder added to the label's
 * score); per constraint its multiplier, penalty and violation.
 */
export function explainSentence(
  tagger: Tagger,
  sentence: Sentence,
  options: ExplainSentenceOptions = {},
): SentenceExplanation {
  return explainAttributes(tagger, tagger.attributes(sentence), sentence.tokens, options);
}

/** {@link explainSentence} of precomputed attributes (a model without a preset reads these). */
export function explainAttributes(
  tagger: Tagger,
  attributes: AttributeSequence,
  tokens: readonly string[],
  options: ExplainSentenceOptions = {},
): SentenceExplanation {
  const { model, lattice } = tagger;
  const tagged = tagger.tagAttributes(attributes, tokens, options.signal);
  const { decoding, constraints } = tagged;
  const labels = decoding.labels;
  // Constraints are over the lattice's states where the scheme has one (IOB1, IOE1): a token's
  // state depends on its neighbours' labels, so labellings are lifted whole.
  const L = lattice?.states.length ?? model.numLabels;
  const lift = (y: Int32Array): Int32Array => lattice?.lift(y) ?? y;
  const states = lift(labels);
  const chain = explainLabelling(model, attributes, labels, {
    ...(options.top === undefined ? {} : { top: options.top }),
    ...(options.compare === undefined ? {} : { compare: options.compare }),
    constraints: modelDecodingConstraints(model),
  });
  const multipliers = decoding.constraintStats?.multipliers ?? new Float64Array(0);
  const first = firstLabelsOf(decoding);
  const firstStates = lift(first);
  // Every term −λ·a, by (token·L + label): the labelling's, the unconstrained and compared labels'.
  const terms = new Map<number, ConstraintTerm[]>();
  const outcomes: ConstraintOutcome[] = [];
  let constant = 0;
  let penaltyPaid = 0;
  for (const [c, constraint] of constraints.entries()) {
    const lambda = multipliers[c] ?? 0;
    const name = constraint.name ?? `constraint ${c}`;
    const penalty = isHard(constraint) ? null : constraint.penalty!;
    let activity = 0;
    const { indices, coefficients } = constraint;
    for (let k = 0; k < indices.length; k++) {
      const index = indices[k]!;
      const i = Math.floor(index / L);
      if (states[i] === index - i * L) activity += coefficients[k]!;
      if (lambda === 0) continue;
      let list = terms.get(index);
      if (list === undefined) {
        list = [];
        terms.set(index, list);
      }
      list.push({
        name,
        multiplier: lambda,
        coefficient: coefficients[k]!,
        term: -lambda * coefficients[k]!,
        penalty,
      });
    }
    constant += lambda * constraint.rhs;
    const violation = constraintViolation(constraint, states, L);
    const violationBefore = constraintViolation(constraint, firstStates, L);
    const paid = penalty === null ? 0 : penalty * violation;
    penaltyPaid += paid;
    if (lambda !== 0 || violation > 0 || violationBefore > 0) {
      outcomes.push({
        name,
        multiplier: lambda,
        penalty,
        activity,
        rhs: constraint.rhs,
        violation,
        violationBefore,
        paid,
      });
    }
  }
  const strongest = (list: readonly ConstraintTerm[]) => {
    const sorted = [...list].sort((a, b) => Math.abs(b.term) - Math.abs(a.term));
    return options.top === undefined ? sorted : sorted.slice(0, options.top);
  };
  // The state a token takes with this label and the rest of the labelling unchanged.
  const termsAt = (i: number, label: string) => {
    const changed = labels.slice();
    changed[i] = model.labels.lookup(label);
    return strongest(terms.get(i * L + lift(changed)[i]!) ?? []);
  };
  let value = chain.score + constant;
  const perToken = chain.tokens.map((token, i): TokenExplanation => {
    const own = terms.get(i * L + states[i]!) ?? [];
    let sum = 0;
    for (const t of own) sum += t.term;
    value += sum;
    const unconstrained = model.labels.name(first[i]!);
    return {
      ...token,
      token: tokens[i] ?? "",
      constraintTerms: strongest(own),
      constraintTerm: sum,
      omittedTerms: options.top === undefined ? 0 : Math.max(0, own.length - options.top),
      unconstrained,
      unconstrainedTerms: first[i] === labels[i] ? [] : termsAt(i, unconstrained),
      comparedTerms: token.compared.map((c) => termsAt(i, c.label)),
    };
  });
  outcomes.sort((a, b) => b.multiplier - a.multiplier || b.violationBefore - a.violationBefore);
  return {
    tokens,
    // The user's labels (the output scheme); `perToken` breaks down the model's own.
    labels: tagged.labels,
    perToken,
    score: chain.score,
    constraints: outcomes,
    penaltyPaid,
    objective: chain.score - penaltyPaid,
    lagrangian: { constant, value },
    decoding: {
      status: decoding.status,
      certified: decoding.certified,
      iterations: decoding.iterations,
      primal: decoding.primal,
      dual: decoding.dual,
      gap: decoding.gap,
    },
  };
}
