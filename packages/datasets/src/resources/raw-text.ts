import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { inputFileError, readInput } from "@lagrange/core/node";
import { openFileChunks } from "#platform";
import { DataFormatError } from "../formats/errors.js";
import { sourceLines } from "../formats/io.js";
import { type DatasetInfo, datasetNames, getDataset } from "../registry/catalog.js";
import { DatasetUnavailableError } from "../registry/errors.js";
import { openDataset } from "../registry/open.js";
import { findMirrorDir, type LocateOptions, type ResolveOptions } from "../registry/resolve.js";
import { segmentText } from "../text/segment.js";
import { RAW_TEXT_CORPORA, type RawTextCorpusInfo, rawTextCorpusNames } from "./catalog.js";
import {
  alpinoSentences,
  brownLineTokens,
  cessSentences,
  underscoreLineTokens,
} from "./raw-formats.js";

export interface RawTextOptions extends LocateOptions {
  readonly signal?: AbortSignal;
  /**
   * `dataset:split` names only: how the split is resolved (mirror, cache, download), as for
   * `openDataset`. Raw-text corpora are read from the mirror only.
   */
  readonly resolve?: Omit<ResolveOptions, keyof LocateOptions | "signal">;
}

/**
 * Why a labelled split may not feed word representations, or undefined when it may: test splits
 * (sealed or not, customary or in files) and a whole file that holds a customary test split. A
 * split the dataset does not have is a `usage` error listing its splits.
 */
export function testSplitRefusal(dataset: DatasetInfo, split: string): string | undefined {
  const fileSplit = dataset.splits.find((s) => s.name === split);
  const custom = dataset.customSplits?.find((r) => r.split === split);
  if (fileSplit === undefined && custom === undefined) {
    const known = [
      ...dataset.splits.map((s) => s.name),
      ...(dataset.customSplits ?? []).map((r) => r.split),
    ];
    throw new LagrangeError(
      "usage",
      `dataset "${dataset.name}" has no split "${split}"; its splits: ${[...new Set(known)].join(", ")}`,
    );
  }
  if (split === "test" || fileSplit?.sealed === true) {
    return `${dataset.name}:${split} is a test split${fileSplit?.sealed === true ? " (sealed)" : ""}; word representations must never see test text: use its train (or dev) split`;
  }
  if (custom === undefined && dataset.customSplits?.some((r) => r.split === "test") === true) {
    return `${dataset.name}:${split} is the whole file, which holds the customary test split; word representations must never see test text: use ${dataset.name}:train`;
  }
  return undefined;
}

/** Relative paths under `root` (two levels deep at most) that `files` matches, sorted. */
function listFiles(root: string, files: RegExp): string[] {
  const found: string[] = [];
  const walk = (relative: string, depth: number) => {
    const dir = relative === "" ? root : join(root, relative);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth < 2) walk(path, depth + 1);
      } else if (files.test(path)) {
        found.push(path);
      }
    }
  };
  walk("", 0);
  return found.sort();
}

function corpusFiles(corpus: RawTextCorpusInfo, options: LocateOptions): string[] {
  const mirror = findMirrorDir(options);
  if (mirror === undefined) {
    throw new DatasetUnavailableError(
      `raw-text corpus "${corpus.name}" is read from the dataset mirror only, and no mirror was found: set LAGRANGE_DATA_DIR to a copy of shared/datasets that holds ${corpus.folder}/`,
      [],
    );
  }
  const root = join(mirror, corpus.folder);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  const files = isDir ? listFiles(root, corpus.files) : [];
  if (files.length === 0) {
    throw new DatasetUnavailableError(
      `raw-text corpus "${corpus.name}": ${root} ${isDir ? "holds none of its files" : "is not in the mirror"}; place the unzipped NLTK corpus there (see ${corpus.folder}/../SOURCE.md)`,
      [root],
    );
  }
  return files.map((f) => join(root, f));
}

async function* utf8Lines(file: string, signal: AbortSignal | undefined): AsyncGenerator<string> {
  try {
    // Raw text to cluster: its own cap, not data's.
    for await (const batch of sourceLines(openFileChunks(file, signal, "text"), file, signal)) {
      yield* batch;
    }
  } catch (error) {
    if (error instanceof LagrangeError || signal?.aborted === true) throw error;
    throw inputFileError(file, error);
  }
}

async function readBytes(file: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const read = await readInput(file, { kind: "text", ...(signal === undefined ? {} : { signal }) });
  const bytes = Buffer.from(read.buffer, read.byteOffset, read.length);
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const line = bytes.subarray(0, nul).filter((b) => b === 0x0a).length + 1;
    throw new DataFormatError(file, line, "NUL byte: expected text, found binary data");
  }
  return bytes;
}

/** Every byte above 0x7F is the lead 0xA1 of a Big5 punctuation pair (or its trail byte). */
function isBig5Punctuation(bytes: Uint8Array): boolean {
  let pairs = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) continue;
    const trail = bytes[i + 1];
    if (b !== 0xa1 || trail === undefined || trail < 0x40 || trail === 0x7f || trail === 0xff) {
      return false;
    }
    i++;
    pairs++;
  }
  return pairs > 0;
}

