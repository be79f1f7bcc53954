export { softPenalty } from "./chain-ilp.js";
export {
  exactDefinition,
  exactIlpDecoder,
  twoPhaseDefinition,
  twoPhaseIlpDecoder,
} from "./decoders.js";
export { FactorGraphIlp } from "./factor-graph-ilp.js";
export {
  DEFAULT_TAU,
  DEFAULT_TIME_LIMIT_SECONDS,
  ILP_OPTION_RANGES,
  type IlpDecodeOptions,
  type IlpDecoding,
  isIlpDecoding,
  MAX_TIME_LIMIT_SECONDS,
  MIN_TIME_LIMIT_SECONDS,
} from "./ilp-decoding.js";
export { prepareIlp } from "./prepare.js";
export { minedRuleStats, minedRulesFile } from "./rules/mined-rules-file.js";
export { mineRules, RULE_COST_POLICIES, type RuleCostPolicy } from "./rules/mining.js";
export {
  type MineRulesOptions,
  RULE_MINING_DEFAULTS,
  type RuleFamily,
  type RuleMining,
  type RuleSentence,
} from "./rules/mining-options.js";
