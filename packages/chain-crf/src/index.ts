// Encoder contract (trainers ↔ models)

// Model files
// Core's bound on weights, re-exported here, where model files enforce it.
export { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core/chain";
export { ChainScorer } from "./chain-scorer.js";
// Model: dictionaries, compiled data, feature layout, encoder, high-level model
export { CrfEncoder, restoreEncoder } from "./crf-encoder.js";
export { CrfModel, type JsonValue, modelFromTraining } from "./crf-model.js";
export type {
  CrfDecodeOptions,
  CrfModelInit,
  KBestLabels,
  MarginalsResult,
  ModelRecord,
  ModelSummary,
  PruneOptions,
} from "./crf-model-types.js";
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
export type { Encoder, TrainingProgress } from "./encoder.js";
// Explanations: a labelling's score by token and feature, a model's strongest weights
export {
  explainLabelling,
  type ModelWeights,
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
  CITATION_LEXICONS,
  type ClusterResource,
  CONTEXT_KINDS,
  type CrfppTemplate,
  chunkingPreset,
  citationPreset,
  describeSpec,
  documentContextColumns,
  expandMacro,
  FeatureInputError,
  type FeatureSpec,
  featureExtractor,
  fromAttributeLists,
  getPreset,
  type LexiconResource,
  NO_VOTE,
  nerPreset,
  nerWordsPreset,
  type Preset,
  parseFeatureSpec,
  parseTemplate,
  posPreset,
  presets,
  TemplateSyntaxError,
  toAttributeLists,
  VOTE_KINDS,
} from "./features/index.js";
// Inference kernels over core ChainScores
export {
  forwardBackward,
  kBest,
  logPartition,
  sequenceLogProbability,
  tokenMarginals,
  viterbi,
} from "./inference/api.js";
export { InferenceContext } from "./inference/context.js";
// CRFsuite model files (interop)
export { crfsuiteModelFromBytes, crfsuiteModelToBytes } from "./interop/crfsuite/index.js";
export { type CompiledDataset, compileDataset, type LabelledSequence } from "./model/dataset.js";
export {
  AttributeFrequencyError,
  buildAttributeDictionary,
  NoStateAttributesError,
} from "./model/dictionary.js";
export { buildFeatureLayout, type FeatureLayout } from "./model/layout.js";
export { TrainingMemoryError, type TrainingMemoryEstimate } from "./model/memory.js";
export { weightOutOfRange } from "./model/weight-range.js";
export {
  firstStageModel,
  loadModelFromBytes,
  MODEL_FORMAT_VERSION,
  type ModelFileEncoding,
  ModelFileError,
  modelFileEncoding,
  modelToBytes,
  QUANTISATION_BLOCK_SIZE,
  type SaveOptions,
  type WeightPrecision,
} from "./model-file.js";
export { loadModel, saveModel } from "./model-file-node.js";
// Second-order chains (label trigrams): the exact decoder (the encoder is with the others)
export { secondOrderDecoder } from "./second-order-decoder.js";
export { CrfSlave, crfChainSlaves, crfSlave } from "./slave.js";
// Training
export {
  minimizeLbfgs,
  minimizeLbfgsSync,
  type RangeLossEncoder,
  STOP_REASON_TEXT,
  trainAveragedPerceptron,
  trainLbfgs,
  trainSgd,
} from "./train/index.js";
export { type CrfPassProfile, profileCrfPass } from "./train/profile.js";
// One-call training (attributes in, model out) for apps
export {
  iterationCap,
  TRAINING_ALGORITHMS,
  type TrainCrfOptions,
  type TrainCrfResult,
  type TrainingAlgorithm,
  type TrainingPreparation,
  trainCrf,
} from "./train-crf.js";
export {
  prepareTrainingData,
  type TrainingData,
  type TrainingDataOptions,
} from "./training-data.js";
