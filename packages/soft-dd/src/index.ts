export {
  type BatchSummary,
  type DecodeAllOptions,
  decodeAll,
  summarizeSolutions,
} from "./batch.ts";
export { type ConstraintEffect, constraintEffects } from "./explain.ts";
export {
  type EpochStats,
  formatPenaltyReport,
  type LearnedPenalties,
  type LearnPenaltiesOptions,
  learnPenalties,
  lossAugmented,
  type PenaltyAlgorithm,
  type PenaltyExample,
  type PenaltyInstance,
  type PenaltyReport,
  type PenaltyReportEntry,
  type PenaltyTemplate,
  penaltyReport,
} from "./penalty-learning.ts";
export {
  type ConstrainedProblem,
  constrainedObjective,
  hardDD,
  type SoftDDOptions,
  type SoftDDSolution,
  type SoftDDSolveOptions,
  type SoftDDSolver,
  type SoftDDStats,
  type StepSizeRule,
  softDD,
} from "./soft-dd.ts";
