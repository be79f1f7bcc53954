export {
  type Calibration,
  calibration,
  calibrationOfColumns,
  endsInConfidences,
  formatCalibrationReport,
  readConfidenceColumns,
  reliabilityDiagramSvg,
} from "./eval/calibration.js";
export type { LabelSequences, SegmentEvaluation } from "./eval/chunks.js";
export { evaluateChunks, evaluateSegments } from "./eval/chunks.js";
export type { ChunkEvaluation, PrecisionRecallF1 } from "./eval/conlleval.js";
export {
  ConllevalCounter,
  ConllevalInputError,
  conllevalReport,
  evaluateConllText,
  formatConllevalReport,
} from "./eval/conlleval.js";
export type { DependencyEvaluation } from "./eval/dependencies.js";
export { evaluateDependencies } from "./eval/dependencies.js";
export { checkDependencyHeads } from "./eval/dependency-heads.js";
export type { LabellingScore, PosField } from "./eval/labelling.js";
export {
  LabellingScorer,
  posFieldOf,
  renderLabellingScore,
  scoreConlluTagging,
  scoreLabelling,
  scoreTagging,
} from "./eval/labelling.js";
export type { TaggedConllu } from "./eval/prediction-file.js";
export { readTaggedConllu, scoreLabelColumns } from "./eval/prediction-file.js";
export type { PairedBootstrapResult } from "./eval/significance.js";
export {
  f1FromCounts,
  normalSurvival,
  pairedBootstrap,
  pairedBootstrapChunkF1,
  sentenceChunkCounts,
  wilcoxonSignedRank,
} from "./eval/significance.js";
export { confusionMatrix, evaluateTokens, renderConfusionMatrix } from "./eval/tokens.js";
export { WrittenTaggingScorer } from "./eval/written-tagging.js";
export {
  formatConll,
  parseConll,
  readConll,
  readConllFile,
  writeConllFile,
} from "./formats/conll.js";
export type { ConlluSentence } from "./formats/conllu.js";
export {
  CONLLU_FIELDS,
  formatConllu,
  parseConllu,
  readConllu,
  readConlluFile,
  writeConlluFile,
} from "./formats/conllu.js";
export type { CrfsuiteInstance } from "./formats/crfsuite.js";
export {
  formatCrfsuite,
  parseCrfsuite,
  readCrfsuite,
  readCrfsuiteFile,
  writeCrfsuiteFile,
} from "./formats/crfsuite.js";
export { DataFormatError } from "./formats/errors.js";
export {
  formatInlineTags,
  isInlineRecordSeparator,
  parseInlineTags,
  readInlineTags,
  readInlineTagsFile,
  writeInlineTagsFile,
} from "./formats/inline.js";
export { sourceLines, strayCarriageReturnError } from "./formats/io.js";
export type { CitationReport, MalformedCitationPolicy } from "./formats/umass.js";
export {
  formatUmassCitations,
  parseUmassCitations,
  readUmassCitations,
  readUmassCitationsFile,
  writeUmassCitationsFile,
} from "./formats/umass.js";
export type { GeneratedCitation } from "./generator/generate.js";
export {
  citationSentence,
  citationStream,
  generateCitationSentences,
  generateCitations,
} from "./generator/generate.js";
export { tokenize as tokenizeCitation } from "./generator/tree.js";
export type { OpenSplitInfo, SealedSplitInfo } from "./registry/catalog.js";
export {
  DATASETS,
  DatasetFormat,
  datasetNames,
  getDataset,
  getSplit,
  UnknownDatasetError,
} from "./registry/catalog.js";
export {
  type Corpus,
  type CorpusFormat,
  corpusLocator,
  withoutLabels,
  wordColumnOnly,
} from "./registry/corpus-model.js";
export {
  DatasetChecksumError,
  DatasetConfigError,
  DatasetDownloadError,
  DatasetUnavailableError,
} from "./registry/errors.js";
export { type CorpusSubset, subsetCorpus, subsetItems } from "./registry/subset.js";
export { LEXICONS, RAW_TEXT_CORPORA } from "./resources/catalog.js";
export { checkLineEndings } from "./resources/line-endings.js";
export {
  checkScheme,
  decodingMask,
  inferScheme,
  LABEL_SCHEMES,
  type LabelScheme,
  parseLabelScheme,
  requireScheme,
  type SchemeCheck,
  SchemeMismatchError,
  type SequenceLocator,
  schemeSpans,
  schemeViolations,
  tolerableInvalid,
} from "./schemes/label-scheme.js";
export type { SchemeName, SchemeOptions } from "./schemes/labels.js";
export { LabelSchemeError, SCHEME_NAMES } from "./schemes/labels.js";
export {
  isFullyLabelled,
  isPartialLabelCell,
  type PartialLabel,
  parsePartialLabel,
} from "./schemes/partial-labels.js";
export {
  type SegmentLattice,
  type SegmentLevel,
  segmentLattice,
} from "./schemes/segment-lattice.js";
export type { Span } from "./schemes/spans.js";
export {
  convertScheme,
  encodeSpans,
  extractSpans,
  SpanError,
  schemeLabels,
} from "./schemes/spans.js";
export { allowedTransitions, findViolations, isValidSequence } from "./schemes/validity.js";
export type { DocumentInfo, Sentence } from "./sentence.js";
export { groupByDocument, inputRows, tokenPlace } from "./sentence.js";
export { detokenize } from "./text/detokenize.js";
export {
  type SegmentOptions,
  segmentText,
  type TextSentence,
  type TextToken,
} from "./text/segment.js";
