export {
  type CandidateOptions,
  COUNT_FAMILIES,
  candidateTemplates,
  constraintInstantiator,
  instantiateAll,
  RULE_FAMILIES,
  type WeightedTemplate,
} from "./candidates.ts";
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
} from "./constraints-file.ts";
export {
  type ImportanceScore,
  importanceScores,
  pruneByImportance,
  type ScoredExample,
} from "./importance.ts";
export {
  type LabelLevel,
  OUTSIDE,
  parseBioLabel,
  SegmentIndex,
  type SegmentKey,
  type SegmentKeying,
} from "./segments.ts";
export type * from "./template.ts";
export { templateFromSpec, templateId } from "./templates.ts";
