export { LabelConstraintTracker } from "./bridge/allowed-labels.js";
export { SequenceConstraints } from "./bridge/templates.js";
export { greedyDefinition } from "./decoders/greedy.js";
export { HashedFeatures } from "./features/hashing.js";
export {
  BASE_LEARNERS,
  type BaseLearnerOptions,
  createLearner,
  learnerTrainingBytes,
} from "./learner/base-learner.js";
export { REGRESSOR_DEFAULTS } from "./learner/cost-sensitive.js";
export { PERCEPTRON_DEFAULTS } from "./learner/perceptron.js";
export {
  isL2sModelFile,
  type L2sModel,
  l2sModelFromBytes,
  l2sModelToBytes,
} from "./model/model-file.js";
export {
  SearchPredictor,
  type SearchProgress,
  type SearchTrainingResult,
  trainSearch,
} from "./search/engine.js";
export { LearnedPolicy } from "./search/policy.js";
export {
  type Features,
  ROLL_INS,
  ROLL_OUTS,
  type RollIn,
  type RollOut,
  type Search,
  type SearchTask,
} from "./search/types.js";
export { entityRelation } from "./tasks/entity-relation.js";
export type { Transition } from "./tasks/parser/arc-hybrid.js";
export { parseExamplesFromConllu, withParse } from "./tasks/parser/conllu.js";
export {
  type ArcHybridParserOptions,
  arcHybridParser,
  type ParseExample,
  relationsOf,
} from "./tasks/parser/parser-task.js";
export {
  hashTokenAttributes,
  type LabelGuide,
  type LabellingExample,
  SequenceScores,
  sequenceLabelling,
} from "./tasks/sequence-labelling.js";
export { sequentialDetection } from "./tasks/sequential-detection.js";
