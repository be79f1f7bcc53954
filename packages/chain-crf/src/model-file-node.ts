import { wrapReadFailure } from "@lagrange/core";
import type { CrfModel } from "./crf-model.js";
import {
  loadModelFromBytes,
  ModelFileError,
  modelToBytes,
  type SaveOptions,
} from "./model-file.js";

/**
 * Writes a model file atomically with core's one atomic writer (temporary file beside it, fsync,
 * rename), so a reader never sees a half written model and a crash leaves the old one in place.
 * Node only: in a browser it fails with a message saying to use modelToBytes.
 */
export async function saveModel(
  model: CrfModel,
  path: string,
  options: SaveOptions = {},
): Promise<void> {
  const { writeFileAtomic } = await import("#platform");
  // A failed write is an I/O error naming the file (FileWriteError), never "malformed".
  await writeFileAtomic(path, modelToBytes(model, options));
}

/**
 * Reads and validates a model file (Node only). A file that cannot be opened (missing,
 * unreadable: core's `InputFileError`) is a `usage` error naming it, not a malformed model; the
 * signal stops the wait for a FIFO's writer.
 */
export async function loadModel(
  path: string,
  options: { readonly signal?: AbortSignal } = {},
): Promise<CrfModel> {
  const { readFileBytes } = await import("#platform");
  const bytes = await wrapReadFailure(
    readFileBytes(path, options.signal),
    (message) => new ModelFileError(path, `cannot read the model: ${message}`),
  );
  return loadModelFromBytes(bytes, path);
}
