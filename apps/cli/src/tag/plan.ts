import { existsSync, statSync } from "node:fs";
import { formatOfPath } from "@lagrange/datasets/node";
import type { SequenceTagger, TagRequest } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { threadCount } from "../options.js";
import { warn } from "../progress.js";
import type { TagOptions } from "./options.js";

/** A path read as NDJSON when no --format says otherwise. */
const NDJSON_PATH = /\.(nd)?jsonl?$/i;

/**
 * How `lagrange tag` runs: `stream` (CoNLL or NDJSON records in bounded memory, a sentence-unit
 * tagger), `whole` (the input read first: other formats, a corpus-unit tagger, --nbest and
 * --forced) or `attributes` (CRFsuite's data format, streamed through the attribute lists).
 */
export interface TagPlan {
  readonly route: "stream" | "whole" | "attributes";
  /** --format, else the file's extension; undefined for a registry name or standard input. */
  readonly format: string | undefined;
  readonly outputFormat: "conll" | "ndjson";
  /** What each batch asks of the tagger (`restrictions` empty: forced, filled in per batch). */
  readonly request: TagRequest;
  /** Worker threads: 1 for a corpus-unit tagger, whose sentences are not tagged apart. */
  readonly threads: number;
}

/** "--a", "--a and --b", "--a, --b and --c". */
function flagList(flags: Readonly<Record<string, boolean>>): string {
  const given = Object.keys(flags).filter((f) => flags[f]);
  return given.length < 2
    ? (given[0] ?? "")
    : `${given.slice(0, -1).join(", ")} and ${given.at(-1)}`;
}

/**
 * Every choice the command line makes checked against the tagger and the input, before any
 * sentence is read: what the tagger `can` do and its `unit` decide, never its kind. A flag it
 * cannot honour is one usage error naming the model (its description).
 */
export function planTagging(options: TagOptions, tagger: SequenceTagger): TagPlan {
  const stdin = options.data === "-";
  const file = !stdin && existsSync(options.data) && !statSync(options.data).isDirectory();
  const format =
    options.format ??
    (file ? (NDJSON_PATH.test(options.data) ? "ndjson" : formatOfPath(options.data)) : undefined);
  const marginals = options.marginals === true;
  const probability = options.probability === true;
  const forced = options.forced === true;
  const explain = options.explain === true;
  const request: TagRequest = {
    ...(marginals || probability ? { confidence: { marginals, probability } } : {}),
    ...(options.nbest === undefined ? {} : { nbest: { k: options.nbest } }),
    ...(forced ? { restrictions: [] } : {}),
    ...(explain ? { explain } : {}),
  };
  const streamOnly = flagList({
    "--data -": stdin,
    "--window": options.window !== undefined,
    "--on-error": options.onError !== undefined,
  });
  const wholeOnly = flagList({ "--nbest": options.nbest !== undefined, "--forced": forced });
  const name = `${options.model} is ${tagger.description}`;

  if (format === "crfsuite") {
    const refused = flagList({
      "--threads": options.threads !== undefined,
      "--window": options.window !== undefined,
      "--output-format": options.outputFormat !== undefined,
      "--on-error": options.onError !== undefined,
      "--explain": explain,
      "--marginals": marginals,
      "--probability": probability,
      "--nbest": options.nbest !== undefined,
      "--forced": forced,
    });
    if (refused !== "") {
      throw usageError(
        `${refused}: for CoNLL and NDJSON; --format crfsuite reads CRFsuite's format as it streams and writes one label per line`,
      );
    }
    if (!tagger.can.attributes) {
      throw usageError(
        `--format crfsuite: ${name}: it reads text columns, not CRFsuite attribute lists`,
      );
    }
    return { route: "attributes", format, outputFormat: "conll", request, threads: 1 };
  }
  if (!tagger.can.text) {
    throw usageError(
      `${name}: it reads CRFsuite attribute lists, not text columns; tag data in CRFsuite's format with --format crfsuite`,
    );
  }
  tagger.check(request);
  if (options.outputFormat === "entities") {
    throw usageError(
      "--output-format entities: for text input (--format text, or --text); CoNLL and NDJSON input is written as conll or ndjson",
    );
  }
  if (options.lineBreaks !== undefined) {
    throw usageError(
      "--line-breaks: for text input (--format text, or --text); CoNLL and NDJSON input comes in sentences already",
    );
  }
  const outputFormat = options.outputFormat ?? (format === "ndjson" ? "ndjson" : "conll");
  if (explain && outputFormat !== "ndjson") {
    throw usageError(
      "--explain: the decoder's figures are written in NDJSON only (--output-format ndjson)",
    );
  }
  if (probability && outputFormat !== "ndjson") {
    throw usageError(
      "--probability is written in NDJSON output only (--output-format ndjson, or an NDJSON --data): a CoNLL file has one line per token and no place for a sentence's figure",
    );
  }
  if (marginals && (options.nbest ?? 1) > 1 && outputFormat === "conll") {
    throw usageError("--marginals with --nbest: NDJSON output only (--output-format ndjson)");
  }
  if (wholeOnly !== "") {
    const streamed = flagList({
      "--data -": stdin,
      "--threads": options.threads !== undefined,
      "--window": options.window !== undefined,
      "--on-error": options.onError !== undefined,
      "--explain": explain,
    });
    if (streamed !== "") {
      throw usageError(
        `${wholeOnly}: the input is read whole and tagged on one thread; drop ${streamed}`,
      );
    }
    if (forced && format !== undefined && format !== "conll") {
      throw usageError(
        `--forced reads a CoNLL file whose last column fixes labels (? = free); --data ${options.data} is ${format}`,
      );
    }
  }
  if (streamOnly !== "" && tagger.unit === "corpus") {
    throw usageError(
      `${streamOnly}: ${name}: a sentence's labels depend on others in the input, so it tags a whole file (--data FILE or a registry name), not a stream`,
    );
  }
  const streams =
    (stdin || file) && (format === undefined || format === "conll" || format === "ndjson");
  if (streamOnly !== "" && !streams) {
    throw usageError(
      `--format ${format}: streaming tagging (${streamOnly}) reads conll or ndjson; other formats are read whole`,
    );
  }
  if (marginals && tagger.constrained) {
    warn(
      `--marginals with --decoder ${tagger.decoder} under constraints: these are the chain CRF's marginals, without the constraints the labels were decoded under (NDJSON marks them marginalsOf "chain-unconstrained")`,
    );
  }
  const threads =
    options.threads === undefined || tagger.unit === "corpus" ? 1 : threadCount(options.threads);
  const route = streams && tagger.unit === "sentence" && wholeOnly === "" ? "stream" : "whole";
  return { route, format, outputFormat, request, threads };
}
