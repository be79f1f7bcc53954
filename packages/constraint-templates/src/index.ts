export {
  type CandidateOptions,
  COUNT_FAMILIES,
  candidateTemplates,
  constraintInstantiator,
  decodedTemplates,
  instantiateAll,
  RULE_FAMILIES,
  type WeightedTemplate,
} from "./candidates.js";
export {
  CONSTRAINTS_FORMAT,
  CONSTRAINTS_VERSION,
  type ConstraintsFile,
  type ConstraintsFileEntry,
  ConstraintsFileError,
  type JsonValue,
  type ParseConstraintsOptions,
  parseConstraintsFile,
  serializeConstraintsFile,
} from "./constraints-file.js";
export {
  type ImportanceScore,
  importanceScores,
  pruneByImportance,
  type ScoredExample,
} from "./importance.js";
export {
  type LabelLevel,
  OUTSIDE,
  parseBioLabel,
  SegmentIndex,
  type SegmentKey,
  type SegmentKeying,
} from "./segments.js";
export type * from "./template.js";
export { templateFromSpec, templateId } from "./templates.js";
