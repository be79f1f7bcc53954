import type { ConstraintTemplate, SegmentIndex } from "@lagrange/constraint-templates";
import type { RuleCostPolicy } from "./costs.js";

/** The five rule families of fersini2014 §3. */
export type RuleFamily =
  | "adjacency"
  | "precedence"
  | "state-change"
  | "begin-end"
  | "presence-precedence";

/** One training sentence: its tokens and its gold label ids (ids of `index.labels`). */
export interface RuleSentence {
  readonly tokens: readonly string[];
  readonly labels: ArrayLike<number>;
}

/**
 * The delimiters the state-change template is always tried with: the paper's examples are a
 * bracket (CoNLL-2003: "Dynamo Batumi ( Georgia )") and a comma (US50), plus the other common
 * separators of citations and addresses.
 */
export const DEFAULT_RULE_DELIMITERS: readonly string[] = [",", ".", ";", ":", "(", ")"];

/** What one instance of each family is (the unit support and violations count). */
export const RULE_COUNTING_UNITS: Readonly<Record<RuleFamily, string>> = {
  adjacency: "a position p < n−1 whose label is in A",
  precedence: "a position whose label is in A",
  "state-change": "an occurrence of the delimiter at 1 ≤ p ≤ n−2",
  "begin-end": "a sentence whose first label is in A",
  "presence-precedence": "a position p ≥ 1 whose label is in A",
};

/**
 * Defaults, and why:
 * - `minSupport` 5: a rule seen fewer times has a confidence that means little (5 of 5 satisfied
 *   still leaves a 95 % Wilson lower bound of 0.57); the costs' smoothing discounts small
 *   supports further.
 * - `minConfidence` 0.9: the rules become soft constraints that the gold labels themselves break
 *   in up to 1 − confidence of their instances; past 10 % a rule would cost correct outputs often.
 * - `minLift` 1: a rule whose premise makes its consequent *less* likely than it is anyway (at
 *   every instance position, premise or not) says nothing about the premise; rules implied by the
 *   data or the label scheme everywhere (lift exactly 1) are legitimate and kept.
 * - `smoothing` 1: Laplace.
 * - `cost` `paper`: the method's own Eq. (30), made sign-safe (see {@link RuleCostPolicy}).
 * - `delimiters` `auto`: {@link DEFAULT_RULE_DELIMITERS} plus every token made only of punctuation
 *   or symbol characters that occurs at least `minSupport` times inside a sentence (brackets,
 *   quotes, dashes, slashes, `&`, …): a rarer one cannot reach the support anyway, and a word
 *   token is not a delimiter in the paper's sense ("a given delimiter punctuation mark").
 * - `includeOutside` true: `O` takes part as A or B ("the token after ")" is O"); most rules a
 *   flat NER corpus supports involve it.
 */
export const RULE_MINING_DEFAULTS = {
  minSupport: 5,
  minConfidence: 0.9,
  minLift: 1,
  smoothing: 1,
  cost: "paper" as RuleCostPolicy,
  includeOutside: true,
} as const;

export interface RuleMiningProgress {
  /** Sentences counted so far. */
  readonly sentences: number;
  readonly total: number;
}

export interface MineRulesOptions {
  /** Rule families to mine (default all five, {@link RULE_FAMILIES}). */
  readonly families?: readonly RuleFamily[];
  /**
   * Delimiter tokens of the state-change template: a list, or `auto` (default; see
   * {@link RULE_MINING_DEFAULTS}).
   */
  readonly delimiters?: readonly string[] | "auto";
  /** Keep rules with at least this many firing instances (integer ≥ 1; default 5). */
  readonly minSupport?: number;
  /** Keep rules whose instances hold at least this often in the gold labels (0…1; default 0.9). */
  readonly minConfidence?: number;
  /** Keep rules with confidence / (the consequent's rate without the premise) ≥ this (default 1). */
  readonly minLift?: number;
  /** Cost policy for each kept rule (default `paper`). */
  readonly cost?: RuleCostPolicy;
  /** Laplace smoothing α > 0 of the costs (default 1). */
  readonly smoothing?: number;
  /** Rules may name `O`, tokens outside every segment (default true). */
  readonly includeOutside?: boolean;
  /** Restrict A and B to these segment keys (`O` is governed by `includeOutside`). */
  readonly segments?: readonly string[];
  readonly signal?: AbortSignal;
  /** Called every 64 sentences counted and once at the end. */
  readonly onProgress?: (progress: RuleMiningProgress) => void;
}

/** The settings a mining run used, with every default filled in. */
export interface RuleMiningSettings {
  readonly families: readonly RuleFamily[];
  readonly delimiters: readonly string[];
  /** Whether the delimiters were found in the data (`auto`) or given. */
  readonly delimiterSource: "auto" | "given";
  readonly minSupport: number;
  readonly minConfidence: number;
  readonly minLift: number;
  readonly cost: RuleCostPolicy;
  readonly smoothing: number;
  readonly includeOutside: boolean;
  /** The segment keys A and B range over. */
  readonly keys: readonly string[];
}

/** A rule that passed the thresholds, with its counts over the training data. */
export interface MinedRule extends MinedRuleStats {
  readonly template: ConstraintTemplate;
}

export interface RuleMining {
  readonly index: SegmentIndex;
  /** Most important first: by cost, then support, then lift, then id. */
  readonly rules: readonly MinedRule[];
  readonly settings: RuleMiningSettings;
  /** Candidate templates considered (families × ordered pairs A ≠ B × delimiters). */
  readonly candidates: number;
  /** Why the other candidates were dropped (each counted under its first failed test). */
  readonly dropped: {
    /** Support 0: the premise never fires in the data. */
    readonly neverFired: number;
    readonly belowSupport: number;
    readonly belowConfidence: number;
    readonly belowLift: number;
  };
  readonly sentences: number;
  readonly tokens: number;
}

/**
 * A mined rule's counts over the training data; the constraints file's metadata stores them per
 * rule (under `rules`, by id).
 */
export interface MinedRuleStats {
  /** Instances whose premise fires (see {@link RULE_COUNTING_UNITS}). */
  readonly support: number;
  /** Instances the gold labels violate (each counts once, however badly). */
  readonly violations: number;
  /** Σ `template.violation` over the sentences: the amount a penalty is paid on. */
  readonly violationMagnitude: number;
  /** 1 − violations / support. */
  readonly confidence: number;
  /** Confidence over the rate the consequent holds at every instance position, premise or not. */
  readonly lift: number;
  /** Under the run's cost policy; ≥ 0 and finite. */
  readonly cost: number;
}
