import { existsSync, statSync } from "node:fs";
import { type CrfModel, loadModel } from "@lagrange/chain-crf";
import { LagrangeError, lagrangeErrorCode } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import { type OpenCorpusOptions, openCorpus } from "@lagrange/datasets/node";
import { usageError } from "./exit-codes.js";

/**
 * A file the command line names must exist and be a file: a missing one is a usage error (exit
 * 2) naming the option, the same for every option (a model, constraints, a plug-in, data).
 */
export function requireFile(option: string, path: string): void {
  if (!existsSync(path)) throw usageError(`${option} ${path}: no such file`);
  if (statSync(path).isDirectory()) {
    throw usageError(`${option} ${path}: is a directory; expected a file`);
  }
}

/** `--model`: present (exit 2 otherwise), then read and validated (exit 3 when malformed). */
export async function readModel(path: string, option = "--model"): Promise<CrfModel> {
  requireFile(option, path);
  return loadModel(path);
}

/**
 * `--data`, `--dev`: a registry name[:split] or a path. Usage errors (no such file or name, an
 * unknown split or format) name the option; malformed data names its file and line itself.
 */
export async function openData(
  option: string,
  spec: string,
  options: OpenCorpusOptions,
): Promise<Corpus> {
  try {
    return await openCorpus(spec, options);
  } catch (error) {
    if (lagrangeErrorCode(error) === "usage") {
      throw new LagrangeError("usage", `${option}: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }
}
