export {
  HIGHER_ORDER_DD_DEFAULTS,
  type HigherOrderDecoding,
  naiveDDDecoder,
  naiveDDDefinition,
  twoSlaveDecoder,
  twoSlaveDefinition,
} from "./decoders/decoders.ts";
export { splitTreeCut, type TreeCutSplit } from "./decoders/tree-cut.ts";
export {
  type ConsistencyModel,
  type ConsistencyTrainingOptions,
  type ConsistencyTrainingProgress,
  type ConsistencyTrainingResult,
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  trainConsistencyWeights,
} from "./general-crf/general-crf.ts";
export { concatenateChains } from "./general-crf/group-chain.ts";
export {
  documentGroups,
  TWEET_GROUP_DEFAULTS,
  TWEET_STOPWORDS,
  type TweetGroupOptions,
  tweetGroups,
} from "./general-crf/groups.ts";
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
} from "./general-crf/patterns.ts";
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
} from "./maxflow/index.ts";
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
} from "./pseudo-boolean/index.ts";
export {
  type MinCutSlave,
  type MinCutSlaveBinding,
  type MinCutSlaveOptions,
  type MinCutSlaveStats,
  minCutSlave,
} from "./slaves/cut-slave.ts";
export {
  greedySpanningForests,
  naiveDecomposition,
  phrasePairSlave,
  treeSlave,
} from "./slaves/naive-dd.ts";
