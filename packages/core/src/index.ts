/**
 * `@lagrange/core`: the contract every package and app speaks — chain problems and linear
 * constraints over the indicator vector, the slave contract, decoders and their registry, declared
 * decoder options, decodings, label restrictions, plug-ins, errors, the seeded generator and
 * cooperative yielding. The parts that only solver packages need sit in subpath entries:
 * `./dual-decomposition` (the master's parts, AD3, solve limits), `./chain` (the chain dynamic
 * programs, restrictions of chain scores), `./factor-graph`, `./bytes`; `./node`, `./wasm` and `./testing` as before.
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
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  DecoderRegistry,
  dualDecompositionDecoder,
  type SlaveDefinition,
  viterbiDefinition,
} from "./decoder.js";
export {
  checkOptionBounds,
  type DecoderOptionSpec,
  type DecoderOptionValue,
  type OptionBounds,
  resolveDecoderOptions,
} from "./decoder-options.js";
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
export { definePlugin, installPlugin, type LagrangePlugin, type PluginHost } from "./plugin.js";
export { createRandom, type Random, seededRandom, shuffleInPlace } from "./random.js";
export { type LabelRestriction, meetsRestriction, restrictProblem } from "./restriction.js";
export {
  defineSlave,
  type IterationStats,
  type Slave,
  type SlaveResult,
  type Solution,
} from "./solver.js";
