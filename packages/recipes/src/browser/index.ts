/**
 * `@lagrange/recipes/browser`: the recipes that run in a page as well as in Node (no file system,
 * no worker threads): the standard Decoder registry, which the CLI, the bench and the playground
 * all decode through, the decoder checks and the model helpers a page needs, and tagging text with a
 * chain CRF loaded from bytes (`taggerFromModel` + `tagText`: imported alone, they bundle without the
 * other decoders). The main entry adds the Node pipelines (corpora, caches, training).
 */
export { loadPlugin, STANDARD_DECODERS, standardDecoders } from "../decoders.js";
export { modelPreset, sentenceAttributes } from "../model-features.js";
export { modelDecodingConstraints, modelScheme } from "../model-scheme.js";
export { checkDecoderUse, InfeasibleSentenceError } from "../tagger.js";
export {
  type ChainTaggerOptions,
  taggerFromModel,
} from "../tagging/chain-tagger.js";
export {
  confidenceRecord,
  labellingConfidence,
  marginalMaps,
  marginalsSource,
} from "../tagging/confidence.js";
export type { SequenceTagger } from "../tagging/sequence-tagger.js";
export { type TaggedText, type TextEntity, tagText } from "../tagging/text.js";
