import { type Stats, statSync } from "node:fs";
import { extname } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { inputFileError } from "@lagrange/core/node";
import { readConllFile } from "../formats/conll.js";
import { readConlluFile } from "../formats/conllu.js";
import { readInlineTagsFile } from "../formats/inline.js";
import {
  type CitationReport,
  type MalformedCitationPolicy,
  readUmassCitationsFile,
} from "../formats/umass.js";
import { inferScheme, type LabelScheme } from "../schemes/label-scheme.js";
import {
  isPartialLabelCell,
  type PartialLabel,
  parsePartialLabel,
} from "../schemes/partial-labels.js";
import type { Sentence } from "../sentence.js";
import { datasetNames, type TagScheme } from "./catalog.js";
import { CORPUS_FORMATS, type Corpus, type CorpusFormat, withoutLabels } from "./corpus-model.js";
import { DatasetUnavailableError } from "./errors.js";
import { openDataset } from "./open.js";

/** File formats a corpus path may have. */

export interface OpenCorpusOptions {
  /** For a path: `conll`, `conllu`, `umass` or `inline` (default from the extension). */
  readonly format?: string;
  /** Malformed UMass lines (default `error`). */
  readonly malformed?: MalformedCitationPolicy;
  /** The split of a registry name given without one (default `train`). */
  readonly defaultSplit?: string;
  /**
   * The data carries no gold labels: every column is an input (CoNLL columns), the UMass and
   * inline tags are ignored. Default: a CoNLL file's last column is the gold label when there are
   * two or more.
   */
  readonly unlabeled?: boolean;
  readonly signal?: AbortSignal;
}

/** The format `openCorpus` reads a path in when none is given: by its extension, CoNLL by default. */
export function formatOfPath(path: string): CorpusFormat {
  switch (extname(path).toLowerCase()) {
    case ".conllu":
      return "conllu";
    case ".docs":
      return "umass";
    default:
      return "conll";
  }
}

const REGISTRY_FORMAT: Record<string, CorpusFormat> = {
  conll: "conll",
  conllu: "conllu",
  "umass-nested": "umass",
  "inline-flat": "inline",
};

const CATALOGUE_SCHEME: Record<TagScheme, LabelScheme> = {
  IOB1: "IOB1",
  IOB2: "IOB2",
  "hierarchical-BIO": "hierarchical-BIO",
  inline: "IOB2",
  tags: "none",
};

function schemeOfFile(format: CorpusFormat, sentences: readonly Sentence[]): LabelScheme {
  switch (format) {
    case "umass":
      return "hierarchical-BIO";
    case "conllu":
      return "none";
    case "inline":
      return "IOB2";
    case "conll":
      return inferScheme(
        sentences.flatMap((s) => (s.labels === undefined ? [] : [schemeEvidence(s.labels)])),
      );
  }
}

/**
 * Labels as evidence of their scheme: partial annotations (`?`, `{B-PER,I-PER}`) are read as such
 * whether or not the data will be trained on as partial, so that they do not make every sequence
 * that holds one look invalid; a malformed one says nothing here and is reported where the labels
 * are read for training.
 */
function schemeEvidence(labels: readonly string[]): readonly PartialLabel[] {
  if (!labels.some(isPartialLabelCell)) return labels;
  return labels.map((cell) => {
    if (!isPartialLabelCell(cell)) return cell;
    try {
      return parsePartialLabel(cell);
    } catch {
      return null;
    }
  });
}

/**
 * What `spec` names on disk, if anything (then it is read as a file, never looked up as a
 * registry name). A path that exists but cannot be reached — in a folder that cannot be searched
 * — is an `InputFileError` ("cannot be read (permission denied)"), not "no such file".
 */
function statOfPath(spec: string): Stats | undefined {
  try {
    return statSync(spec);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG") return undefined;
    throw inputFileError(spec, error);
  }
}

/**
 * Reads `spec`: a file path (format from `options.format` or the extension), or a registry name
 * with an optional split (`conll2000:test`). Unknown formats and names are usage errors (code
 * `usage`); a registered split that cannot be reached is a {@link DatasetUnavailableError}.
 */
export async function openCorpus(spec: string, options: OpenCorpusOptions = {}): Promise<Corpus> {
  const malformed = options.malformed ?? "error";
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const stats = statOfPath(spec);
  if (stats !== undefined) {
    if (stats.isDirectory()) {
      throw new LagrangeError("usage", `${spec}: is a directory; expected a data file`);
    }
    const given = options.format ?? formatOfPath(spec);
    if (!(CORPUS_FORMATS as readonly string[]).includes(given)) {
      throw new LagrangeError(
        "usage",
        `unknown format "${given}"; expected one of ${CORPUS_FORMATS.join(", ")}`,
      );
    }
    const format = given as CorpusFormat;
    let sentences: Sentence[];
    let report: CitationReport | undefined;
    switch (format) {
      case "conll":
        sentences = await readConllFile(spec, signal);
        break;
      case "conllu":
        sentences = await readConlluFile(spec, signal);
        break;
      case "inline":
        sentences = await readInlineTagsFile(spec, signal);
        break;
      case "umass": {
        const read = await readUmassCitationsFile(spec, { ...signal, malformed });
        sentences = read.sentences;
        report = read.report;
        break;
      }
    }
    if (options.unlabeled === true) sentences = sentences.map((s) => withoutLabels(s, format));
    return {
      label: spec,
      format,
      sentences,
      scheme: schemeOfFile(format, sentences),
      ...(report === undefined ? {} : { report }),
    };
  }
  const colon = spec.lastIndexOf(":");
  const name = colon < 0 ? spec : spec.slice(0, colon);
  const split = colon < 0 ? (options.defaultSplit ?? "train") : spec.slice(colon + 1);
  if (!datasetNames().includes(name)) {
    throw new LagrangeError(
      "usage",
      `${spec}: no such file, and "${name}" is not a registered dataset (known: ${datasetNames().join(", ")})`,
    );
  }
  const opened = await openDataset(name, split, { ...signal, malformed });
  if (opened.status !== "available") throw new DatasetUnavailableError(opened.message, []);
  const format = REGISTRY_FORMAT[opened.dataset.format] ?? "conll";
  return {
    label: `${name}:${split}`,
    dataset: name,
    format,
    sentences:
      options.unlabeled === true
        ? opened.sentences.map((s) => withoutLabels(s, format))
        : opened.sentences,
    scheme: CATALOGUE_SCHEME[opened.dataset.formatOptions.scheme],
    ...(opened.report === undefined ? {} : { report: opened.report }),
  };
}
