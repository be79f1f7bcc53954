import { readInput } from "@lagrange/core/node";
import type { FactorGraphFile } from "./factor-graph-file.js";
import { parseAd3FactorGraph } from "./fg.js";
import { parseUaiFactorGraph } from "./uai.js";

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
  const text = new TextDecoder().decode(bytes);
  const uai = format === undefined ? path.toLowerCase().endsWith(".uai") : format === "uai";
  return uai ? parseUaiFactorGraph(text, path) : parseAd3FactorGraph(text, path);
}
