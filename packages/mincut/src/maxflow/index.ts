export {
  type CutSide,
  MaxflowGraph,
  type MaxflowGraphOptions,
  type MaxflowKernel,
  Segment,
} from "./graph.js";
export {
  buildMaxflowGraph,
  cutCapacity,
  type MaxflowCutFile,
  MaxflowFormatError,
  type MaxflowInstance,
  type MaxflowUpdateRound,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  terminalCapacities,
} from "./graph-format.js";
export { edmondsKarp, type ReferenceMaxflow } from "./reference.js";
