export {
  type ChainScores,
  isPositionSpecific,
  scoreLabelling,
  transitionOffset,
  validateChainScores,
} from "./chain.ts";
export { chainSlave } from "./chain-slave.ts";
export {
  type ConstraintSpec,
  constraintActivity,
  constraintPenalty,
  constraintViolation,
  equalityConstraints,
  isHard,
  type LinearConstraint,
  linearConstraint,
  validateConstraint,
} from "./constraints.ts";
export { checkpoints, yieldToEventLoop } from "./cooperation.ts";
export { crc32 } from "./crc32.ts";
export {
  type ChainSlaveFactory,
  chainDecoder,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderContext,
  type DecoderDefinition,
  DecoderRegistry,
  dualDecompositionDecoder,
  RegistryError,
  type SentenceInstance,
  type SlaveDefinition,
  viterbiDefinition,
} from "./decoder.ts";
export {
  type ConstraintEffect,
  constraintEffects,
  type Decoding,
  type DecodingSummary,
  DecodingTally,
  exactDecoding,
  summarizeDecodings,
} from "./decoding.ts";
export type { SlaveBinding } from "./dual-decomposition/bindings.ts";
export type { ConstraintMode } from "./dual-decomposition/constraint-matrix.ts";
export {
  DualDecomposition,
  type DualDecompositionOptions,
  type DualDecompositionProblem,
  type DualDecompositionSolution,
  solveDualDecomposition,
} from "./dual-decomposition/master.ts";
export { STEP_RULE_KINDS, type StepRule } from "./dual-decomposition/step-rule.ts";
export {
  AbortError,
  LagrangeError,
  type LagrangeErrorCode,
  lagrangeErrorCode,
  ProblemValidationError,
  throwIfAborted,
} from "./errors.ts";
export {
  chainToFactorGraph,
  type Factor,
  type FactorGraph,
  factorGraph,
  factorScore,
  type PairwiseFactor,
  type PatternFactor,
  type PatternSpec,
  pairwiseFactor,
  patternFactor,
  scoreAssignment,
  type UnaryFactor,
  unaryFactor,
  validateFactorGraph,
} from "./factor-graph.ts";
export type { JsonValue } from "./json.ts";
export { LabelSet } from "./labels.ts";
export { definePlugin, installPlugin, type LagrangePlugin, type PluginHost } from "./plugin.ts";
export { createRandom, type Random, seededRandom, shuffleInPlace } from "./random.ts";
export {
  type ChainArgmax,
  type ChainMarginals,
  type ChainTables,
  chainArgmax,
  chainBackward,
  chainCount,
  chainForward,
  chainKBest,
  chainLogPartition,
  chainMarginals,
  chainTables,
  countSemiring,
  kBestSemiring,
  logAddExp,
  logSemiring,
  maxSemiring,
  type ScoredLabelling,
  type Semiring,
  transitionScore,
} from "./semiring.ts";
export {
  defineSlave,
  type IterationStats,
  type Slave,
  type SlaveResult,
  type SlaveSpec,
  type Solution,
  type SolutionStatus,
  type SolveOptions,
} from "./solver.ts";
