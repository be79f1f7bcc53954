// Inference: iterative Bregman projections (corro, Algorithm 1) and what training reads off it

// Decoders for the registry
export {
  BCRF_DECODING_DEFAULTS,
  type BcrfDecodeOptions,
  bcrfDecoder,
  bcrfDefinition,
  meanFieldDecoder,
  meanFieldDefinition,
} from "./decoders/decoders.js";
// Labellings from marginals
export { mbrDecode, validDecode } from "./decoding/decode.js";
export { BcrfWorkspace } from "./inference/bcrf-workspace.js";
export { emptyChainInput, loadChainScores } from "./inference/chain-input.js";
export {
  BCRF_DECODING_TEMPERATURE,
  BCRF_DEFAULT_ITERATIONS,
  bcrfInference,
} from "./inference/ibp.js";
export { logDomainIbp } from "./inference/log-domain.js";
export { addBcrfStatistics, bcrfValue } from "./inference/value.js";
// The mean-field baseline
export { MEAN_FIELD_DEFAULTS, meanFieldLoss, meanFieldMarginals } from "./mean-field/mean-field.js";
// Training objectives on chain-crf's features
export {
  bcrfObjective,
  meanFieldObjective,
  TRAINING_OBJECTIVES,
  type TrainingObjectiveName,
  trainingObjective,
} from "./training/objectives.js";

/** Bcrf inference with each half-step's clusters split across worker threads (long sequences). */
export async function openParallelBcrf(
  options: import("./parallel/parallel-ibp.js").ParallelBcrfOptions,
): Promise<import("./parallel/parallel-ibp.js").ParallelBcrf> {
  const { ParallelBcrf } = await import("#platform");
  return ParallelBcrf.open(options);
}
