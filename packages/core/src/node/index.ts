/**
 * `@lagrange/core/node`: what only Node can do, kept off the main entry so that browser bundles of
 * core never reach for `node:fs`.
 */
export {
  type AtomicFile,
  FileWriteError,
  type OpenAtomicFileOptions,
  openAtomicFile,
  READ_ONLY_FILE,
  writeFileAtomic,
} from "./atomic-file.js";
export { readFactorGraphFile } from "./factor-graph-file.js";
export {
  byteSizeText,
  INPUT_CAPS_VARIABLE,
  INPUT_SIZE_CAPS,
  type InputSizeKind,
  InputTooLargeError,
  inputSizeCap,
  parseInputCaps,
} from "./input-caps.js";
export {
  checkInputFile,
  InputFileError,
  type InputKind,
  type InputStream,
  inputFileError,
  isRefusedDevice,
  type OpenInputOptions,
  openInput,
  type ReadInputOptions,
  readInput,
} from "./input-file.js";
