/**
 * `@lagrange/recipes/browser`: the recipes that run in a page as well as in Node (no file system,
 * no worker threads): the standard Decoder registry, which the CLI, the bench and the playground
 * all decode through, the decoder checks and the model helpers a page needs. The main entry adds the
 * Node pipelines (corpora, caches, training).
 */
export { loadPlugin, STANDARD_DECODERS, standardDecoders } from "../decoders.js";
export { modelPreset, sentenceAttributes } from "../model-features.js";
export { modelDecodingConstraints, modelScheme } from "../model-scheme.js";
export { checkDecoderUse, InfeasibleSentenceError } from "../tagger.js";
export {
  confidenceRecord,
  labellingConfidence,
  marginalMaps,
  marginalsSource,
} from "../tagging/confidence.js";
