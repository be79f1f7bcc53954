import { readInput } from "@lagrange/core/node";
import type { FactorGraphFile } from "./factor-graph-file.js";
import { parseFactorGraph } from "./solution.js";

/**
 * Reads a factor graph in one of AD3's formats: UAI when `format` says so or the name ends in
 * `.uai`, AD3's `.fg` otherwise, through the one input opener: a device is refused and the graph
 * cap applies (`InputTooLargeError`). A file that cannot be opened is an `InputFileError`
 * (`usage`); a malformed one a `FactorGraphFormatError` (`bad-input`) naming `path:line`.
 */
export async function readFactorGraphFile(
  path: string,
  format?: "ad3" | "uai",
  signal?: AbortSignal,
): Promise<FactorGraphFile> {
  const bytes = await readInput(path, {
    kind: "graph",
    ...(signal === undefined ? {} : { signal }),
  });
  return parseFactorGraph(new TextDecoder().decode(bytes), path, format);
}
