/**
 * `@lagrange/recipes/browser`: the recipes that run in a page as well as in Node (no file system,
 * no worker threads): the standard Decoder registry, which the CLI, the bench and the playground
 * all decode through, and the playground's inspection of one citation. The main entry adds the
 * Node pipelines (corpora, caches, benchmarks).
 */
export { loadPlugin, standardDecoders } from "../decoders.js";
export {
  type CitationInspection,
  CitationInspector,
  type CitationInspectorOptions,
  citationTokens,
  type DecoderChoice,
  decoderChoices,
  type FiredConstraint,
  firedConstraints,
  type LabelledSpans,
  type ObjectivePoint,
} from "../inspect/inspect.js";
export { InfeasibleSentenceError } from "../tagger.js";
