export {
  HIGHER_ORDER_DD_DEFAULTS,
  type HigherOrderDecoding,
  naiveDDDecoder,
  naiveDDDefinition,
  twoSlaveDecoder,
  twoSlaveDefinition,
} from "./decoders/decoders.js";
export { splitTreeCut, type TreeCutSplit } from "./decoders/tree-cut.js";
export {
  type ConsistencyEpochStats,
  type ConsistencyModel,
  type ConsistencyTrainingOptions,
  type ConsistencyTrainingProgress,
  type ConsistencyTrainingResult,
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  trainConsistencyWeights,
} from "./general-crf/general-crf.js";
export { concatenateChains } from "./general-crf/group-chain.js";
export {
  documentGroups,
  TWEET_GROUP_DEFAULTS,
  TWEET_STOPWORDS,
  type TweetGroupOptions,
  tweetGroups,
} from "./general-crf/groups.js";
export {
  CONSISTENCY_FEATURES,
  type ConsistencyFactor,
  type ConsistencyFactorOptions,
  consistencyFeature,
  consistencyFeatureCounts,
  consistencyFeatureNames,
  consistencyPatterns,
  findConsistencyFactors,
  labelSubsequences,
} from "./general-crf/patterns.js";
export {
  buildMaxflowGraph,
  type CutSide,
  cutCapacity,
  edmondsKarp,
  type MaxflowCutFile,
  MaxflowFormatError,
  MaxflowGraph,
  type MaxflowGraphOptions,
  type MaxflowInstance,
  type MaxflowKernel,
  type MaxflowUpdateRound,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  type ReferenceMaxflow,
  Segment,
  terminalCapacities,
} from "./maxflow/index.js";
export {
  assignmentFromCut,
  buildCutGraph,
  type CutGraphBuilder,
  type CutGraphLayout,
  labelGroups,
  MAX_MIXED_EXPANSION_SIDE,
  NonRepresentableTermError,
  type OffendingTerm,
  PbfFormatError,
  type PbfInstance,
  PseudoBooleanFunction,
  type PseudoBooleanTerm,
  type PsiEntry,
  parsePbf,
  type QuadraticParts,
  QuadraticPseudoBoolean,
  type QuadraticReduction,
  type ReduceOptions,
  reduceToQuadratic,
  type TermKind,
} from "./pseudo-boolean/index.js";
export {
  type MinCutSlave,
  type MinCutSlaveBinding,
  type MinCutSlaveOptions,
  type MinCutSlaveStats,
  minCutSlave,
} from "./slaves/cut-slave.js";
export {
  greedySpanningForests,
  naiveDecomposition,
  phrasePairSlave,
  treeSlave,
} from "./slaves/naive-dd.js";
