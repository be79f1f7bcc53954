/**
 * `@lagrange/core/node`: what only Node can do, kept off the main entry so that browser bundles of
 * core never reach for `node:fs`.
 */
export { type AtomicFile, FileWriteError, openAtomicFile, writeFileAtomic } from "./atomic-file.js";
