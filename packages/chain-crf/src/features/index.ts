/*
 * Public API of the features module (the package index re-exports all of it):
 *   types      Attribute, AttributeList, AttributeSequence, AttributeSink, Preset, Rows, TokenRow
 *   templates  parseTemplate, expandMacro, CRFPP_MAX_CONTEXT, CrfppTemplate, TemplateLine,
 *              TemplateOptions
 *   presets    presets, getPreset, PresetName, chunkingPreset, nerPreset, nerWordsPreset,
 *              citationPreset, posPreset, ChunkingOptions, CitationOptions, CHUNKING_TEMPLATES,
 *              CITATION_LEXICONS, FieldTemplate
 *   input      fromAttributeLists (CRFsuite-style attribute lists), AttributeSequenceBuilder
 *   helpers    toAttributeLists, attributeNames
 *   errors     TemplateSyntaxError, FeatureInputError
 *   votes      voteFeatures, VOTE_KINDS, NO_VOTE, VoteKind (a two-stage model's vote columns)
 *   context    documentContextColumns, CONTEXT_KINDS, NO_CONTEXT (context aggregation columns)
 *   dense      withDenseColumns, denseAttributeName, MAX_DENSE_VALUE (real-valued input columns)
 * Everything else in this folder is internal.
 */
export {
  AttributeSequenceBuilder,
  attributeNames,
  fromAttributeLists,
  toAttributeLists,
} from "./builder.js";
export { CHUNKING_TEMPLATES, type ChunkingOptions, chunkingPreset } from "./chunking.js";
export { type CitationOptions, citationPreset } from "./citation.js";
export { CONTEXT_KINDS, documentContextColumns, NO_CONTEXT } from "./context.js";
export { denseAttributeName, MAX_DENSE_VALUE, withDenseColumns } from "./dense.js";
export { FeatureInputError, TemplateSyntaxError } from "./errors.js";
export type { FieldTemplate } from "./field-templates.js";
export { CITATION_LEXICONS } from "./lexicons.js";
export { NER_COLUMNS, type NerOptions, nerPreset, nerWordsPreset } from "./ner.js";
export { posPreset } from "./pos.js";
export { getPreset, type PresetName, presets } from "./presets.js";
export {
  describeSpec,
  type FeatureSpec,
  featureExtractor,
  parseFeatureSpec,
} from "./spec.js";
export {
  CRFPP_MAX_CONTEXT,
  type CrfppTemplate,
  expandMacro,
  parseTemplate,
  type TemplateLine,
  type TemplateOptions,
} from "./template.js";
export type {
  Attribute,
  AttributeList,
  AttributeSequence,
  AttributeSink,
  Preset,
  Rows,
  TokenRow,
} from "./types.js";
export { NO_VOTE, VOTE_KINDS, type VoteKind, voteFeatures } from "./votes.js";
export {
  type ClusterResource,
  clusterFeatures,
  DEFAULT_CLUSTER_PREFIXES,
  type LexiconFeatureOptions,
  type LexiconResource,
  lexiconFeatures,
} from "./word-resources.js";
