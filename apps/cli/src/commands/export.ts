import { crfsuiteModelToBytes, presets } from "@lagrange/chain-crf";
import { usageError } from "../exit-codes.js";
import { readModel } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";

export interface ExportOptions {
  readonly to: "crfsuite";
  readonly model: string;
  readonly out: string;
  readonly boundaryAttributes?: string;
}

/** `lagrange export`: returns the summary line; the file is written atomically. */
export async function exportCommand(options: ExportOptions, signal?: AbortSignal): Promise<string> {
  const boundary = boundaryAttributes(options.boundaryAttributes);
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const model = await readModel(options.model, "--model", signal);
    // Every built-in preset ends the first and last token's lists with __BOS__ / __EOS__.
    const builtIn = model.preset !== null && Object.hasOwn(presets, model.preset);
    const carry = boundary ?? (builtIn ? { first: "__BOS__", last: "__EOS__" } : undefined);
    const bytes = crfsuiteModelToBytes(
      model,
      carry === undefined ? {} : { boundaryAttributes: carry },
    );
    await output.write(bytes);
    return `exported ${model.numLabels} labels to a CRFsuite model (${bytes.length} bytes)${model.layout.startBase >= 0 && carry !== undefined ? `; first/last-label weights on ${carry.first} / ${carry.last}` : ""}; wrote ${options.out}\n`;
  });
}

function boundaryAttributes(
  value: string | undefined,
): { first: string; last: string } | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(",");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") {
    throw usageError(
      `--boundary-attributes ${JSON.stringify(value)}: expected two attribute names, first,last (e.g. __BOS__,__EOS__)`,
    );
  }
  return { first: parts[0]!, last: parts[1]! };
}

/** What `lagrange export` does (its options are declared in ../define/export.ts). */
export async function exportAction(opts: ExportOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => exportCommand(opts, signal)));
}
