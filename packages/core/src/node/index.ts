/**
 * `@lagrange/core/node`: what only Node can do, kept off the main entry so that browser bundles of
 * core never reach for `node:fs`.
 */
export {
  type AtomicFile,
  FileWriteError,
  type OpenAtomicFileOptions,
  openAtomicFile,
  writeFileAtomic,
} from "./atomic-file.js";
export { readFactorGraphFile } from "./factor-graph-file.js";
export {
  checkInputFile,
  InputFileError,
  type InputKind,
  type InputStream,
  inputFileError,
  type OpenInputOptions,
  openInput,
  type ReadInputOptions,
  readInput,
} from "./input-file.js";
