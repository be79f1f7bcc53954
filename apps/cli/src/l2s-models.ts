import { type CrfModel, loadModelFromBytes } from "@lagrange/chain-crf";
import { type InputStream, InputTooLargeError, openInput } from "@lagrange/core/node";
import { isL2sModelFile, type L2sModel, l2sModelFromBytes } from "@lagrange/l2s";
import { L2S_PARSER_TASK, L2S_TAGGER_TASK, type L2sTagger, l2sTaggerOf } from "@lagrange/recipes";
import { usageError } from "./exit-codes.js";
import { keepPipeInput, readModelBytes, startsLikeAModel } from "./inputs.js";

/** A model file of either kind: a CRF (chain-crf's format) or a learning-to-search model. */
export type AnyModel =
  | { readonly kind: "crf"; readonly model: CrfModel }
  | { readonly kind: "l2s"; readonly model: L2sModel };

/**
 * Whether a file starts with the learning-to-search magic. False when it cannot be read: the CRF
 * reader then says why, as it always has. A regular file gives its first bytes; a pipe or a FIFO
 * is read whole (and kept for the reader that follows: it cannot be read twice), without a
 * thread waiting on it, so that `signal` stops the wait for its writer.
 */
export async function isL2sModelPath(path: string, signal?: AbortSignal): Promise<boolean> {
  let input: InputStream | undefined;
  try {
    input = await openInput(path, {
      kind: "model",
      chunkBytes: 8,
      ...(signal === undefined ? {} : { signal }),
    });
    if (input.kind !== "file") {
      return isL2sModelFile(await keepPipeInput(path, input, startsLikeAModel));
    }
    for await (const head of input) return isL2sModelFile(head);
    return false;
  } catch (error) {
    // A pipe over the model cap is refused here, not read again by the CRF reader.
    if (signal?.aborted === true || error instanceof InputTooLargeError) throw error;
    return false;
  } finally {
    input?.close();
  }
}

/** An L2S model named on the command line (read once: see {@link readModelBytes}). */
export async function readL2sModel(
  path: string,
  option = "--model",
  signal?: AbortSignal,
): Promise<L2sModel> {
  return l2sModelFromBytes(await readModelBytes(path, option, signal), path);
}

/** A model named on the command line: present (exit 2 otherwise), read by its own format's reader. */
export async function readAnyModel(
  path: string,
  option = "--model",
  signal?: AbortSignal,
): Promise<AnyModel> {
  const bytes = await readModelBytes(path, option, signal);
  if (isL2sModelFile(bytes)) return { kind: "l2s", model: l2sModelFromBytes(bytes, path) };
  return { kind: "crf", model: loadModelFromBytes(bytes, path) };
}

/** What a model is, in a message's words: "an L2S parser model (lagrange train --learner l2s --task parser)". */
export function describeModel(model: AnyModel): string {
  if (model.kind === "crf") return "a CRF tagger model (lagrange train)";
  switch (model.model.task) {
    case L2S_TAGGER_TASK:
      return "an L2S tagger model (lagrange train --learner l2s --task pos|ner)";
    case L2S_PARSER_TASK:
      return "an L2S dependency parser model (lagrange train --learner l2s --task parser)";
    default:
      return `a learning-to-search ${model.model.task} model`;
  }
}

/** An L2S tagger from a model file, or a usage error that says which command fits the model. */
export function requireL2sTagger(model: L2sModel, path: string, option = "--model"): L2sTagger {
  if (model.task === L2S_PARSER_TASK) {
    throw usageError(
      `${option} ${path} is ${describeModel({ kind: "l2s", model })}: it parses, it does not tag; ${option === "--model" ? `use lagrange parse --model ${path}` : "give it to lagrange parse as --model"}`,
    );
  }
  return l2sTaggerOf(model);
}
