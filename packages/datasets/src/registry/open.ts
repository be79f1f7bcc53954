import { readConllFile } from "../formats/conll.js";
import { readConlluFile } from "../formats/conllu.js";
import type { InlineLabelMode } from "../formats/inline.js";
import { readInlineTagsFile } from "../formats/inline.js";
import {
  type CitationReport,
  type MalformedCitationPolicy,
  readUmassCitationsFile,
} from "../formats/umass.js";
import type { Sentence } from "../sentence.js";
import { type DatasetInfo, type DatasetSplitInfo, getDataset } from "./catalog.js";
import {
  type AbsentSplit,
  type ResolveOptions,
  resolveSplit,
  type SplitSource,
} from "./resolve.js";

export interface OpenDatasetOptions extends ResolveOptions {
  /** UMass citations: what to do with the 21 malformed lines (default `error`). */
  readonly malformed?: MalformedCitationPolicy;
  /** Inline formats: `bio` (default), `path` or `leaf` labels. */
  readonly labels?: InlineLabelMode;
}

export interface OpenedSplit {
  readonly status: "available";
  readonly dataset: DatasetInfo;
  /** The file split read; for a customary split (Cora train/test) the file's `all` split. */
  readonly split: DatasetSplitInfo;
  readonly source: SplitSource;
  readonly path: string;
  readonly sentences: Sentence[];
  /** UMass citations only: lines repaired or skipped under a lenient `malformed` policy. */
  readonly report?: CitationReport;
}

/**
 * Resolves a split (mirror, cache, download) and reads it with the reader of its format. A
 * customary split of a file that has none (Cora `train`/`test`) reads the whole file and keeps
 * the registered record range. A sealed split absent from the mirror comes back `absent`.
 */
export async function openDataset(
  name: string,
  split: string,
  options: OpenDatasetOptions = {},
): Promise<OpenedSplit | AbsentSplit> {
  const dataset = getDataset(name, options.catalog);
  const range = dataset.customSplits?.find((r) => r.split === split);
  const fileSplit = range === undefined ? split : "all";
  const resolved = await resolveSplit(name, fileSplit, options);
  if (resolved.status === "absent") return resolved;
  const { path } = resolved;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const fo = dataset.formatOptions;
  let sentences: Sentence[];
  let report: CitationReport | undefined;
  switch (dataset.format) {
    case "conll": {
      const labelIndex =
        fo.labelColumn === undefined ? undefined : fo.columns?.indexOf(fo.labelColumn);
      sentences = await readConllFile(path, {
        ...signal,
        ...(fo.separator === undefined
          ? {}
          : { separator: fo.separator === "\t" ? "tab" : "space" }),
        ...(labelIndex === undefined || labelIndex < 0 ? {} : { labelColumn: labelIndex }),
        ...(fo.documentMarker === undefined ? {} : { documentMarker: fo.documentMarker }),
      });
      break;
    }
    case "conllu":
      sentences = await readConlluFile(path, {
        ...signal,
        ...(fo.labelColumn === "XPOS" ? { labelField: "XPOS" } : { labelField: "UPOS" }),
      });
      break;
    case "umass-nested": {
      const read = await readUmassCitationsFile(path, {
        ...signal,
        ...(options.malformed === undefined ? {} : { malformed: options.malformed }),
        ...(options.labels === undefined ? {} : { labels: options.labels }),
      });
      sentences = read.sentences;
      report = read.report;
      break;
    }
    case "inline-flat":
      sentences = await readInlineTagsFile(path, {
        ...signal,
        ...(fo.recordMarker === undefined ? {} : { recordSeparator: fo.recordMarker }),
        ...(options.labels === undefined ? {} : { labels: options.labels }),
      });
      break;
  }
  if (range !== undefined) sentences = sentences.slice(range.start, range.start + range.count);
  return {
    status: "available",
    dataset,
    split: resolved.split,
    source: resolved.source,
    path,
    sentences,
    ...(report === undefined ? {} : { report }),
  };
}
