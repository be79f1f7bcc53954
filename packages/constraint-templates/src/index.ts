export {
  COUNT_FAMILIES,
  candidateTemplates,
  constraintInstantiator,
  decodedTemplates,
  instantiateAll,
  RULE_FAMILIES,
  type WeightedTemplate,
} from "./candidates.js";
export {
  type ConstraintsFile,
  type ConstraintsFileEntry,
  ConstraintsFileError,
  type JsonValue,
  parseConstraintsFile,
  serializeConstraintsFile,
} from "./constraints-file.js";
export { type ImportanceScore, importanceScores, pruneByImportance } from "./importance.js";
export { OUTSIDE, parseBioLabel, SegmentIndex, type SegmentKeying } from "./segments.js";
export type * from "./template.js";
export { templateFromSpec } from "./templates.js";
