/**
 * `@lagrange/recipes/browser`: the recipes that run in a page as well as in Node (no file system,
 * no worker threads): the standard Decoder registry, which the CLI, the bench and the playground
 * all decode through. The main entry adds the Node pipelines (corpora, caches, benchmarks).
 */
export { loadPlugin, standardDecoders } from "../decoders.js";
