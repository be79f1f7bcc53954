export { naiveDDDefinition, twoSlaveDecoder, twoSlaveDefinition } from "./decoders/decoders.js";
export {
  type ConsistencyModel,
  type ConsistencyTrainingProgress,
  type ConsistencyTrainingResult,
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  trainConsistencyWeights,
} from "./general-crf/general-crf.js";
export {
  documentGroups,
  TWEET_GROUP_DEFAULTS,
  type TweetGroupOptions,
  tweetGroups,
} from "./general-crf/groups.js";
export {
  CONSISTENCY_FEATURES,
  type ConsistencyFactorOptions,
  consistencyFeatureNames,
  labelSubsequences,
} from "./general-crf/patterns.js";
export {
  buildMaxflowGraph,
  cutCapacity,
  edmondsKarp,
  MaxflowFormatError,
  MaxflowGraph,
  type MaxflowInstance,
  type MaxflowUpdateRound,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  Segment,
  terminalCapacities,
} from "./maxflow/index.js";
export {
  assignmentFromCut,
  buildCutGraph,
  type CutGraphBuilder,
  labelGroups,
  NonRepresentableTermError,
  PseudoBooleanFunction,
  parsePbf,
  reduceToQuadratic,
} from "./pseudo-boolean/index.js";
export { minCutSlave } from "./slaves/cut-slave.js";
