import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { JsonValue } from "@lagrange/chain-crf";
import {
  type AttributeSequence,
  type CrfModel,
  loadModel,
  MODEL_FORMAT_VERSION,
  saveModel,
} from "@lagrange/chain-crf";
import { modelDecodingConstraints } from "./model-scheme.js";

/**
 * How the cache stores weights: as trained, bit for bit. Model files default to float32, which
 * decodes the same in practice but not to the bit: a run that trained a model and a later one that
 * read it back reported different figures (WNUT-17's two-slave subgradient step: 98.9 % and 100 %
 * of groups certified).
 */
const CACHED_WEIGHTS = "float64";

/**
 * The key of a trained model in a cache: a hash of everything that shapes it — every training
 * sequence's attributes (which capture the data and the feature preset's code) and labels, the
 * trainer settings, the scheme, and the model file format and weight precision. A change to the
 * trainer's own code is not seen: clear the cache after one.
 */
export function modelCacheKey(
  sequences: readonly {
    readonly attributes: AttributeSequence;
    readonly labels: readonly string[];
  }[],
  settings: { readonly [key: string]: JsonValue },
): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ format: MODEL_FORMAT_VERSION, weights: CACHED_WEIGHTS, settings }));
  for (const { attributes, labels } of sequences) {
    hash.update(attributes.offsets.join(","));
    hash.update("\u0001");
    hash.update(attributes.names.join("\u0002"));
    if (attributes.values !== null) hash.update(attributes.values.join(","));
    if (attributes.transition !== null) {
      hash.update(attributes.transition.offsets.join(","));
      hash.update(attributes.transition.names.join("\u0002"));
    }
    hash.update("\u0003");
    hash.update(labels.join("\u0002"));
    hash.update("\u0004");
  }
  return hash.digest("hex").slice(0, 20);
}

/**
 * A model from the cache, or undefined (absent or unreadable: retrain). It decodes under its
 * scheme's mask like the freshly trained model did (a model file stores the scheme, not the mask).
 */
export async function cachedModel(
  dir: string,
  name: string,
  key: string,
): Promise<CrfModel | undefined> {
  const file = join(dir, `${name}-${key}.model`);
  if (!existsSync(file)) return undefined;
  try {
    const model = await loadModel(file);
    return model.withConstraints(modelDecodingConstraints(model));
  } catch {
    return undefined;
  }
}

export async function cacheModel(
  dir: string,
  name: string,
  key: string,
  model: CrfModel,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}-${key}.model`);
  await saveModel(model, file, { precision: CACHED_WEIGHTS });
  return file;
}
