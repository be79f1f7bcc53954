/**
 * `@lagrange/core/testing`: exact oracles and seeded problem generators for tests. Every package
 * checks its algorithms against these on tiny random instances.
 */
export {
  type BruteForceBest,
  type BruteForceOptions,
  bruteForceBest,
  bruteForceCount,
  bruteForceKBest,
  bruteForceLogPartition,
  bruteForceMarginals,
  type Enumerable,
  enumerationSlave,
  forEachLabelling,
  MAX_ENUMERATED,
  type ScoredSpace,
  scoredSpace,
} from "./brute-force.js";
export { type CheckSlaveOptions, checkSlave, SlaveCheckError } from "./check-slave.js";
export {
  type RandomChainOptions,
  type RandomConstraintOptions,
  type RandomFactorGraphOptions,
  randomChainScores,
  randomConstraints,
  randomFactorGraph,
  type Seed,
} from "./random.js";
