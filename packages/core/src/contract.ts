/**
 * The contract `@lagrange/core`'s main entry exports, less the plug-in functions (which hand this
 * module, as the core a plug-in sees, to plug-ins: see plugin.ts). index.ts adds them back.
 */
export {
  type ChainScores,
  scoreLabelling,
  type TransitionMask,
  validateChainScores,
} from "./chain.js";
export { chainSlave } from "./chain-slave.js";
export {
  constraintPenalty,
  constraintViolation,
  type LinearConstraint,
  linearConstraint,
  validateConstraint,
} from "./constraints.js";
export { type Checkpoints, checkpoints, yieldToEventLoop } from "./cooperation.js";
export {
  chainDecoder,
  DecoderRegistry,
  dualDecompositionDecoder,
  viterbiDefinition,
} from "./decoder.js";
export {
  checkOptionBounds,
  type DecoderOptionSpec,
  type DecoderOptionValue,
  type OptionBounds,
  resolveDecoderOptions,
} from "./decoder-options.js";
export type {
  DecodeOptions,
  DecodeProblem,
  Decoder,
  DecoderDefinition,
  SlaveDefinition,
} from "./decoder-types.js";
export {
  type Decoding,
  type DecodingSummary,
  DecodingTally,
  exactDecoding,
  summarizeDecodings,
} from "./decoding.js";
export type { SlaveBinding } from "./dual-decomposition/bindings.js";
export { solveDualDecomposition } from "./dual-decomposition/master.js";
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
export type { JsonValue } from "./json.js";
export { LabelSet } from "./labels.js";
export { createRandom, type Random, seededRandom, shuffleInPlace } from "./random.js";
export { type LabelRestriction, meetsRestriction, restrictProblem } from "./restriction.js";
export {
  defineSlave,
  type IterationStats,
  type Slave,
  type SlaveResult,
  type Solution,
} from "./solver.js";
