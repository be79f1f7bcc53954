export type {
  ChunkEvaluationOptions,
  LabelSequences,
  LevelEvaluation,
  SegmentEvaluation,
  SegmentEvaluationOptions,
} from "./eval/chunks.ts";
export { AlignmentError, evaluateChunks, evaluateSegments } from "./eval/chunks.ts";
export type {
  ChunkEvaluation,
  ConllevalOptions,
  PrecisionRecallF1,
  TypeEvaluation,
} from "./eval/conlleval.ts";
export {
  ConllevalCounter,
  ConllevalInputError,
  conllevalReport,
  evaluateConllStream,
  evaluateConllText,
  formatConllevalReport,
} from "./eval/conlleval.ts";
export type {
  DependencyEvaluation,
  DependencyEvaluationOptions,
} from "./eval/dependencies.ts";
export { evaluateDependencies } from "./eval/dependencies.ts";
export type {
  Alternative,
  PairedBootstrapInput,
  PairedBootstrapOptions,
  PairedBootstrapResult,
  WilcoxonOptions,
  WilcoxonResult,
} from "./eval/significance.ts";
export {
  f1FromCounts,
  normalSurvival,
  pairedBootstrap,
  pairedBootstrapChunkF1,
  sentenceChunkCounts,
  wilcoxonSignedRank,
} from "./eval/significance.ts";
export type {
  ConfusionMatrix,
  LabelEvaluation,
  TokenEvaluation,
  TokenEvaluationOptions,
} from "./eval/tokens.ts";
export { confusionMatrix, evaluateTokens, renderConfusionMatrix } from "./eval/tokens.ts";
export type { ColumnSeparator, ConllReadOptions, ConllWriteOptions } from "./formats/conll.ts";
export {
  formatConll,
  parseConll,
  readConll,
  readConllFile,
  writeConllFile,
} from "./formats/conll.ts";
export type {
  ConlluExtraLine,
  ConlluField,
  ConlluReadOptions,
  ConlluSentence,
} from "./formats/conllu.ts";
export {
  CONLLU_FIELDS,
  formatConllu,
  parseConllu,
  readConllu,
  readConlluFile,
  writeConlluFile,
} from "./formats/conllu.ts";
export type { CrfsuiteAttribute, CrfsuiteInstance } from "./formats/crfsuite.ts";
export {
  escapeCrfsuiteName,
  formatCrfsuite,
  parseCrfsuite,
  readCrfsuite,
  readCrfsuiteFile,
  writeCrfsuiteFile,
} from "./formats/crfsuite.ts";
export { DataFormatError } from "./formats/errors.ts";
export type {
  InlineLabelMode,
  InlineTagsReadOptions,
  InlineTagsWriteOptions,
} from "./formats/inline.ts";
export {
  formatInlineTags,
  parseInlineTags,
  readInlineTags,
  readInlineTagsFile,
  writeInlineTagsFile,
} from "./formats/inline.ts";
export type { ReadOptions, TextSource } from "./formats/io.ts";
export type {
  CitationIssue,
  CitationReport,
  MalformedCitationPolicy,
  UmassCitations,
  UmassFileOptions,
  UmassReadOptions,
} from "./formats/umass.ts";
export {
  formatUmassCitations,
  parseUmassCitations,
  readUmassCitations,
  readUmassCitationsFile,
  writeUmassCitationsFile,
} from "./formats/umass.ts";
export type { CitationGeneratorOptions, GeneratedCitation } from "./generator/generate.ts";
export {
  citationSentence,
  citationStream,
  generateCitation,
  generateCitationSentences,
  generateCitations,
} from "./generator/generate.ts";
export type { CalendarDate, CitationKind, CitationRecord, PersonName } from "./generator/record.ts";
export { CITATION_KINDS } from "./generator/record.ts";
export type { CitationStyle } from "./generator/styles.ts";
export { CITATION_STYLES } from "./generator/styles.ts";
export { tokenize as tokenizeCitation } from "./generator/tree.ts";
export type {
  DatasetFormatId,
  DatasetFormatOptions,
  DatasetInfo,
  DatasetSplitInfo,
  DownloadSource,
  RecordRange,
  TagScheme,
} from "./registry/catalog.ts";
export {
  DATASETS,
  DatasetFormat,
  datasetNames,
  getDataset,
  getSplit,
  UnknownDatasetError,
} from "./registry/catalog.ts";
export {
  CORPUS_FORMATS,
  type Corpus,
  type CorpusFormat,
  corpusLocator,
  type OpenCorpusOptions,
  openCorpus,
  withoutLabels,
} from "./registry/corpus.ts";
export {
  DatasetChecksumError,
  DatasetConfigError,
  DatasetDownloadError,
  DatasetUnavailableError,
} from "./registry/errors.ts";
export type { OpenDatasetOptions, OpenedSplit } from "./registry/open.ts";
export { openDataset } from "./registry/open.ts";
export type {
  AbsentSplit,
  AvailableSplit,
  DownloadProgress,
  FetchLike,
  LocateOptions,
  MissingSplit,
  ResolveOptions,
  SplitLocation,
  SplitResolution,
  SplitSource,
} from "./registry/resolve.ts";
export {
  CACHE_DIR_ENV,
  cacheDir,
  DATA_DIR_ENV,
  findMirrorDir,
  findSplitFile,
  locateSplit,
  OFFLINE_ENV,
  resolveSplit,
  sha256File,
} from "./registry/resolve.ts";
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
} from "./schemes/label-scheme.ts";
export type { SchemeName, SchemeOptions } from "./schemes/labels.ts";
export { LabelSchemeError, SCHEME_NAMES } from "./schemes/labels.ts";
export {
  isFullyLabelled,
  isPartialLabelCell,
  type PartialLabel,
  parsePartialLabel,
  UNKNOWN_LABEL_CELL,
} from "./schemes/partial-labels.ts";
export type { Span } from "./schemes/spans.ts";
export {
  convertScheme,
  encodeSpans,
  extractSpans,
  SpanError,
  schemeLabels,
} from "./schemes/spans.ts";
export type { SchemeViolation, TransitionMask } from "./schemes/validity.ts";
export { allowedTransitions, findViolations, isValidSequence } from "./schemes/validity.ts";
export type { DocumentGroup, DocumentInfo, Sentence, SourcePosition } from "./sentence.ts";
export { groupByDocument, inputRows, tokenPlace } from "./sentence.ts";
