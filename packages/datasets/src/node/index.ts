/**
 * `@lagrange/datasets/node`: the dataset registry's file side (Node only): finding, downloading and
 * verifying corpora on disk, and opening them as sentences. The main entry (formats, label
 * schemes, evaluation, the catalog) needs no file system and bundles for the browser.
 */
export { formatOfPath, type OpenCorpusOptions, openCorpus } from "../registry/corpus.js";
export type {
  DatasetListing,
  ListDatasetsOptions,
  ListedDataset,
  ListedSplit,
  SplitWhere,
} from "../registry/listing.js";
export { listDatasets } from "../registry/listing.js";
export type { OpenDatasetOptions, OpenedSplit } from "../registry/open.js";
export { openDataset } from "../registry/open.js";
export type {
  AbsentSplit,
  AvailableSplit,
  DownloadProgress,
  FetchLike,
  LocateOptions,
  MissingSplit,
  ResolveOptions,
  SplitLocation,
  SplitResolution,
  SplitSource,
} from "../registry/resolve.js";
export {
  CACHE_DIR_ENV,
  cacheDir,
  DATA_DIR_ENV,
  findMirrorDir,
  findSplitFile,
  locateSplit,
  OFFLINE_ENV,
  resolveSplit,
  sha256File,
} from "../registry/resolve.js";
export type { LexiconOptions } from "../resources/lexicons.js";
export { getLexicon, openLexicon, readLexiconFile } from "../resources/lexicons.js";
export type { RawTextOptions } from "../resources/raw-text.js";
export { openRawText, readPlainTextTokens, testSplitRefusal } from "../resources/raw-text.js";
