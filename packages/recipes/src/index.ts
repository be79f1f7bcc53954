// The browser-safe part (the Decoder registry, the Tagger and its model helpers): one list, there.
export * from "./browser/index.js";
export {
  type CitationCorpora,
  type CitationCorporaOptions,
  citationCorpora,
} from "./citations/corpus.js";
export {
  type ChangedCitation,
  type CitationDemo,
  type CitationDemoOptions,
  citationDemo,
} from "./citations/demo.js";
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
export { parseClassWeights } from "./class-weights.js";
export {
  type CandidateSelection,
  type CandidateSelectionOptions,
  type LearnConstraintsOptions,
  type LearnedConstraints,
  type LearnedPenaltySet,
  learnConstraints,
  learnPenaltySet,
  type PenaltyLearningOptions,
  type ScoredSentence,
  scoreSentences,
  selectCandidates,
} from "./constraint-learning.js";
export {
  type ContinuedTraining,
  continuedTraining,
  requireContinuable,
} from "./continued-training.js";
export {
  type ConstraintOutcome,
  type ConstraintTerm,
  type ExplainSentenceOptions,
  explainAttributes,
  explainSentence,
  type SentenceExplanation,
  type TokenExplanation,
} from "./explain.js";
export {
  ChainScoring,
  CONSISTENCY_SCALES,
  type ConsistencySelection,
  corpusGroups,
  type DecodedGroup,
  GENERAL_CRF_DEFAULTS,
  type GeneralCrf,
  type GeneralCrfSettings,
  type GeneralCrfTrainingOptions,
  type GeneralCrfTrainingProgress,
  type GeneralTagging,
  GROUPING_KINDS,
  type GroupingKind,
  generalCrfOf,
  groupInstances,
  learnConsistency,
  type PreparedGeneralCrf,
  prepareGeneralCrf,
  type TrainedGeneralCrf,
  TWEET_GROUP_DEFAULTS,
  tagGeneral,
  trainGeneralCrf,
  withGeneralCrf,
} from "./general-crf.js";
export {
  dependencyScores,
  heldOutTrees,
  type ParserScores,
  scoreL2sParser,
  scoreL2sTagger,
} from "./l2s/held-out.js";
export {
  conlluSentences,
  L2S_PARSER_DEFAULT_LEARNER,
  L2S_PARSER_TASK,
  type L2sParser,
  l2sParserOf,
  parseWithL2s,
  type TrainedL2sParser,
  type TrainL2sParserOptions,
  trainL2sParser,
} from "./l2s/parser.js";
export type { L2sSearchOptions } from "./l2s/search-options.js";
export {
  L2S_TAGGER_DEFAULT_LEARNER,
  L2S_TAGGER_TASK,
  type L2sTagger,
  l2sChainScores,
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
  withFirstStageVotes,
  withFirstStageVotesSync,
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
export {
  type MinedOnCorpus,
  type MineRulesOnCorpusOptions,
  mineRulesOnCorpus,
} from "./rule-mining.js";
export {
  checkDecoderUse,
  InfeasibleSentenceError,
  type Tagged,
  type TaggedNBest,
  Tagger,
  type TaggerOptions,
  type TaggingTime,
  type TagNBestOptions,
  type TagSentenceOptions,
} from "./tagger.js";
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
export {
  L2S_DEFAULT_DECODER,
  type OpenedChainTagger,
  type OpenedGeneralTagger,
  type OpenedL2sTagger,
  type OpenedTagger,
  type OpenTaggerOptions,
  openTagger,
  type TaggingSpec,
} from "./tagging/open-tagger.js";
export { jackknifeFolds, mineEntityLexicons } from "./task-presets/mined-lexicons.js";
export {
  clusterCacheFile,
  type LoadedClusters,
  languageClusters,
  type ResourceOptions,
  readClusterFile,
} from "./task-presets/resources.js";
export {
  CLUSTER_RECIPES,
  type ClusterLanguage,
  type ClusterRecipe,
  TASK_PRESETS,
  type TaskPreset,
} from "./task-presets/task-presets.js";
export {
  type FeatureRequest,
  inputColumnNames,
  type TrainingFeatures,
  trainingFeatures,
} from "./task-presets/training-features.js";
export { type DecoderTiming, median, type TimingOptions, timeTaggers } from "./timing.js";
export {
  type TrainedOnCorpus,
  TrainingFailedError,
  type TrainOnCorpusOptions,
  trainOnCorpus,
} from "./training.js";
export { type BaseModel, type CachedTrainingOptions, trainOrLoadModel } from "./training-cache.js";
export {
  type CrfsuiteCorpus,
  type TrainedOnCrfsuite,
  type TrainOnCrfsuiteOptions,
  trainOnCrfsuite,
} from "./training-crfsuite.js";
export {
  l2sActionSpaces,
  type TrainingMemoryBoundOptions,
  trainingMemoryBound,
} from "./training-memory.js";
export {
  type ObjectiveChoice,
  objectiveIterations,
  objectiveTraining,
} from "./training-objective.js";
export {
  type FirstStageTrainer,
  type TrainedTwoStage,
  TWO_STAGE_FOLDS,
  type TwoStageOptions,
  type TwoStageStage,
  trainTwoStage,
} from "./two-stage/train.js";
export {
  computeVotes,
  entitiesOf,
  majority,
  OUTSIDE,
  type SentenceVotes,
  VOTE_BLOCK,
  type VotingSentence,
  voteDocuments,
  withVoteColumns,
} from "./two-stage/votes.js";
