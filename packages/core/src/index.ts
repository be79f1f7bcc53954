export { BYTE_SIZE_UNITS, formatByteSize, parseByteSize } from "./byte-size.js";
export {
  type ChainScores,
  isPositionSpecific,
  MAX_WEIGHT_MAGNITUDE,
  scoreLabelling,
  type TransitionMask,
  transitionOffset,
  validateChainScores,
} from "./chain.js";
export { chainSlave } from "./chain-slave.js";
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
} from "./constraints.js";
export { type Checkpoints, checkpoints, yieldToEventLoop } from "./cooperation.js";
export { crc32 } from "./crc32.js";
export {
  type ChainSlaveFactory,
  chainDecoder,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderContext,
  type DecoderDefinition,
  DecoderRegistry,
  type DualDecompositionDecodeOptions,
  type DualDecompositionDecoder,
  dualDecompositionDecoder,
  RegistryError,
  type SentenceInstance,
  type SlaveDefinition,
  viterbiDefinition,
} from "./decoder.js";
export {
  type DecoderOptionSpec,
  type DecoderOptionValue,
  DUAL_DECOMPOSITION_OPTIONS,
  describeDecoderOptions,
  ETA_OPTION,
  EXACT_OPTION,
  MAX_ITERATIONS_OPTION,
  parseDecoderOption,
  resolveDecoderOptions,
  STEP_OPTION,
  TIME_LIMIT_OPTION,
  TOLERANCE_OPTION,
} from "./decoder-options.js";
export {
  type ConstraintEffect,
  type ConstraintStats,
  constraintEffects,
  type Decoding,
  type DecodingSummary,
  DecodingTally,
  decodingMultipliers,
  exactDecoding,
  firstLabelsOf,
  summarizeDecodings,
} from "./decoding.js";
export type {
  BinaryFactor,
  BinaryFactorBinding,
  BinaryProblem,
} from "./dual-decomposition/ad3/binary-factor.js";
export {
  type Ad3Options,
  type BinarySolution,
  solveBinaryProblem,
} from "./dual-decomposition/ad3/engine.js";
export {
  type FactorGraphCounts,
  type FactorGraphFile,
  FactorGraphFormatError,
  type FileBinaryVariable,
  type FileMultiVariable,
} from "./dual-decomposition/ad3/formats/factor-graph-file.js";
export { parseAd3FactorGraph } from "./dual-decomposition/ad3/formats/fg.js";
export { parseUaiFactorGraph, UAI_LOG_ZERO } from "./dual-decomposition/ad3/formats/uai.js";
export {
  andOutFactor,
  atMostOneFactor,
  budgetFactor,
  denseFactor,
  implyFactor,
  knapsackFactor,
  type LinearConstraintFactor,
  type LinearConstraintOptions,
  linearConstraintFactor,
  orFactor,
  orOutFactor,
  pairFactor,
  xorFactor,
} from "./dual-decomposition/ad3/logic-factors.js";
export type { SlaveBinding } from "./dual-decomposition/bindings.js";
export type { ConstraintMode } from "./dual-decomposition/constraint-matrix.js";
export {
  DUAL_DECOMPOSITION_STEPS,
  DualDecomposition,
  type DualDecompositionOptions,
  type DualDecompositionProblem,
  type DualDecompositionSolution,
  type DualDecompositionStep,
  solveDualDecomposition,
} from "./dual-decomposition/master.js";
export { STEP_RULE_KINDS, type StepRule } from "./dual-decomposition/step-rule.js";
export {
  AbortError,
  isAbortError,
  LagrangeError,
  type LagrangeErrorCode,
  lagrangeErrorCode,
  ProblemValidationError,
  throwIfAborted,
  wrapReadFailure,
} from "./errors.js";
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
} from "./factor-graph.js";
export type { JsonValue } from "./json.js";
export { LabelSet } from "./labels.js";
export { definePlugin, installPlugin, type LagrangePlugin, type PluginHost } from "./plugin.js";
export { createRandom, type Random, seededRandom, shuffleInPlace } from "./random.js";
export { isSecretParameterName, redactSecrets, redactUrl } from "./redact.js";
export {
  FREE_LABEL,
  fixedLabelsRestriction,
  type LabelRestriction,
  meetsRestriction,
  restrictProblem,
  restrictScores,
} from "./restriction.js";
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
} from "./semiring.js";
export {
  Deadline,
  deadlineOf,
  defineSlave,
  type IterationStats,
  MAX_ITERATIONS,
  MAX_TIME_LIMIT_MS,
  type Slave,
  type SlaveResult,
  type SlaveSpec,
  type Solution,
  type SolutionStatus,
  type SolveOptions,
} from "./solver.js";
