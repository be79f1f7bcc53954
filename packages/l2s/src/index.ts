export {
  type AllowedActions,
  LabelConstraintTracker,
  type LabelConstraintTrackerOptions,
  type LabelMask,
  type TrackedSentence,
  type TrackerFallback,
} from "./bridge/allowed-labels.js";
export {
  type ConstrainedSentence,
  SequenceConstraints,
  type SequenceConstraintsOptions,
  type TemplateRule,
  weightedTemplates,
} from "./bridge/templates.js";
export {
  type GreedyDecoderOptions,
  type GreedyDecoding,
  greedyDecoder,
  greedyDefinition,
} from "./decoders/greedy.js";
export { HashedFeatures, hashCombine, hashString } from "./features/hashing.js";
export {
  BASE_LEARNERS,
  type BaseLearnerOptions,
  type CostSensitiveLearner,
  createLearner,
  type LearnerState,
  learnerFromState,
  learnerTrainingBytes,
} from "./learner/base-learner.js";
export {
  CostSensitiveRegressor,
  REGRESSOR_DEFAULTS,
  type RegressorOptions,
  type RegressorState,
} from "./learner/cost-sensitive.js";
export {
  CostSensitivePerceptron,
  type CostSensitivePerceptronOptions,
  PERCEPTRON_DEFAULTS,
  type PerceptronState,
} from "./learner/perceptron.js";
export {
  isL2sModelFile,
  L2S_MODEL_VERSION,
  type L2sModel,
  L2sModelFileError,
  l2sModelFromBytes,
  l2sModelToBytes,
  loadL2sModel,
  saveL2sModel,
} from "./model/model-file.js";
export {
  SearchPredictor,
  type SearchProgress,
  SearchTaskError,
  type SearchTrainingOptions,
  type SearchTrainingResult,
  trainSearch,
} from "./search/engine.js";
export { LearnedPolicy } from "./search/policy.js";
export {
  type ActionSpace,
  type FeatureSink,
  type Features,
  type PredictRequest,
  ROLL_INS,
  ROLL_OUTS,
  type RollIn,
  type RollOut,
  type Search,
  type SearchTask,
} from "./search/types.js";
export {
  type EntityRelationExample,
  type EntityRelationOptions,
  type EntityRelationOutput,
  entityRelation,
} from "./tasks/entity-relation.js";
export {
  ArcHybridState,
  REDUCE_LEFT,
  REDUCE_RIGHT,
  ROOT,
  SHIFT,
  TRANSITION_NAMES,
  type Transition,
} from "./tasks/parser/arc-hybrid.js";
export {
  type ConlluParseOptions,
  parseExamplesFromConllu,
  withParse,
} from "./tasks/parser/conllu.js";
export {
  DynamicOracle,
  GoldTree,
  isProjectiveTree,
  type OracleMethod,
  staticOracle,
} from "./tasks/parser/oracle.js";
export {
  type ArcHybridParserOptions,
  arcHybridParser,
  type ParseExample,
  type ParseOutput,
  relationsOf,
} from "./tasks/parser/parser-task.js";
export {
  hashTokenAttributes,
  type LabelGuide,
  type LabellingExample,
  type SequenceLabellingOptions,
  SequenceScores,
  sequenceLabelling,
  type TokenFeatures,
} from "./tasks/sequence-labelling.js";
export {
  type DetectionItem,
  type SequentialDetectionOptions,
  sequentialDetection,
} from "./tasks/sequential-detection.js";
