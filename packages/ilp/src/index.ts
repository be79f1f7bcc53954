export { softPenalty } from "./chain-ilp.js";
export {
  DEFAULT_TAU,
  DEFAULT_TIME_LIMIT_SECONDS,
  exactDefinition,
  exactIlpDecoder,
  ILP_OPTION_RANGES,
  type IlpDecodeOptions,
  type IlpDecoding,
  isIlpDecoding,
  MAX_TIME_LIMIT_SECONDS,
  MIN_TIME_LIMIT_SECONDS,
  twoPhaseDefinition,
  twoPhaseIlpDecoder,
} from "./decoders.js";
export { FactorGraphIlp } from "./factor-graph-ilp.js";
export { prepareIlp } from "./prepare.js";
export {
  type MineRulesOptions,
  minedRuleStats,
  minedRulesFile,
  mineRules,
  RULE_COST_POLICIES,
  RULE_MINING_DEFAULTS,
  type RuleCostPolicy,
  type RuleFamily,
  type RuleMining,
  type RuleSentence,
} from "./rules/mining.js";
