export {
  BCRF_DATASETS,
  type BcrfBenchmarkOptions,
  type BcrfBenchmarkResult,
  type BcrfCell,
  type BcrfDatasetName,
  type BcrfDatasetResult,
  bcrfBenchmark,
} from "./bcrf/benchmark.js";
export { bcrfCrossover } from "./bcrf/crossover.js";
export { openBenchSplits } from "./bench-splits.js";
export {
  type CitationBenchmark,
  type CitationBenchmarkOptions,
  citationBenchmark,
  type DecoderRow,
} from "./citations/benchmark.js";
export {
  L2S_DATASETS,
  L2S_DEFAULT_DATASETS,
  type L2sBenchmarkOptions,
  type L2sBenchmarkResult,
  type L2sDatasetName,
  type L2sDatasetResult,
  l2sBenchmark,
  type TradeoffPoint,
} from "./l2s/benchmark.js";
export {
  type TwoPhaseBenchmark,
  type TwoPhaseBenchmarkOptions,
  twoPhaseBenchmark,
} from "./two-phase/benchmark.js";
export { TWO_PHASE_DATASETS, type TwoPhaseDatasetName, twoPhaseData } from "./two-phase/data.js";
export { twoPhaseExperiment } from "./two-phase/experiment.js";
export type { SystemResult, TwoPhaseDatasetResult } from "./two-phase/experiment-results.js";
export type { Prf, Significance, TimeDistribution } from "./two-phase/metrics.js";
export {
  type CurvePoint,
  type TwoSlaveNerBenchmark,
  type TwoSlaveNerDataset,
  type TwoSlaveNerOptions,
  twoSlaveNerBenchmark,
} from "./two-slave-ner/benchmark.js";
