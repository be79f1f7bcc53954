import { crfsuiteModelFromBytes, modelToBytes } from "@lagrange/chain-crf";
import { readNamedInput, requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";

export interface ImportOptions {
  readonly from: "crfsuite";
  readonly out: string;
}

/** `lagrange import`: returns the summary line; the model is written atomically. */
export async function importCommand(
  path: string,
  options: ImportOptions,
  signal?: AbortSignal,
): Promise<string> {
  requireFile("model", path);
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    // Unreadable: a usage error naming it (exit 2), as a missing file is; a pipe is read to its end.
    const bytes = await readNamedInput("model", path, signal);
    const model = crfsuiteModelFromBytes(bytes, path);
    // float64: CRFsuite's weights are doubles; float32 would change scores (rarely, tags).
    await output.write(modelToBytes(model, { precision: "float64" }));
    const s = model.summary();
    return `imported a CRFsuite model: ${s.labels.length} labels, ${s.attributes} attributes, ${s.stateFeatures} state features; no feature preset, so it tags CRFsuite attribute lists (the library's CrfModel.tag), not "lagrange tag" columns; wrote ${options.out}\n`;
  });
}

/** What `lagrange import` does (its options are declared in ../define/import.ts). */
export async function importAction(path: string, opts: ImportOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => importCommand(path, opts, signal)));
}
