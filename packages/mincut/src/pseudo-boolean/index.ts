export {
  assignmentFromCut,
  buildCutGraph,
  type CutGraphBuilder,
  type CutGraphLayout,
} from "./cut-graph.js";
export { NonRepresentableTermError, type OffendingTerm, PbfFormatError } from "./errors.js";
export { PseudoBooleanFunction, type PseudoBooleanTerm, type TermKind } from "./function.js";
export { MAX_MIXED_EXPANSION_SIDE } from "./higher-order-terms.js";
export { type PbfInstance, parsePbf } from "./pbf-format.js";
export { type QuadraticParts, QuadraticPseudoBoolean } from "./quadratic.js";
export {
  labelGroups,
  type PsiEntry,
  type QuadraticReduction,
  type ReduceOptions,
  reduceToQuadratic,
} from "./reduce.js";
