export {
  type CutSide,
  MaxflowGraph,
  type MaxflowGraphOptions,
  type MaxflowKernel,
  Segment,
} from "./graph.ts";
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
} from "./graph-format.ts";
export { edmondsKarp, type ReferenceMaxflow } from "./reference.ts";
