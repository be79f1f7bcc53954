import { readFile } from "node:fs/promises";
import type { FactorGraphFile } from "../dual-decomposition/ad3/formats/factor-graph-file.js";
import { parseAd3FactorGraph } from "../dual-decomposition/ad3/formats/fg.js";
import { parseUaiFactorGraph } from "../dual-decomposition/ad3/formats/uai.js";
import { inputFileError } from "./input-file.js";

/**
 * Reads a factor graph in one of AD3's formats: UAI when `format` says so or the name ends in
 * `.uai`, AD3's `.fg` otherwise. A file that cannot be opened is an `InputFileError` (`usage`); a
 * malformed one a `FactorGraphFormatError` (`bad-input`) naming `path:line`.
 */
export async function readFactorGraphFile(
  path: string,
  format?: "ad3" | "uai",
): Promise<FactorGraphFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw inputFileError(path, error);
  }
  const uai = format === undefined ? path.toLowerCase().endsWith(".uai") : format === "uai";
  return uai ? parseUaiFactorGraph(text, path) : parseAd3FactorGraph(text, path);
}
