import { createHash } from "node:crypto";
import { type CrfModel, crfsuiteModelFromBytes, loadModelFromBytes } from "@lagrange/chain-crf";
import type { JsonValue } from "@lagrange/core";
import { isL2sModelFile } from "@lagrange/l2s";
import { usageError } from "../exit-codes.js";
import { readModelBytes } from "../inputs.js";
import type { TrainOptions } from "./train.js";

/** The model `--init` names: read, and identified by its bytes. */
export interface InitModel {
  readonly model: CrfModel;
  readonly file: string;
  /** What the continued model records of it: the file, its SHA-256, its kind. */
  readonly identity: { readonly [key: string]: JsonValue };
}

/**
 * `--init`: a Lagrange CRF model file, or a CRFsuite one (read as `lagrange import` reads it).
 * A missing or unreadable file is a usage error naming it; a malformed one is bad input naming it.
 */
export async function readInitModel(path: string, signal?: AbortSignal): Promise<InitModel> {
  const bytes = await readModelBytes(path, "--init", signal);
  if (isL2sModelFile(bytes)) {
    throw usageError(
      `--init ${path}: a learning-to-search model; --init continues a CRF model (from lagrange train, or a CRFsuite model)`,
    );
  }
  const crfsuite = bytes.length >= 4 && new TextDecoder().decode(bytes.subarray(0, 4)) === "lCRF";
  const model = crfsuite ? crfsuiteModelFromBytes(bytes, path) : loadModelFromBytes(bytes, path);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return {
    model,
    file: path,
    identity: { file: path, sha256, kind: crfsuite ? "crfsuite" : "lagrange" },
  };
}

/** Options that name features or a model kind, which `--init` takes from its model instead. */
const REFUSED_WITH_INIT: readonly [keyof TrainOptions, string][] = [
  ["template", "--template"],
  ["columns", "--columns"],
  ["clusters", "--clusters"],
  ["lexicon", "--lexicon"],
  ["resources", "--resources"],
  ["denseColumns", "--dense-columns"],
  ["twoStage", "--two-stage"],
  ["groups", "--groups"],
];

/** `--init` with options it cannot honour: a usage error naming them. */
export function checkInitOptions(options: TrainOptions): void {
  if (options.init === undefined) return;
  const given = REFUSED_WITH_INIT.filter(([key]) => options[key] !== undefined).map(
    ([, flag]) => flag,
  );
  if (options.model === "general") given.push("--model general");
  if (given.length > 0) {
    throw usageError(
      `${given.join(", ")} with --init: continued training keeps the initial model's features and trains a chain CRF (a compatible --preset is accepted)`,
    );
  }
}

/** The summary's words for what continued training added: "continued from m.lgm (+1 label, +20 attributes)". */
export function continuedText(init: InitModel, model: CrfModel): string {
  const labels = model.labels.size - init.model.labels.size;
  const attributes = model.attributes.size - init.model.attributes.size;
  const plural = (n: number, word: string) => `+${n} ${word}${n === 1 ? "" : "s"}`;
  return `; continued from ${init.file} (${plural(labels, "label")}, ${plural(attributes, "attribute")})`;
}
