export {
  DEFAULT_PENALTY_LEARNING_RATE,
  type EpochStats,
  formatPenaltyReport,
  type LearnPenaltiesOptions,
  learnPenalties,
  lossAugmented,
  PENALTY_ALGORITHMS,
  type PenaltyAlgorithm,
  type PenaltyReport,
  penaltyReport,
} from "./penalty-learning.js";
export {
  constrainedObjective,
  hardDD,
  hardDDDefinition,
  hardDDPolicy,
  softDD,
  softDDDefinition,
  softDDMaster,
  softDDPolicy,
} from "./soft-dd.js";
