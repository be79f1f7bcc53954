export {
  BCRF_DATASETS,
  type BcrfBenchmarkOptions,
  type BcrfBenchmarkResult,
  type BcrfCell,
  type BcrfDatasetName,
  type BcrfDatasetResult,
  bcrfBenchmark,
  type ConvergencePoint,
  type DecodingTiming,
  type TrainingTiming,
} from "./bcrf/benchmark.js";
export {
  bcrfCrossover,
  type CrossoverOptions,
  type CrossoverPoint,
  type CrossoverResult,
} from "./bcrf/crossover.js";
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
  type ParsingResult,
  type ParsingRow,
  type TradeoffPoint,
} from "./l2s/benchmark.js";
export {
  allRules,
  FERSINI2014_REPORTED,
  type PaperComparison,
  type TwoPhaseBenchmark,
  type TwoPhaseBenchmarkOptions,
  type TwoPhaseTarget,
  twoPhaseBenchmark,
  viterbiOf,
} from "./two-phase/benchmark.js";
export {
  type FieldEvaluation,
  splitsOf,
  TWO_PHASE_DATASETS,
  type TwoPhaseData,
  type TwoPhaseDataOptions,
  type TwoPhaseDatasetName,
  type TwoPhaseSplitId,
  twoPhaseData,
} from "./two-phase/data.js";
export {
  DEFAULT_PENALTY_SCALES,
  DEFAULT_TAU_GRID,
  type IlpFigures,
  type ModelFigures,
  type RuleRow,
  type Selection,
  type SystemResult,
  type SystemSpec,
  TWO_PHASE_DEFAULTS,
  type TwoPhaseDatasetResult,
  type TwoPhaseExperimentOptions,
  twoPhaseExperiment,
  twoPhaseSystems,
} from "./two-phase/experiment.js";
export {
  type FieldPrf,
  labelType,
  type Prf,
  quantile,
  type Significance,
  type TimeDistribution,
  type TokenScores,
  type TypeScores,
  timeDistribution,
  tokenScores,
} from "./two-phase/metrics.js";
export {
  type CurvePoint,
  type NerScores,
  type Table2Row,
  TWO_SLAVE_NER_DATASETS,
  type TwoSlaveNerBenchmark,
  type TwoSlaveNerDataset,
  type TwoSlaveNerOptions,
  twoSlaveNerBenchmark,
} from "./two-slave-ner/benchmark.js";
