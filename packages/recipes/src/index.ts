// The browser-safe part (the Decoder registry and the model helpers): one list, there.
export * from "./browser/index.js";
export { citationCorpora } from "./citations/corpus.js";
export { type CitationDemo, citationDemo } from "./citations/demo.js";
export {
  type CitationExperiment,
  type CitationExperimentOptions,
  type DecodedTest,
  decodeTest,
  errorReduction,
  experimentTagger,
  type FieldScores,
  prepareCitationExperiment,
  seededHalves,
} from "./citations/experiment.js";
export {
  type LearnedConstraints,
  learnConstraints,
  learnPenaltySet,
  scoreSentences,
  selectCandidates,
} from "./constraint-learning.js";
export {
  type CheckGain,
  checkCut,
  type FamilyOutcome,
  learnAndSelectConstraints,
  type SelectedConstraints,
} from "./constraint-selection.js";
export { continuedTraining } from "./continued-training.js";
export {
  DOCUMENT_JACKKNIFE_FOLDS,
  type DocumentConstraintsOptions,
  type DocumentConstraintsProgress,
  documentConstraintsFile,
  documentConstraintsLine,
  documentGroupsOf,
  learnDocumentConstraints,
  type SelectedDocumentConstraints,
  withDocumentConstraints,
} from "./document-constraints.js";
export {
  foldStopping,
  type RecordedTraining,
  recordedTraining,
} from "./document-constraints-retraining.js";
export type {
  ConstraintTerm,
  SentenceExplanation,
  TokenExplanation,
} from "./explain.js";
export { learnConsistency, prepareGeneralCrf, type TrainedGeneralCrf } from "./general-crf.js";
export {
  GENERAL_CRF_DEFAULTS,
  type GeneralCrf,
  GROUPING_KINDS,
  type GroupingKind,
  generalCrfOf,
  withGeneralCrf,
} from "./general-crf-settings.js";
export { type GeneralTagging, tagGeneral } from "./general-crf-tagging.js";
export { dependencyScores, heldOutTrees, scoreL2sParser, scoreL2sTagger } from "./l2s/held-out.js";
export {
  conlluSentences,
  L2S_PARSER_TASK,
  l2sParserOf,
  parseWithL2s,
  trainL2sParser,
} from "./l2s/parser.js";
export {
  L2S_TAGGER_TASK,
  type L2sTagger,
  l2sTaggerOf,
  type TrainedL2sTagger,
  type TrainL2sTaggerOptions,
  tagWithL2s,
  trainL2sTagger,
} from "./l2s/tagger.js";
export { cachedModel, cacheModel, modelCacheKey } from "./model-cache.js";
export {
  attributesOf,
  type GoldLabels,
  inputForModel,
  inputForPreset,
  modelFeatureSpec,
  modelInputColumns,
  modelPreset,
  sentenceAttributes,
  votesFromLabels,
  withDocumentInputs,
  withDocumentInputsSync,
} from "./model-input.js";
export { modelDecodingConstraints, modelScheme } from "./model-scheme.js";
export {
  checkPresetName,
  editDistance,
  getTaskPreset,
  isTaskPreset,
  nearestName,
  presetNames,
  unknownPresetError,
} from "./preset-names.js";
export { type MinedOnCorpus, mineRulesOnCorpus } from "./rule-mining.js";
export type { TaggedNBest, TaggingTime } from "./tagger.js";
export { type ChainTaggerOptions, chainTagger } from "./tagging/chain-tagger.js";
export {
  type ConfidenceRecord,
  type ConfidenceRequest,
  confidenceRecord,
  type LabellingConfidence,
  labellingConfidence,
  MARGINAL_THRESHOLD,
  type MarginalsSource,
  marginalMaps,
  marginalsSource,
  roundProbability,
} from "./tagging/confidence.js";
export { describeL2sTagger, l2sTaggerInput } from "./tagging/l2s-tagger.js";
export {
  NBEST_METHODS,
  type NBestEntry,
  type NBestMethod,
  type NBestOptions,
  type NBestResult,
  nbestMethodFor,
  nbestOf,
} from "./tagging/nbest.js";
export { type OracleF1, oracleChunkF1 } from "./tagging/nbest-oracle.js";
export { type OpenTaggerOptions, openTagger } from "./tagging/open-tagger.js";
export {
  type AttributeItem,
  DEFAULT_DECODERS,
  type DecodingStats,
  isTagFailure,
  type SequenceTagger,
  type TagFailure,
  type TaggedBatch,
  type TaggedSentence,
  type TaggerCapabilities,
  type TaggerKind,
  type TaggingSpec,
  type TagItem,
  type TagProgress,
  type TagRequest,
  type TagTime,
} from "./tagging/sequence-tagger.js";
export type { SpanProbability } from "./tagging/span-probability.js";
export {
  checkTextInput,
  type LabelsAndSpans,
  labelsAndSpans,
  type TaggedText,
  type TaggedTextSentence,
  type TextEntity,
  type TextRequest,
  tagText,
} from "./tagging/text.js";
export {
  type BuiltTaskModel,
  buildTaskModel,
  type ListedTaskModel,
  listTaskModels,
  modelsDir,
  type TaskModelPlan,
  type TaskModelProvenance,
  type TaskModelRequest,
  type TaskModelStatus,
  taskModelPlan,
} from "./task-models.js";
export { jackknifeFolds } from "./task-presets/mined-lexicons.js";
export { languageClusters } from "./task-presets/resources.js";
export type {
  ClusterLanguage,
  HeldOutRule,
  ResourceOptions,
  TaskParts,
  TaskPreset,
} from "./task-presets/task-presets.js";
export {
  type FeatureRequest,
  type TrainingFeatures,
  trainingFeatures,
} from "./task-presets/training-features.js";
export { type TuningCut, tuningCut } from "./task-presets/tuning-fold.js";
export { type DecoderTiming, median, type TimingOptions, timeTaggers } from "./timing.js";
export { checkTrainingSpec } from "./training/check-spec.js";
export { type DefinedFields, definedFields } from "./training/defined-fields.js";
export type { L2sTrainer } from "./training/l2s-trainer.js";
export {
  type GeneralTraining,
  openTrainer,
  stoppingText,
  type TrainedByTrainer,
  type Trainer,
  type TrainerInputs,
  type TuningStop,
} from "./training/open-trainer.js";
export {
  L2S_TASKS,
  type L2sTask,
  type L2sTrainingSpec,
  type TrainingSpec,
} from "./training/spec.js";
export {
  type TrainedOnCorpus,
  TrainingFailedError,
  type TrainOnCorpusOptions,
  trainOnCorpus,
} from "./training.js";
export { type BaseModel, type CachedTrainingOptions, trainOrLoadModel } from "./training-cache.js";
export type { CrfsuiteCorpus } from "./training-crfsuite.js";
export {
  checkExtractionMemory,
  checkFeatureMemory,
  type ExtractionEstimate,
  estimateExtraction,
  type TrainingMemoryBoundOptions,
  trainingMemoryBound,
} from "./training-memory.js";
export { objectiveIterations } from "./training-objective.js";
export { type TrainedTwoStage, TWO_STAGE_FOLDS, trainTwoStage } from "./two-stage/train.js";
export { computeVotes, majority } from "./two-stage/votes.js";
