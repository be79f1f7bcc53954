export { type CoMembership, coMembershipF1 } from "./agreement.js";
export {
  BROWN_DEFAULTS,
  type BrownClusters,
  type BrownOptions,
  brownClusters,
} from "./brown.js";
export { DELIMITER_TOKEN } from "./corpus.js";
export { clusterMutualInformation } from "./information.js";
export { formatClusterPaths, parseClusterPaths } from "./paths-file.js";
export type { WordClusters } from "./word-clusters.js";
