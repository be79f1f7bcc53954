/**
 * What the readers need from Node: opening a file path as a stream of byte chunks. The package
 * imports this module as "#platform" (package.json "imports"); bundlers for the browser resolve
 * it to ./browser.ts, so formats, schemes and evaluation bundle with no `node:` import.
 */
import { createReadStream } from "node:fs";
import { fileURLToPath } from "node:url";

export function openFileChunks(path: string | URL): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: 1 << 16 });
}

export function pathOfUrl(url: URL): string {
  return fileURLToPath(url);
}

export { writeFileAtomic } from "@lagrange/core/node";
