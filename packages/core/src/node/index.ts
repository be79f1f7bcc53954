/**
 * `@lagrange/core/node`: what only Node can do, kept off the main entry so that browser bundles of
 * core never reach for `node:fs`; and the redaction of secrets, which only the Node side (the CLI's
 * messages, the queue's connections) needs.
 */

export { redactSecrets, redactUrl } from "../redact.js";
export {
  type AtomicFile,
  FileWriteError,
  type OpenAtomicFileOptions,
  openAtomicFile,
  READ_ONLY_FILE,
  writeFileAtomic,
} from "./atomic-file.js";
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
