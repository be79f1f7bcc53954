import { ProblemValidationError } from "@lagrange/core";

/**
 * How a mined rule's counts become its violation cost (the penalty a decoder pays per unit of
 * violation). Every policy is Laplace-smoothed (α added to the satisfied and the violated count),
 * finite and ≥ 0, and never decreases as the rule's confidence grows at a fixed support:
 *
 * - `paper`: fersini2014 Eq. (30), c_l = log(|D(l)| / (|D(l)| + |D̄(l)|)), the log of the rule's
 *   empirical satisfaction rate. As printed it is ≤ 0, and minimising Σ c_h σ_h with negative
 *   costs would reward violations, so it is made sign-safe by measuring it from the mining bar:
 *   c = max(0, log conf_α − log r) + ε with conf_α = (s + α)/(N + 2α) and r = minConfidence
 *   (clamped to [½, 1)). Differences between rules are those of Eq. (30) exactly; a rule at the
 *   bar costs about ε. Small numbers (a perfect rule costs at most −log r ≈ 0.105 at r = 0.9):
 *   fit for fersini's two-phase ILP, where only their ratios matter, too small to move Soft-DD.
 * - `violation-rate`: −log((v + α)/(N + 2α)), the surprise of a violation. Grows with support as
 *   well as confidence (a rule never violated in 10,000 instances costs ≈ 9.2, in 10 ≈ 2.5).
 * - `log-odds`: max(0, log((s + α)/(v + α))), the smoothed odds that an instance holds. On the
 *   scale of CRF log-potentials, the policy to use with Soft-DD.
 *
 * N is the support, v the violated instances, s = N − v the satisfied ones.
 */
export type RuleCostPolicy = "paper" | "violation-rate" | "log-odds";

export const RULE_COST_POLICIES: readonly RuleCostPolicy[] = [
  "paper",
  "violation-rate",
  "log-odds",
];

/** ε of the `paper` policy: the cost of a rule whose smoothed confidence is at or below the bar. */
export const PAPER_COST_FLOOR = 1e-3;

/** A rule's instance counts over the training data. */
export interface RuleCounts {
  /** Instances whose premise fires. */
  readonly support: number;
  /** Of those, the instances the gold labels violate. */
  readonly violations: number;
}

export interface RuleCostOptions {
  /** Laplace smoothing α > 0 (default 1). */
  readonly smoothing?: number;
  /** The `paper` policy's reference confidence (default 0.9, the miner's default bar). */
  readonly minConfidence?: number;
}

/** The Laplace-smoothed satisfaction rate (s + α)/(N + 2α), strictly inside (0, 1). */
export function smoothedConfidence(counts: RuleCounts, smoothing = 1): number {
  checkCounts(counts);
  checkSmoothing(smoothing);
  const { support, violations } = counts;
  return (support - violations + smoothing) / (support + 2 * smoothing);
}

/** The cost of a rule under `policy` (see {@link RuleCostPolicy}); finite and ≥ 0. */
export function ruleCost(
  policy: RuleCostPolicy,
  counts: RuleCounts,
  options: RuleCostOptions = {},
): number {
  const alpha = options.smoothing ?? 1;
  checkCounts(counts);
  checkSmoothing(alpha);
  const { support, violations } = counts;
  const satisfied = support - violations;
  switch (policy) {
    case "paper": {
      const bar = options.minConfidence ?? 0.9;
      if (!(bar >= 0 && bar <= 1)) {
        throw new ProblemValidationError("ruleCost minConfidence", `expected 0…1, got ${bar}`);
      }
      const reference = Math.min(Math.max(bar, 0.5), 1 - 1e-12);
      const rate = (satisfied + alpha) / (support + 2 * alpha);
      return Math.max(0, Math.log(rate) - Math.log(reference)) + PAPER_COST_FLOOR;
    }
    case "violation-rate":
      // (v + α) ≤ (N + 2α), so the logarithm is ≤ 0 and the cost ≥ 0; α > 0 keeps it finite.
      return -Math.log((violations + alpha) / (support + 2 * alpha));
    case "log-odds":
      return Math.max(0, Math.log((satisfied + alpha) / (violations + alpha)));
    default:
      throw new ProblemValidationError(
        "ruleCost policy",
        `unknown cost policy ${JSON.stringify(policy)}; expected one of ${RULE_COST_POLICIES.join(", ")}`,
      );
  }
}

function checkCounts({ support, violations }: RuleCounts): void {
  if (
    !Number.isSafeInteger(support) ||
    !Number.isSafeInteger(violations) ||
    violations < 0 ||
    violations > support
  ) {
    throw new ProblemValidationError(
      "rule counts",
      `expected integers 0 ≤ violations ≤ support, got support ${support}, violations ${violations}`,
    );
  }
}

function checkSmoothing(alpha: number): void {
  if (!(Number.isFinite(alpha) && alpha > 0)) {
    throw new ProblemValidationError(
      "smoothing",
      `expected a finite α > 0 (α = 0 would give infinite costs), got ${alpha}`,
    );
  }
}
