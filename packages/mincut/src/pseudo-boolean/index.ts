export {
  assignmentFromCut,
  buildCutGraph,
  type CutGraphBuilder,
  type CutGraphLayout,
} from "./cut-graph.ts";
export { NonRepresentableTermError, type OffendingTerm, PbfFormatError } from "./errors.ts";
export { PseudoBooleanFunction, type PseudoBooleanTerm, type TermKind } from "./function.ts";
export { type PbfInstance, parsePbf } from "./pbf-format.ts";
export { type QuadraticParts, QuadraticPseudoBoolean } from "./quadratic.ts";
export {
  labelGroups,
  MAX_MIXED_EXPANSION_SIDE,
  type PsiEntry,
  type QuadraticReduction,
  type ReduceOptions,
  reduceToQuadratic,
} from "./reduce.ts";
