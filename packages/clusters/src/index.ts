export { coMembershipF1 } from "./agreement.js";
export { type BrownClusters, brownClusters } from "./brown.js";
export { clusterMutualInformation } from "./information.js";
export { formatClusterPaths, parseClusterPaths } from "./paths-file.js";
export type { WordClusters } from "./word-clusters.js";
