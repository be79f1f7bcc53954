/**
 * `@lagrange/core/dual-decomposition`: the parts of the two dual-decomposition steps that packages
 * building their own solvers and decoders need — the subgradient master and its step rules, the AD3
 * step over binary factors with its logic factors, the solve limits, and what the multipliers and
 * constraint phases of a decoding say. The main entry holds the contract (`solveDualDecomposition`,
 * `chainSlave`, `dualDecompositionDecoder`).
 */

export { constraintActivity, isHard } from "../constraints.js";
export type { DualDecompositionDecodeOptions, DualDecompositionDecoder } from "../decoder.js";
export {
  DUAL_DECOMPOSITION_OPTIONS,
  DUAL_DECOMPOSITION_STEPS,
  type DualDecompositionStep,
  TIME_LIMIT_OPTION,
} from "../decoder-options.js";
export type { ChainSlaveFactory } from "../decoder-types.js";
export {
  type ConstraintEffect,
  type ConstraintStats,
  constraintEffects,
  decodingMultipliers,
  firstLabelsOf,
} from "../decoding.js";
export {
  Deadline,
  deadlineOf,
  MAX_ITERATIONS,
  MAX_TIME_LIMIT_MS,
  type SolutionStatus,
  type SolveOptions,
} from "../solver.js";
export type {
  BinaryFactor,
  BinaryFactorBinding,
  BinaryProblem,
  FactorKernel,
} from "./ad3/binary-factor.js";
export { denseFactor, pairFactor } from "./ad3/dense-factors.js";
export {
  type Ad3Options,
  type BinarySolution,
  type CompiledBinaryProblem,
  compileBinaryProblem,
  solveBinaryProblem,
} from "./ad3/engine.js";
export {
  andOutFactor,
  atMostOneFactor,
  budgetFactor,
  implyFactor,
  knapsackFactor,
  type LinearConstraintFactor,
  type LinearConstraintOptions,
  linearConstraintFactor,
  orFactor,
  orOutFactor,
  xorFactor,
} from "./ad3/logic-factors.js";
export type { ConstraintMode } from "./constraint-matrix.js";
export type { LabellingSolution } from "./labelling-score.js";
export {
  DualDecomposition,
  type DualDecompositionOptions,
  type DualDecompositionProblem,
  type DualDecompositionSolution,
} from "./master.js";
export { STEP_RULE_KINDS, type StepRule } from "./step-rule.js";