/**
 * The text of a raw-text file whose encoding is not declared: UTF-8 where the bytes are valid
 * UTF-8 (almost every file); else Big5 where every non-ASCII byte is in a Big5 punctuation pair
 * (`A1 A6` is `’`, `A1 58` `—`: six 1970s State of the Union files); else ISO-8859-1 (ABC
 * science's `460°C`, 1954's `½¢`). Node's `latin1` is ISO-8859-1 proper (TextDecoder's
 * "latin1" label would be windows-1252).
 */
export function decodeRawText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    if (isBig5Punctuation(bytes)) return new TextDecoder("big5").decode(bytes);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  }
}

/** A file's lines, without their `\n` or a trailing `\r`. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
  }
  return lines;
}

async function* corpusSentences(
  corpus: RawTextCorpusInfo,
  files: readonly string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<string[]> {
  for (const file of files) {
    signal?.throwIfAborted();
    switch (corpus.format) {
      case "brown-tagged":
      case "underscore-tagged":
      case "tokenised": {
        const split =
          corpus.format === "brown-tagged"
            ? brownLineTokens
            : corpus.format === "underscore-tagged"
              ? underscoreLineTokens
              : whitespaceTokens;
        for (const line of linesOf(decodeRawText(await readBytes(file, signal)))) {
          const tokens = split(line);
          if (tokens.length > 0) yield tokens;
        }
        break;
      }
      case "plain":
        for (const line of linesOf(decodeRawText(await readBytes(file, signal)))) {
          for (const sentence of segmentText(line)) yield sentence.tokens.map((t) => t.text);
        }
        break;
      case "cess-trees":
        yield* cessSentences((await readBytes(file, signal)).toString("latin1"));
        break;
      case "alpino-xml":
        // The file declares ISO-8859-1 in its XML prolog.
        yield* alpinoSentences((await readBytes(file, signal)).toString("latin1"));
        break;
    }
  }
}

function whitespaceTokens(line: string): string[] {
  return line.split(/\s+/).filter((t) => t !== "");
}

async function* splitWords(
  name: string,
  split: string,
  options: RawTextOptions,
): AsyncGenerator<string[]> {
  const { signal, resolve, ...locate } = options;
  const opened = await openDataset(name, split, {
    ...locate,
    ...resolve,
    ...(signal === undefined ? {} : { signal }),
    malformed: "repair",
  });
  if (opened.status !== "available") throw new DatasetUnavailableError(opened.message, []);
  for (const sentence of opened.sentences) {
    signal?.throwIfAborted();
    if (sentence.tokens.length > 0) yield sentence.tokens.slice();
  }
}

/**
 * Sentences of tokens of a raw-text corpus of `RAW_TEXT_CORPORA` (read from the mirror only), or
 * the words of a labelled split named `dataset:split` (`conll2003:train`): its token column, every
 * sentence in file order. Test splits are refused (word representations must never see test
 * text), so is a whole file that holds a customary test split (`cora-references:all`). An unknown
 * name or split is a `usage` error and a missing mirror a `DatasetUnavailableError`, both thrown
 * by this call; malformed files fail while iterating, as a DataFormatError at file:line.
 */
export function openRawText(name: string, options: RawTextOptions = {}): AsyncIterable<string[]> {
  const colon = name.lastIndexOf(":");
  if (colon >= 0) {
    const datasetName = name.slice(0, colon);
    const split = name.slice(colon + 1);
    const dataset = getDataset(datasetName, options.catalog);
    const refusal = testSplitRefusal(dataset, split);
    if (refusal !== undefined) throw new LagrangeError("usage", refusal);
    return splitWords(datasetName, split, options);
  }
  const corpus = RAW_TEXT_CORPORA.find((c) => c.name === name);
  if (corpus === undefined) {
    throw new LagrangeError(
      "usage",
      `unknown raw-text corpus "${name}"; known: ${rawTextCorpusNames().join(", ")}, or a labelled split as dataset:split (datasets: ${datasetNames(options.catalog).join(", ")})`,
    );
  }
  const files = corpusFiles(corpus, options);
  return corpusSentences(corpus, files, options.signal);
}

/**
 * Plain text as token sequences: one sentence a line, tokens split on whitespace, blank lines
 * skipped. UTF-8 (a BOM is dropped); invalid UTF-8, NUL bytes and lone carriage returns are a
 * DataFormatError at `file`:line, an unreadable file an InputFileError naming it.
 */
export async function* readPlainTextTokens(
  file: string,
  options: { readonly signal?: AbortSignal } = {},
): AsyncGenerator<string[]> {
  for await (const line of utf8Lines(file, options.signal)) {
    const tokens = whitespaceTokens(line);
    if (tokens.length > 0) yield tokens;
  }
}
