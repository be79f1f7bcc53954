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
export {
  type DualDecompositionOptions,
  type DualDecompositionProblem,
  type DualDecompositionSolution,
  dualDecompositionSolver,
  type SlaveBinding,
  type StepRule,
  solveDualDecomposition,
} from "./dual-decomposition.ts";
export { AbortError, ProblemValidationError, throwIfAborted } from "./errors.ts";
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
export { LabelSet } from "./labels.ts";
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
  type Solver,
} from "./solver.ts";
