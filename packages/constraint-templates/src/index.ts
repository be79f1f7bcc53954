export {
  COUNT_FAMILIES,
  candidateTemplates,
  constraintInstantiator,
  constraintLattice,
  decodedTemplates,
  instantiateAll,
  RULE_FAMILIES,
  type WeightedTemplate,
} from "./candidates.js";
export {
  type ConstraintsFile,
  type ConstraintsFileEntry,
  ConstraintsFileError,
  DOCUMENT_GROUPINGS,
  type DocumentGrouping,
  type JsonValue,
  parseConstraintsFile,
  serializeConstraintsFile,
} from "./constraints-file.js";
export { DEFAULT_MAX_OCCURRENCES, DOCUMENT_KINDS } from "./document-templates.js";
export { documentInstantiator, hasDocumentScope } from "./document-templates-instances.js";
export { type ImportanceScore, importanceScores, pruneByImportance } from "./importance.js";
export {
  type BrokenConstraint,
  brokenHardConstraints,
  type IndependentCheckOptions,
} from "./independent-check.js";
export { OUTSIDE, SegmentIndex, type SegmentKey, type SegmentKeying } from "./segments.js";
export type * from "./template.js";
export { templateFromSpec } from "./templates.js";
