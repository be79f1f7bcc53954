import type { CrfModel } from "./crf-model.ts";
import {
  loadModelFromBytes,
  ModelFileError,
  modelToBytes,
  type SaveOptions,
} from "./model-file.ts";

/**
 * Writes a model file atomically with core's one atomic writer (temporary file beside it, fsync,
 * rename), so a reader never sees a half written model and a crash leaves the old one in place.
 * Node only (the writer is imported on call, so browser bundles of this package never load it).
 */
export async function saveModel(
  model: CrfModel,
  path: string,
  options: SaveOptions = {},
): Promise<void> {
  const { writeFileAtomic } = await import("@lagrange/core/node");
  // A failed write is an I/O error naming the file (FileWriteError), never "malformed".
  await writeFileAtomic(path, modelToBytes(model, options));
}

/** Reads and validates a model file (Node only). */
export async function loadModel(path: string): Promise<CrfModel> {
  const fs = await import("node:fs/promises");
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (error) {
    throw new ModelFileError(path, `cannot read the model: ${(error as Error).message}`);
  }
  return loadModelFromBytes(bytes, path);
}
