export {
  CALIBRATION_BINS,
  type Calibration,
  type CalibrationBin,
  type ConfidenceColumns,
  calibration,
  calibrationOfColumns,
  formatCalibrationReport,
  readConfidenceColumns,
  reliabilityDiagramSvg,
} from "./eval/calibration.js";
export type {
  ChunkEvaluationOptions,
  LabelSequences,
  LevelEvaluation,
  SegmentEvaluation,
  SegmentEvaluationOptions,
} from "./eval/chunks.js";
export { AlignmentError, evaluateChunks, evaluateSegments } from "./eval/chunks.js";
export type {
  ChunkEvaluation,
  ConllevalOptions,
  PrecisionRecallF1,
  TypeEvaluation,
} from "./eval/conlleval.js";
export {
  ConllevalCounter,
  ConllevalInputError,
  conllevalReport,
  evaluateConllStream,
  evaluateConllText,
  formatConllevalReport,
} from "./eval/conlleval.js";
export type {
  DependencyEvaluation,
  DependencyEvaluationOptions,
} from "./eval/dependencies.js";
export { evaluateDependencies } from "./eval/dependencies.js";
export type {
  AccuracyScore,
  ChunkF1Score,
  LabellingScore,
  LabellingScoreOptions,
  PosField,
} from "./eval/labelling.js";
export {
  LabellingScorer,
  posFieldOf,
  renderLabellingScore,
  scoreConlluTagging,
  scoreLabelling,
  scoreTagging,
} from "./eval/labelling.js";
export type { ColumnsScore, TaggedConllu } from "./eval/prediction-file.js";
export { readTaggedConllu, scoreLabelColumns } from "./eval/prediction-file.js";
export type {
  Alternative,
  PairedBootstrapInput,
  PairedBootstrapOptions,
  PairedBootstrapResult,
  WilcoxonOptions,
  WilcoxonResult,
} from "./eval/significance.js";
export {
  f1FromCounts,
  normalSurvival,
  pairedBootstrap,
  pairedBootstrapChunkF1,
  sentenceChunkCounts,
  wilcoxonSignedRank,
} from "./eval/significance.js";
export type {
  ConfusionMatrix,
  LabelEvaluation,
  TokenEvaluation,
  TokenEvaluationOptions,
} from "./eval/tokens.js";
export { confusionMatrix, evaluateTokens, renderConfusionMatrix } from "./eval/tokens.js";
export type { ColumnSeparator, ConllReadOptions, ConllWriteOptions } from "./formats/conll.js";
export {
  formatConll,
  parseConll,
  readConll,
  readConllFile,
  writeConllFile,
} from "./formats/conll.js";
export type {
  ConlluExtraLine,
  ConlluField,
  ConlluReadOptions,
  ConlluSentence,
} from "./formats/conllu.js";
export {
  CONLLU_FIELDS,
  formatConllu,
  parseConllu,
  readConllu,
  readConlluFile,
  writeConlluFile,
} from "./formats/conllu.js";
export type { CrfsuiteAttribute, CrfsuiteInstance } from "./formats/crfsuite.js";
export {
  escapeCrfsuiteName,
  formatCrfsuite,
  parseCrfsuite,
  readCrfsuite,
  readCrfsuiteFile,
  writeCrfsuiteFile,
} from "./formats/crfsuite.js";
export { DataFormatError } from "./formats/errors.js";
export type {
  InlineLabelMode,
  InlineTagsReadOptions,
  InlineTagsWriteOptions,
} from "./formats/inline.js";
export {
  formatInlineTags,
  isInlineRecordSeparator,
  parseInlineTags,
  readInlineTags,
  readInlineTagsFile,
  writeInlineTagsFile,
} from "./formats/inline.js";
export type { ReadOptions, TextSource } from "./formats/io.js";
export { sourceLines, strayCarriageReturnError } from "./formats/io.js";
export type {
  CitationIssue,
  CitationReport,
  MalformedCitationPolicy,
  UmassCitations,
  UmassFileOptions,
  UmassReadOptions,
} from "./formats/umass.js";
export {
  formatUmassCitations,
  parseUmassCitations,
  readUmassCitations,
  readUmassCitationsFile,
  writeUmassCitationsFile,
} from "./formats/umass.js";
export type { CitationGeneratorOptions, GeneratedCitation } from "./generator/generate.js";
export {
  citationSentence,
  citationStream,
  generateCitation,
  generateCitationSentences,
  generateCitations,
} from "./generator/generate.js";
export type { CalendarDate, CitationKind, CitationRecord, PersonName } from "./generator/record.js";
export { CITATION_KINDS } from "./generator/record.js";
export type { CitationStyle } from "./generator/styles.js";
export { CITATION_STYLES } from "./generator/styles.js";
export { tokenize as tokenizeCitation } from "./generator/tree.js";
export type {
  DatasetFormatId,
  DatasetFormatOptions,
  DatasetInfo,
  DatasetSplitInfo,
  DownloadSource,
  OpenSplitInfo,
  RecordRange,
  SealedSplitInfo,
  TagScheme,
} from "./registry/catalog.js";
export {
  DATASETS,
  DatasetFormat,
  datasetNames,
  getDataset,
  getSplit,
  UnknownDatasetError,
} from "./registry/catalog.js";
export {
  CORPUS_FORMATS,
  type Corpus,
  type CorpusFormat,
  corpusLocator,
  withoutLabels,
} from "./registry/corpus-model.js";
export {
  DatasetChecksumError,
  DatasetConfigError,
  DatasetDownloadError,
  DatasetUnavailableError,
} from "./registry/errors.js";
export { type CorpusSubset, subsetCorpus, subsetItems } from "./registry/subset.js";
export type {
  LexiconInfo,
  LexiconKind,
  RawTextCorpusInfo,
  RawTextFormat,
} from "./resources/catalog.js";
export {
  LEXICONS,
  lexiconNames,
  RAW_TEXT_CORPORA,
  rawTextCorpusNames,
} from "./resources/catalog.js";
export { parseLexiconText } from "./resources/lexicon-text.js";
export { checkLineEndings } from "./resources/line-endings.js";
export { ABBREVIATIONS, splitSentences, tokenizeText } from "./resources/tokenize.js";
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
  type SchemeProblem,
  type SequenceLocator,
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
  UNKNOWN_LABEL_CELL,
} from "./schemes/partial-labels.js";
export type { Span } from "./schemes/spans.js";
export {
  convertScheme,
  encodeSpans,
  extractSpans,
  SpanError,
  schemeLabels,
} from "./schemes/spans.js";
export type { SchemeViolation } from "./schemes/validity.js";
export { allowedTransitions, findViolations, isValidSequence } from "./schemes/validity.js";
export type { DocumentGroup, DocumentInfo, Sentence, SourcePosition } from "./sentence.js";
export { groupByDocument, inputRows, tokenPlace } from "./sentence.js";
