/**
 * What l2s needs from Node: model files. The package imports
 * this module as "#platform" (package.json "imports"), which bundlers for the browser resolve to
 * ./browser.ts instead, so the package's main entry bundles with no `node:` import.
 */
import { readFile } from "node:fs/promises";

export { writeFileAtomic } from "@lagrange/core/node";

export function readFileBytes(path: string): Promise<Uint8Array> {
  return readFile(path);
}
