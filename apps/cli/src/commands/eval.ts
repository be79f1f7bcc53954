import {
  type ChunkEvaluation,
  conllevalReport,
  evaluateConllText,
  evaluateSegments,
} from "@lagrange/datasets";
import type { DepsPunctuation } from "../define/values.js";
import { badInputError, usageError } from "../exit-codes.js";
import { readNamedText, requireFile } from "../inputs.js";
import { depsCommand } from "./eval-deps.js";

export interface EvalOptions {
  readonly json?: boolean;
  readonly raw?: boolean;
  readonly delimiter?: string;
  readonly outside?: string;
  readonly latex?: boolean;
  readonly hierarchical?: boolean;
}

async function readInput(path: string): Promise<string> {
  if (path !== "-") {
    // Missing or unreadable: a usage error (exit 2) naming it; a FIFO or a pipe is read to its end.
    requireFile("prediction file", path);
    return readNamedText("prediction file", path);
  }
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  } catch (error) {
    throw badInputError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

const percent = (x: number) => Math.round(x * 10000) / 100;

/** conlleval's figures as JSON, in percent like conlleval. */
export function evaluationJson(evaluation: ChunkEvaluation): unknown {
  const perType: Record<string, unknown> = {};
  for (const [type, e] of Object.entries(evaluation.perType)) {
    perType[type] = {
      precision: percent(e.precision),
      recall: percent(e.recall),
      f1: percent(e.f1),
      count: e.count,
    };
  }
  return {
    tokenAccuracy: percent(evaluation.tokenAccuracy),
    precision: percent(evaluation.precision),
    recall: percent(evaluation.recall),
    f1: percent(evaluation.f1),
    perType,
  };
}

const HIERARCHICAL_LABEL = /^[BIES]-[^/\s]+\/\S/;

/** True when the gold column carries hierarchical labels such as `I-authors/B-person`. */
function looksHierarchical(text: string): boolean {
  let seen = 0;
  for (const line of text.split("\n", 5000)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 2) continue;
    if (HIERARCHICAL_LABEL.test(fields[fields.length - 2]!)) return true;
    if (++seen > 2000) break;
  }
  return false;
}

/** Gold = second-to-last column, prediction = last column; blank lines end sentences. */
function labelColumns(text: string, file: string): { gold: string[][]; predicted: string[][] } {
  const gold: string[][] = [];
  const predicted: string[][] = [];
  let g: string[] = [];
  let p: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("-DOCSTART-")) {
      if (g.length > 0) {
        gold.push(g);
        predicted.push(p);
        g = [];
        p = [];
      }
      continue;
    }
    const fields = line.split(/\s+/);
    if (fields.length < 2) {
      throw badInputError(
        `${file}:${i + 1}: expected at least 2 columns (gold, prediction), got 1`,
      );
    }
    g.push(fields[fields.length - 2]!);
    p.push(fields[fields.length - 1]!);
  }
  if (g.length > 0) {
    gold.push(g);
    predicted.push(p);
  }
  return { gold, predicted };
}

export async function evalCommand(file: string, options: EvalOptions): Promise<string> {
  const text = await readInput(file);
  const name = file === "-" ? "<stdin>" : file;
  const conllOptions = {
    file: name,
    ...(options.raw ? { raw: true } : {}),
    ...(options.delimiter === undefined ? {} : { delimiter: options.delimiter }),
    ...(options.outside === undefined ? {} : { outside: options.outside }),
    ...(options.latex ? { latex: true } : {}),
  };
  const hierarchical = options.hierarchical ?? looksHierarchical(text);
  if (hierarchical) {
    const { gold, predicted } = labelColumns(text, name);
    const e = evaluateSegments(gold, predicted);
    if (options.json) {
      return `${JSON.stringify({ ...(evaluationJson(e) as object), perLevel: e.perLevel.map((l) => ({ precision: percent(l.precision), recall: percent(l.recall), f1: percent(l.f1), count: l.count })) })}\n`;
    }
    const lines = [
      `processed ${e.tokens} tokens with ${e.goldChunks} gold segments at all levels; found: ${e.predictedChunks} segments; correct: ${e.correctChunks}.`,
      `field F1 (all levels): precision: ${(100 * e.precision).toFixed(2)}%; recall: ${(100 * e.recall).toFixed(2)}%; F1: ${(100 * e.f1).toFixed(2)}; token accuracy: ${(100 * e.tokenAccuracy).toFixed(2)}%`,
      ...e.perLevel.map(
        (l, k) =>
          `level ${k}: precision: ${(100 * l.precision).toFixed(2)}%; recall: ${(100 * l.recall).toFixed(2)}%; F1: ${(100 * l.f1).toFixed(2)}  ${l.count}`,
      ),
      ...Object.entries(e.perType).map(
        ([type, t]) =>
          `${type.padStart(17)}: precision: ${(100 * t.precision).toFixed(2).padStart(6)}%; recall: ${(100 * t.recall).toFixed(2).padStart(6)}%; F1: ${(100 * t.f1).toFixed(2).padStart(6)}  ${t.count}`,
      ),
    ];
    return `${lines.join("\n")}\n`;
  }
  if (options.json)
    return `${JSON.stringify(evaluationJson(evaluateConllText(text, conllOptions)))}\n`;
  return conllevalReport(text, conllOptions);
}

interface EvalFlags extends EvalOptions {
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
  const { flat, hierarchical, deps: _, punctuation: __, ...rest } = opts;
  const choice = hierarchical === true ? true : flat === true ? false : undefined;
  process.stdout.write(
    await evalCommand(pred, {
      ...rest,
      ...(choice === undefined ? {} : { hierarchical: choice }),
    }),
  );
}
