export {
  type CitationBenchmark,
  type CitationBenchmarkOptions,
  citationBenchmark,
  type DecoderRow,
} from "./citations/benchmark.ts";
export {
  type CitationCorpora,
  type CitationCorporaOptions,
  citationCorpora,
} from "./citations/corpus.ts";
export {
  type ChangedCitation,
  type CitationDemo,
  type CitationDemoOptions,
  citationDemo,
} from "./citations/demo.ts";
export {
  type BaseModel,
  type CitationExperiment,
  type CitationExperimentOptions,
  type DecodedTest,
  decodeTest,
  experimentTagger,
  type FieldScores,
  fieldScores,
  prepareCitationExperiment,
  seededHalves,
} from "./citations/experiment.ts";
export { modelCacheKey } from "./citations/model-cache.ts";
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
} from "./constraint-learning.ts";
export { loadPlugin, standardDecoders } from "./decoders.ts";
export { modelDecodingConstraints, modelScheme } from "./model-scheme.ts";
export { type Tagged, Tagger, type TaggerOptions, type TaggingTime } from "./tagger.ts";
export { type DecoderTiming, type TimingOptions, timeTaggers } from "./timing.ts";
export {
  schemeScorer,
  type TrainedOnCorpus,
  type TrainOnCorpusOptions,
  trainOnCorpus,
} from "./training.ts";
