export {
  BCRF_DATASETS,
  type BcrfBenchmarkOptions,
  type BcrfBenchmarkResult,
  type BcrfCell,
  type BcrfDatasetName,
  type BcrfDatasetResult,
  bcrfBenchmark,
  type ConvergencePoint,
  type DecodingTiming,
  type TrainingTiming,
} from "./bcrf/benchmark.js";
export {
  bcrfCrossover,
  type CrossoverOptions,
  type CrossoverPoint,
  type CrossoverResult,
} from "./bcrf/crossover.js";
// The browser-safe part (the Decoder registry, the playground's inspection): one list, there.
export * from "./browser/index.js";
export {
  type CitationBenchmark,
  type CitationBenchmarkOptions,
  citationBenchmark,
  type DecoderRow,
} from "./citations/benchmark.js";
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
  type BaseModel,
  type CitationExperiment,
  type CitationExperimentOptions,
  type DecodedTest,
  decodeTest,
  errorReduction,
  type FieldScores,
  prepareCitationExperiment,
} from "./citations/experiment.js";
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
  ChainScoring,
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
  L2S_DATASETS,
  L2S_DEFAULT_DATASETS,
  type L2sBenchmarkOptions,
  type L2sBenchmarkResult,
  type L2sDatasetName,
  type L2sDatasetResult,
  l2sBenchmark,
  type ParsingResult,
  type ParsingRow,
  type TradeoffPoint,
} from "./l2s/benchmark.js";
export {
  conlluSentences,
  L2S_PARSER_TASK,
  type L2sParser,
  l2sParserOf,
  parseWithL2s,
  type TrainedL2sParser,
  type TrainL2sParserOptions,
  trainL2sParser,
} from "./l2s/parser.js";
export {
  L2S_TAGGER_TASK,
  type L2sTagger,
  l2sChainScores,
  l2sTaggerOf,
  type TrainedL2sTagger,
  type TrainL2sTaggerOptions,
  tagWithL2s,
  trainL2sTagger,
} from "./l2s/tagger.js";
export {
  attributesOf,
  type GoldLabels,
  inputForModel,
  inputForPreset,
  modelInputColumns,
  modelPreset,
  sentenceAttributes,
} from "./model-input.js";
export { modelDecodingConstraints, modelScheme } from "./model-scheme.js";
export {
  type MinedOnCorpus,
  type MineRulesOnCorpusOptions,
  mineRulesOnCorpus,
} from "./rule-mining.js";
export {
  checkDecoderUse,
  InfeasibleSentenceError,
  type Tagged,
  Tagger,
  type TaggerOptions,
  type TaggingTime,
} from "./tagger.js";
export { type DecoderTiming, median, type TimingOptions, timeTaggers } from "./timing.js";
export {
  type TrainedOnCorpus,
  TrainingFailedError,
  type TrainOnCorpusOptions,
  trainOnCorpus,
} from "./training.js";
export { type CachedTrainingOptions, trainOrLoadModel } from "./training-cache.js";
export {
  allRules,
  FERSINI2014_REPORTED,
  type PaperComparison,
  type TwoPhaseBenchmark,
  type TwoPhaseBenchmarkOptions,
  type TwoPhaseTarget,
  twoPhaseBenchmark,
  viterbiOf,
} from "./two-phase/benchmark.js";
export {
  type FieldEvaluation,
  splitsOf,
  TWO_PHASE_DATASETS,
  type TwoPhaseData,
  type TwoPhaseDataOptions,
  type TwoPhaseDatasetName,
  type TwoPhaseSplitId,
  twoPhaseData,
} from "./two-phase/data.js";
export {
  DEFAULT_PENALTY_SCALES,
  DEFAULT_TAU_GRID,
  type IlpFigures,
  type ModelFigures,
  type RuleRow,
  type Selection,
  type SystemResult,
  type SystemSpec,
  TWO_PHASE_DEFAULTS,
  type TwoPhaseDatasetResult,
  type TwoPhaseExperimentOptions,
  twoPhaseExperiment,
  twoPhaseSystems,
} from "./two-phase/experiment.js";
export {
  type FieldPrf,
  labelType,
  type Prf,
  quantile,
  type Significance,
  type TimeDistribution,
  type TokenScores,
  type TypeScores,
  timeDistribution,
  tokenScores,
} from "./two-phase/metrics.js";
export {
  type CurvePoint,
  type NerScores,
  type Table2Row,
  TWO_SLAVE_NER_DATASETS,
  type TwoSlaveNerBenchmark,
  type TwoSlaveNerDataset,
  type TwoSlaveNerOptions,
  twoSlaveNerBenchmark,
} from "./two-slave-ner/benchmark.js";
