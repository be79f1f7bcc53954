export {
  type AllowedActions,
  LabelConstraintTracker,
  type LabelConstraintTrackerOptions,
  type LabelMask,
  type TrackedSentence,
  type TrackerFallback,
} from "./bridge/allowed-labels.ts";
export {
  type ConstrainedSentence,
  SequenceConstraints,
  type SequenceConstraintsOptions,
  type TemplateRule,
  weightedTemplates,
} from "./bridge/templates.ts";
export {
  type GreedyDecoderOptions,
  type GreedyDecoding,
  greedyDecoder,
  greedyDefinition,
} from "./decoders/greedy.ts";
export { HashedFeatures, hashCombine, hashString } from "./features/hashing.ts";
export {
  BASE_LEARNERS,
  type BaseLearnerOptions,
  type CostSensitiveLearner,
  createLearner,
  type LearnerState,
  learnerFromState,
} from "./learner/base-learner.ts";
export {
  CostSensitiveRegressor,
  type RegressorOptions,
  type RegressorState,
} from "./learner/cost-sensitive.ts";
export {
  CostSensitivePerceptron,
  type PerceptronOptions,
  type PerceptronState,
} from "./learner/perceptron.ts";
export {
  isL2sModelFile,
  L2S_MODEL_VERSION,
  type L2sModel,
  L2sModelFileError,
  l2sModelFromBytes,
  l2sModelToBytes,
  loadL2sModel,
  saveL2sModel,
} from "./model/model-file.ts";
export {
  SearchPredictor,
  type SearchProgress,
  SearchTaskError,
  type SearchTrainingOptions,
  type SearchTrainingResult,
  trainSearch,
} from "./search/engine.ts";
export { LearnedPolicy } from "./search/policy.ts";
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
} from "./search/types.ts";
export {
  type EntityRelationExample,
  type EntityRelationOptions,
  type EntityRelationOutput,
  entityRelation,
} from "./tasks/entity-relation.ts";
export {
  ArcHybridState,
  REDUCE_LEFT,
  REDUCE_RIGHT,
  ROOT,
  SHIFT,
  TRANSITION_NAMES,
  type Transition,
} from "./tasks/parser/arc-hybrid.ts";
export {
  type ConlluParseOptions,
  parseExamplesFromConllu,
  withParse,
} from "./tasks/parser/conllu.ts";
export {
  DynamicOracle,
  GoldTree,
  isProjectiveTree,
  type OracleMethod,
  staticOracle,
} from "./tasks/parser/oracle.ts";
export {
  type ArcHybridParserOptions,
  arcHybridParser,
  type ParseExample,
  type ParseOutput,
  relationsOf,
} from "./tasks/parser/parser-task.ts";
export {
  hashTokenAttributes,
  type LabelGuide,
  type LabellingExample,
  type SequenceLabellingOptions,
  SequenceScores,
  sequenceLabelling,
  type TokenFeatures,
} from "./tasks/sequence-labelling.ts";
export {
  type DetectionItem,
  type SequentialDetectionOptions,
  sequentialDetection,
} from "./tasks/sequential-detection.ts";
