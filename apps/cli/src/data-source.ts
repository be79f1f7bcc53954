import { existsSync } from "node:fs";
import { extname } from "node:path";
import {
  type CitationReport,
  datasetNames,
  openDataset,
  readConllFile,
  readConlluFile,
  readInlineTagsFile,
  readUmassCitationsFile,
  type Sentence,
} from "@lagrange/datasets";
import { CliError, ExitCode } from "./exit-codes.ts";

export const FILE_FORMATS = ["conll", "conllu", "umass", "inline"] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

export type MalformedPolicy = "error" | "repair" | "skip";

export interface LoadedData {
  /** What the user named: a path, or `name:split`. */
  readonly label: string;
  readonly sentences: Sentence[];
  /** The registry name when the data came from the registry. */
  readonly dataset?: string;
  /** `conll` data keep their columns; the label column is the last one. */
  readonly format: FileFormat;
  readonly report?: CitationReport;
}

function formatOfPath(path: string): FileFormat {
  switch (extname(path).toLowerCase()) {
    case ".conllu":
      return "conllu";
    case ".docs":
      return "umass";
    default:
      return "conll";
  }
}

const REGISTRY_FORMAT: Record<string, FileFormat> = {
  conll: "conll",
  conllu: "conllu",
  "umass-nested": "umass",
  "inline-flat": "inline",
};

/**
 * Reads `--data`: a file path (format from `--format` or the extension), or a registry name with
 * an optional split (`conll2000:test`, default split `train`).
 */
export async function loadData(
  spec: string,
  options: { format?: string; malformed?: MalformedPolicy; defaultSplit?: string } = {},
): Promise<LoadedData> {
  const malformed = options.malformed ?? "error";
  if (existsSync(spec)) {
    const format = (options.format ?? formatOfPath(spec)) as FileFormat;
    switch (format) {
      case "conll":
        return { label: spec, format, sentences: await readConllFile(spec) };
      case "conllu":
        return { label: spec, format, sentences: await readConlluFile(spec) };
      case "inline":
        return { label: spec, format, sentences: await readInlineTagsFile(spec) };
      case "umass": {
        const read = await readUmassCitationsFile(spec, { malformed });
        return { label: spec, format, sentences: read.sentences, report: read.report };
      }
      default:
        throw new CliError(
          `unknown --format "${format}"; expected one of ${FILE_FORMATS.join(", ")}`,
          ExitCode.usage,
        );
    }
  }
  const colon = spec.lastIndexOf(":");
  const name = colon < 0 ? spec : spec.slice(0, colon);
  const split = colon < 0 ? (options.defaultSplit ?? "train") : spec.slice(colon + 1);
  if (!datasetNames().includes(name)) {
    throw new CliError(
      `--data ${spec}: no such file, and "${name}" is not a registered dataset (known: ${datasetNames().join(", ")})`,
      ExitCode.usage,
    );
  }
  const opened = await openDataset(name, split, { malformed });
  if (opened.status !== "available") {
    throw new CliError(opened.message, ExitCode.unavailable);
  }
  const format = REGISTRY_FORMAT[opened.dataset.format] ?? "conll";
  return {
    label: `${name}:${split}`,
    dataset: name,
    format,
    sentences: opened.sentences,
    ...(opened.report === undefined ? {} : { report: opened.report }),
  };
}
