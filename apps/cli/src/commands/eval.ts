import { LagrangeError } from "@lagrange/core";
import { endsInConfidences, readTaggedConllu } from "@lagrange/datasets";
import { badInputError, usageError } from "../exit-codes.js";
import { readNamedText, requireFile } from "../inputs.js";
import { warn } from "../progress.js";
import { conllReport, type EvalOptions } from "./eval-conll.js";
import { conlluReport } from "./eval-conllu.js";
import { type DepsPunctuation, depsCommand } from "./eval-deps.js";

async function readInput(path: string): Promise<string> {
  if (path !== "-") {
    // Missing or unreadable: a usage error (exit 2) naming it; a FIFO or a pipe is read to its end.
    requireFile("prediction file", path);
    return readNamedText("prediction file", path, undefined, "predictions");
  }
  try {
    // Through the one opener, under the predictions cap, as a file is.
    return await readNamedText("prediction file", "/dev/stdin", undefined, "predictions");
  } catch (error) {
    if (error instanceof LagrangeError) throw error;
    throw badInputError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Options the n-best oracle does not read: refused rather than silently dropped. */
const NBEST_UNREAD: readonly [keyof EvalOptions, string][] = [
  ["confidence", "--confidence"],
  ["raw", "--raw"],
  ["delimiter", "--delimiter"],
  ["outside", "--outside"],
  ["latex", "--latex"],
  ["hierarchical", "--hierarchical/--flat"],
  ["column", "--column"],
];

/**
 * `lagrange eval pred`: `lagrange tag`'s output of CoNLL-U by token accuracy against a POS field,
 * any other file as CoNLL columns (conlleval's report).
 */
export async function evalCommand(file: string, options: EvalOptions): Promise<string> {
  if (options.reliability !== undefined && options.confidence !== true) {
    throw usageError("--reliability draws the calibration of --confidence: give --confidence too");
  }
  const text = await readInput(file);
  const name = file === "-" ? "<stdin>" : file;
  if (options.nbest !== undefined) {
    const unread = NBEST_UNREAD.filter(([key]) => options[key] !== undefined).map(([, f]) => f);
    if (unread.length > 0) {
      throw usageError(
        `${unread.join(", ")}: not read with --nbest (oracle chunk F1, conlleval's defaults)`,
      );
    }
    const { nbestOracleReport } = await import("./eval-nbest.js");
    return nbestOracleReport(text, name, options.nbest, options.json === true);
  }
  if (options.confidence === true) {
    const { confidenceReport } = await import("./eval-confidence.js");
    return confidenceReport(text, name, { ...options, input: file });
  }
  if (endsInConfidences(text)) {
    warn(
      `${name}: the last column holds probabilities (lagrange tag --marginals); scored as the prediction unless you add --confidence`,
    );
  }
  const conllu = readTaggedConllu(text, name, options.column !== undefined);
  if (conllu !== undefined) return conlluReport(conllu, options);
  return conllReport(text, name, options);
}

interface EvalFlags extends Omit<EvalOptions, "column"> {
  readonly column?: "upos" | "xpos";
  readonly flat?: boolean;
  readonly deps?: boolean;
  readonly punctuation?: DepsPunctuation;
}

/** conlleval's options: none of them means anything to `--deps`. */
const CONLLEVAL_OPTIONS: readonly [keyof EvalFlags, string][] = [
  ["raw", "--raw"],
  ["delimiter", "--delimiter"],
  ["outside", "--outside"],
  ["latex", "--latex"],
  ["hierarchical", "--hierarchical"],
  ["flat", "--flat"],
  ["column", "--column"],
  ["confidence", "--confidence"],
  ["nbest", "--nbest"],
  ["reliability", "--reliability"],
];

/** What `lagrange eval` does (its options are declared in ../define/eval.ts). */
export async function evalAction(
  pred: string,
  predicted: string | undefined,
  opts: EvalFlags,
): Promise<void> {
  if (opts.deps === true) {
    const given = CONLLEVAL_OPTIONS.filter(([key]) => opts[key] !== undefined).map(
      ([, name]) => name,
    );
    if (given.length > 0) {
      throw usageError(`${given.join(", ")}: conlleval's options; --deps scores trees`);
    }
    if (predicted === undefined) {
      throw usageError("--deps needs two files: the gold CoNLL-U, then the predicted one");
    }
    process.stdout.write(
      await depsCommand(pred, predicted, {
        punctuation: opts.punctuation ?? "both",
        json: opts.json === true,
      }),
    );
    return;
  }
  if (predicted !== undefined) {
    throw usageError(
      `a second file (${predicted}) is for --deps (gold and predicted CoNLL-U); conlleval reads gold and predictions from the columns of one file`,
    );
  }
  if (opts.punctuation !== undefined) {
    throw usageError("--punctuation is an option of --deps (dependency trees)");
  }
  const { flat, hierarchical, deps: _, punctuation: __, column, ...rest } = opts;
  const choice = hierarchical === true ? true : flat === true ? false : undefined;
  process.stdout.write(
    await evalCommand(pred, {
      ...rest,
      ...(choice === undefined ? {} : { hierarchical: choice }),
      ...(column === undefined ? {} : { column: column === "xpos" ? "XPOS" : "UPOS" }),
    }),
  );
}
