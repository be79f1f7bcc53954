export {
  type ChainScores,
  isPositionSpecific,
  scoreLabelling,
  transitionOffset,
  validateChainScores,
} from "./chain.ts";
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
export { AbortError, ProblemValidationError, throwIfAborted } from "./errors.ts";
export { LabelSet } from "./labels.ts";
export {
  defineSlave,
  type IterationStats,
  type Slave,
  type SlaveResult,
  type SlaveSpec,
  type Solution,
  type SolutionStatus,
  type SolveOptions,
  type Solver,
} from "./solver.ts";
