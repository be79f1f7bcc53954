// Encoder contract (trainers ↔ models)

// Model files
// Core's bound on weights, re-exported here, where model files enforce it.
export { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core";
export { ChainScorer } from "./chain-scorer.js";
// Model: dictionaries, compiled data, feature layout, encoder, high-level model
export {
  CrfEncoder,
  type CrfEncoderDescriptor,
  type InstanceRange,
  restoreEncoder,
} from "./crf-encoder.js";
export {
  type CrfDecodeOptions,
  CrfModel,
  type CrfModelInit,
  type JsonValue,
  type KBestLabels,
  type MarginalsResult,
  type ModelSummary,
  modelFromTraining,
  prepareTrainingData,
  type TrainingData,
  type TrainingDataOptions,
} from "./crf-model.js";
export {
  type ClassWeights,
  isClassWeight,
  MAX_CLASS_WEIGHT,
  resolveClassWeights,
} from "./encoder/class-weights.js";
export {
  type ChainGradient,
  type ChainInput,
  emptyChainInput,
  type ObjectiveSource,
  type SequenceObjective,
} from "./encoder/objective.js";
export { SecondOrderEncoder } from "./encoder/second-order.js";
export type { Encoder, TrainingProgress } from "./encoder.js";
// Explanations: a labelling's score by token and feature, a model's strongest weights
export {
  type ExplainOptions,
  explainLabelling,
  type FeatureContribution,
  type LabellingScore,
  type LabelScore,
  type LabelWeight,
  type LabelWeights,
  type ModelWeights,
  maxMarginalsOf,
  type Omitted,
  strongestWeights,
  type TokenScore,
} from "./explain.js";
// Features: attribute extraction (CRF++ templates, CRFsuite attribute input, presets)
export {
  type Attribute,
  type AttributeList,
  type AttributeSequence,
  AttributeSequenceBuilder,
  type AttributeSink,
  attributeNames,
  CHUNKING_TEMPLATES,
  type ChunkingOptions,
  CITATION_LEXICONS,
  type CitationOptions,
  type ClusterResource,
  CRFPP_MAX_CONTEXT,
  type CrfppTemplate,
  chunkingPreset,
  citationPreset,
  clusterFeatures,
  DEFAULT_CLUSTER_PREFIXES,
  denseAttributeName,
  describeSpec,
  expandMacro,
  FeatureInputError,
  type FeatureSpec,
  type FieldTemplate,
  featureExtractor,
  fromAttributeLists,
  getPreset,
  type LexiconFeatureOptions,
  type LexiconResource,
  lexiconFeatures,
  MAX_DENSE_VALUE,
  NER_COLUMNS,
  type NerOptions,
  NO_VOTE,
  nerPreset,
  type Preset,
  type PresetName,
  parseFeatureSpec,
  parseTemplate,
  posPreset,
  presets,
  type Rows,
  type TemplateLine,
  type TemplateOptions,
  TemplateSyntaxError,
  type TokenRow,
  toAttributeLists,
  VOTE_KINDS,
  type VoteKind,
  voteFeatures,
  withDenseColumns,
} from "./features/index.js";
// Inference kernels over core ChainScores
export {
  type ChainInferenceOptions,
  type ForwardBackwardResult,
  forwardBackward,
  type KBestResult,
  kBest,
  logPartition,
  sequenceLogProbability,
  tokenMarginals,
  type ViterbiResult,
  viterbi,
} from "./inference/api.js";
export { InferenceContext, type InferenceContextOptions } from "./inference/context.js";
// CRFsuite model files (interop)
export {
  CrfsuiteExportError,
  type CrfsuiteExportOptions,
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
} from "./interop/crfsuite/index.js";
export {
  type CompiledAttributes,
  type CompiledDataset,
  type CompileOptions,
  compileDataset,
  type LabelledSequence,
  type LabelSets,
} from "./model/dataset.js";
export {
  AttributeFrequencyError,
  buildAttributeDictionary,
  NoStateAttributesError,
} from "./model/dictionary.js";
export { buildFeatureLayout, type FeatureLayout, type LayoutOptions } from "./model/layout.js";
export {
  estimateTrainingMemory,
  TrainingMemoryError,
  type TrainingMemoryEstimate,
  type TrainingMemoryOptions,
} from "./model/memory.js";
export { type InitialModel, type WarmStart, warmStart } from "./model/warm-start.js";
export { type WeightOutOfRange, weightOutOfRange } from "./model/weight-range.js";
export {
  firstStageModel,
  loadModelFromBytes,
  MODEL_FORMAT_VERSION,
  ModelFileError,
  modelToBytes,
  type SaveOptions,
  type WeightPrecision,
} from "./model-file.js";
export { loadModel, saveModel } from "./model-file-node.js";
// Second-order chains (label trigrams): the exact decoder (the encoder is with the others)
export { secondOrderDecoder } from "./second-order-decoder.js";
export { CrfSlave, type CrfSlaveOptions, crfChainSlaves, crfSlave } from "./slave.js";
// Training
export {
  type AsyncObjective,
  type EncoderWorkerSource,
  type HeldOutOptions,
  type HeldOutScore,
  type LbfgsIteration,
  type LbfgsOptions,
  type LbfgsResult,
  type LbfgsStatus,
  type LbfgsTrainerOptions,
  type LbfgsTrainResult,
  type LineSearch,
  minimizeLbfgs,
  minimizeLbfgsSync,
  type Objective,
  type ObjectivePool,
  type ObjectivePoolOptions,
  openObjectivePool,
  type PerceptronOptions,
  type RangeLossEncoder,
  type ScaledWeightsEncoder,
  type SgdCalibration,
  type SgdOptions,
  type SgdResult,
  type ShardableEncoder,
  STOP_REASON_TEXT,
  type StopReason,
  type TrainerOptions,
  type TrainResult,
  trainAveragedPerceptron,
  trainLbfgs,
  trainSgd,
} from "./train/index.js";
export {
  type CrfPassPhase,
  type CrfPassProfile,
  type ProfileCrfPassOptions,
  profileCrfPass,
} from "./train/profile.js";
// One-call training (attributes in, model out) for apps
export {
  iterationCap,
  type LabelScorer,
  TRAINING_ALGORITHMS,
  type TrainCrfOptions,
  type TrainCrfResult,
  type TrainingAlgorithm,
  type TrainingPreparation,
  trainCrf,
} from "./train-crf.js";
