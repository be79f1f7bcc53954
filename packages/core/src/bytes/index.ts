/**
 * `@lagrange/core/bytes`: what the binary model files and the size caps share — CRC-32 and byte
 * sizes written and read the one way.
 */
export { BYTE_SIZE_UNITS, formatByteSize, parseByteSize } from "../byte-size.js";
export { crc32 } from "../crc32.js";
