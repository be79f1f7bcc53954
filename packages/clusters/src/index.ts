export { coMembershipF1 } from "./agreement.js";
export { type BrownClusters, brownClusters } from "./brown.js";
export { clusterMutualInformation } from "./information.js";
export { type KMeans, type KMeansOptions, kmeans, type Vectors } from "./kmeans.js";
export { formatClusterPaths, parseClusterPaths } from "./paths-file.js";
export {
  PPMI_SVD_DEFAULTS,
  type PpmiSvdOptions,
  ppmiSvdVectors,
  type WordVectors,
} from "./ppmi-svd.js";
export type { WordClusters } from "./word-clusters.js";
