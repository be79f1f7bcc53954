/**
 * `@lagrange/factor-graphs`: AD3's two file formats (its own `.fg` and UAI's Markov networks) read
 * into the `BinaryProblem` that core's AD3 step solves, with the structured factors those files name
 * (sequences, trees, arborescences, head automata). AD3 keeps these beside its solver, in
 * `examples/`; here too they sit outside core.
 */
export {
  type FactorGraphCounts,
  type FactorGraphFile,
  FactorGraphFormatError,
  type FileBinaryVariable,
  type FileMultiVariable,
} from "./factor-graph-file.js";
export { parseAd3FactorGraph } from "./fg.js";
export {
  cppDefaultFormat,
  type FileAssignment,
  fileAssignment,
  parseFactorGraph,
  posteriorsFile,
} from "./solution.js";
export { parseUaiFactorGraph, UAI_LOG_ZERO } from "./uai.js";
