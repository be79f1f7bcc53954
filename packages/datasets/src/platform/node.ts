/**
 * What the readers need from Node: opening a file path as a stream of byte chunks. The package
 * imports this module as "#platform" (package.json "imports"); bundlers for the browser resolve
 * it to ./browser.ts, so formats, schemes and evaluation bundle with no `node:` import.
 */
import { fileURLToPath } from "node:url";
import { type InputSizeKind, openInput } from "@lagrange/core/node";

/**
 * A file's chunks through core's one input opener: a FIFO or a pipe is read to its end without a
 * thread waiting on it (the signal stops the wait for a writer); a file that cannot be opened, or a
 * device (`/dev/zero`), is an `InputFileError` (a usage error naming the path and why) when the
 * iteration starts. `kind` sets the size cap: streamed data by default (a pipe stops at it).
 */
export async function* openFileChunks(
  path: string | URL,
  signal?: AbortSignal,
  kind: InputSizeKind = "data",
): AsyncGenerator<Uint8Array> {
  yield* await openInput(path, { kind, ...(signal === undefined ? {} : { signal }) });
}

export function pathOfUrl(url: URL): string {
  return fileURLToPath(url);
}

export { writeFileAtomic } from "@lagrange/core/node";
