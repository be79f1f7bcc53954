/**
 * What chain-crf needs from Node: the worker-thread objective pool and files. The package imports
 * this module as "#platform" (package.json "imports"), which bundlers for the browser resolve to
 * ./browser.ts instead, so the package's main entry bundles with no `node:` import.
 */
import { readInput } from "@lagrange/core/node";

export { writeFileAtomic } from "@lagrange/core/node";
export { ObjectivePool } from "../train/pool.js";

/**
 * A model file's bytes through core's one input opener: a pipe (`<(zcat m.gz)`) or a FIFO is read
 * to its end, stoppably; a file that cannot be opened is an `InputFileError` (usage).
 */
export function readFileBytes(path: string, signal?: AbortSignal): Promise<Uint8Array> {
  return readInput(path, { kind: "model", ...(signal === undefined ? {} : { signal }) });
}
