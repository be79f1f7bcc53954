/**
 * `@lagrange/datasets/node`: the dataset registry's file side (Node only): finding, downloading and
 * verifying corpora on disk, and opening them as sentences. The main entry (formats, label
 * schemes, evaluation, the catalog) needs no file system and bundles for the browser.
 */
export { formatOfPath, type OpenCorpusOptions, openCorpus } from "../registry/corpus.js";
export type { DatasetListing, ListedSplit, SplitWhere } from "../registry/listing.js";
export { listDatasets } from "../registry/listing.js";
export { openDataset } from "../registry/open.js";
export {
  cacheDir,
  findMirrorDir,
  findSplitFile,
  locateSplit,
  resolveSplit,
  sha256File,
} from "../registry/resolve.js";
export { openLexicon, readLexiconFile } from "../resources/lexicons.js";
export { openRawText, readPlainTextTokens } from "../resources/raw-text.js";
