/**
 * `@lagrange/core/chain`: the chain dynamic programs (the semiring recursion's reference
 * implementation: Viterbi, log-partition, marginals, k-best, counts), the chain layout helpers the
 * kernels of other packages share (chains laid end to end included), and label restrictions
 * built and applied to chain scores.
 */
export {
  isPositionSpecific,
  MAX_WEIGHT_MAGNITUDE,
  transitionOffset,
} from "../chain.js";
export { concatenateChains } from "../chain-concatenate.js";
export { FREE_LABEL, fixedLabelsRestriction, restrictScores } from "../restriction.js";
export {
  type ChainArgmax,
  type ChainMarginals,
  chainArgmax,
  chainCount,
  chainKBest,
  chainLogPartition,
  chainMarginals,
  type ScoredLabelling,
} from "../semiring.js";
