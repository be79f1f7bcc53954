import type { CrfModel } from "./crf-model.ts";
import {
  loadModelFromBytes,
  ModelFileError,
  modelToBytes,
  type SaveOptions,
} from "./model-file.ts";

/**
 * Writes a model file atomically: the bytes go to a temporary file in the same directory, are
 * flushed to disk, and the temporary file is renamed over `path`, so a reader never sees a half
 * written model and a crash leaves the old one in place. Node only (`node:fs` is imported on
 * call, so browser bundles of this package never load it).
 */
export async function saveModel(
  model: CrfModel,
  path: string,
  options: SaveOptions = {},
): Promise<void> {
  const fs = await import("node:fs/promises");
  const bytes = modelToBytes(model, options);
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  let handle: Awaited<ReturnType<typeof fs.open>> | null = null;
  try {
    handle = await fs.open(temp, "wx");
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    handle = null;
    await fs.rename(temp, path);
  } catch (error) {
    if (handle !== null) await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw new ModelFileError(path, `cannot write the model: ${(error as Error).message}`);
  }
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
