export {
  ChainIlp,
  type ChainIlpResult,
  type ChainObjective,
  type ConstraintSubsets,
  type IlpOptions,
  type IlpStatus,
  type SoftPenaltyForm,
  softPenalty,
} from "./chain-ilp.js";
export { type MaxMarginals, maxMarginals } from "./chain-tables.js";
export {
  exactDefinition,
  exactIlpDecoder,
  ILP_OPTION_RANGES,
  type IlpDecodeOptions,
  type IlpDecoder,
  type IlpDecoding,
  isIlpDecoding,
  twoPhaseDefinition,
  twoPhaseIlpDecoder,
} from "./decoders.js";
export { FactorGraphIlp, type FactorGraphIlpResult } from "./factor-graph-ilp.js";
export { prepareIlp } from "./prepare.js";
export {
  DEFAULT_RULE_DELIMITERS,
  type MinedRule,
  type MinedRuleStats,
  type MinedRulesFileOptions,
  type MineRulesOptions,
  minedRuleStats,
  minedRulesFile,
  mineRules,
  PAPER_COST_FLOOR,
  RULE_COST_POLICIES,
  RULE_COUNTING_UNITS,
  RULE_MINING_DEFAULTS,
  type RuleCostOptions,
  type RuleCostPolicy,
  type RuleCounts,
  type RuleFamily,
  type RuleMining,
  type RuleMiningProgress,
  type RuleMiningSettings,
  type RuleSentence,
  ruleCost,
  smoothedConfidence,
} from "./rules/mining.js";
