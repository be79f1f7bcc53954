import { existsSync, statSync } from "node:fs";
import type { DecoderOptionValue } from "@lagrange/core";
import { formatOfPath } from "@lagrange/datasets/node";
import { type OpenedTagger, openTagger, STANDARD_DECODERS } from "@lagrange/recipes";
import { decoderOptionsGiven } from "../decoder-flags.js";
import { usageError } from "../exit-codes.js";
import { openData, readModelBytes, readNamedText, requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { note } from "../progress.js";
import { checkConfidence } from "./tag-confidence.js";
import type { TagStreamingOptions } from "./tag-stream.js";

/** A path read as NDJSON when no --format says otherwise. */
export const NDJSON_PATH = /\.(nd)?jsonl?$/i;

export interface TagOptions extends TagStreamingOptions {
  readonly model: string;
  readonly data: string;
  readonly format?: string;
  /** Default: viterbi for a linear-chain model, two-slave for a general one, greedy for an L2S tagger. */
  readonly decoder?: string;
  /** The decoder's options by their declared names (the decoder flags, `--decoder-option`). */
  readonly decoderOptions?: Readonly<Record<string, DecoderOptionValue>>;
  /** Learned constraints (`lagrange constraints learn`). */
  readonly constraints?: string;
  /** Plug-in modules that add decoders and slaves. */
  readonly plugin?: readonly string[];
  /** Plug-in slaves added to every sentence's problem. */
  readonly slave?: readonly string[];
  readonly malformed?: "error" | "repair" | "skip";
  /** The data has no gold column: every column is an input (default: read off its width). */
  readonly unlabeled?: boolean;
  readonly out?: string;
  /** Per-token marginals (CoNLL: the predicted label's, one column; NDJSON: `marginals`, `confidence`). */
  readonly marginals?: boolean;
  /** p(y|x) of each output labelling (NDJSON `probability`). */
  readonly probability?: boolean;
  /** The k best labellings (CoNLL: k−1 more columns; NDJSON: `nbest`). */
  readonly nbest?: number;
  /** The input's last column fixes labels, `?` = free (forced / partial decoding). */
  readonly forced?: boolean;
}

/**
 * How `lagrange tag` reads its input, decided once for every model kind and path: the format
 * (`--format`, else the file's extension; undefined for a registry name) and whether it streams —
 * standard input, NDJSON, a CoNLL file, or any streaming-only option. `--threads` streams what
 * streams; other formats (CoNLL-U, UMass, inline, registry names) are read whole and their
 * sentences shared among the threads.
 */
export interface TagInput {
  readonly format: string | undefined;
  readonly streams: boolean;
  /** A streaming-only option was given (standard input, --window, --output-format, …). */
  readonly streamingAsked: boolean;
}

export function tagInputOf(options: TagOptions): TagInput {
  const file = existsSync(options.data) && !statSync(options.data).isDirectory();
  const format =
    options.format ??
    (file ? (NDJSON_PATH.test(options.data) ? "ndjson" : formatOfPath(options.data)) : undefined);
  const streamingAsked =
    options.data === "-" ||
    options.window !== undefined ||
    options.outputFormat !== undefined ||
    options.onError !== undefined ||
    options.explain === true;
  const streams = streamingAsked || format === "ndjson" || (file && format === "conll");
  return { format, streams, streamingAsked };
}

/** `--data` read whole (any format the path or `--format` says; a registry name's split). */
export function readTagData(options: TagOptions, signal: AbortSignal | undefined) {
  return openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
    ...(signal === undefined ? {} : { signal }),
  });
}

/** The command line's choices as the one tagging spec, opened: the model read once, one registry. */
export async function openCommandTagger(
  options: TagOptions,
  signal: AbortSignal | undefined,
): Promise<OpenedTagger> {
  requireFile("--model", options.model);
  for (const plugin of options.plugin ?? []) requireFile("--plugin", plugin);
  return openTagger(
    {
      model: options.model,
      ...(options.decoder === undefined ? {} : { decoder: options.decoder }),
      decoderOptions: options.decoderOptions ?? {},
      ...(options.constraints === undefined
        ? {}
        : { constraints: { source: options.constraints } }),
      plugins: options.plugin ?? [],
      slaves: options.slave ?? [],
    },
    {
      readModel: (path, stop) => readModelBytes(path, "--model", stop),
      readText: (path, stop) => {
        requireFile("--constraints", path);
        return readNamedText("--constraints", path, stop);
      },
      ...(signal === undefined ? {} : { signal }),
    },
  );
}

/**
 * `lagrange tag`: writes the labelled data; returns the report line (stderr). The model is read
 * once, whatever its kind: a general CRF decodes whole groups of sentences, an L2S tagger its own
 * chain scores, a linear-chain CRF streams or reads whole as its input says.
 */
export async function tagCommand(options: TagOptions, signal?: AbortSignal): Promise<string> {
  const opened = await openCommandTagger(options, signal);
  const input = tagInputOf(options);
  checkConfidence(options, opened, input);
  if (options.nbest !== undefined || options.forced === true) {
    const { tagNBestCommand } = await import("./tag-nbest.js");
    return tagNBestCommand(options, opened, input, signal);
  }
  const notStreamed = (what: string) =>
    usageError(
      `--data -, --window, --output-format, --on-error and --explain stream a linear-chain CRF's tagging; ${options.model} is ${what}`,
    );
  if (opened.kind === "l2s") {
    if (input.streamingAsked) throw notStreamed("an L2S tagger");
    const { tagL2sCommand } = await import("./tag-l2s.js");
    return tagL2sCommand(options, opened, signal);
  }
  if (opened.kind === "general-crf") {
    if (input.streamingAsked) {
      throw notStreamed("a general CRF (its groups need the whole input)");
    }
    const { tagGeneralCommand } = await import("./tag-general.js");
    return tagGeneralCommand(options, opened, signal);
  }
  if (input.format === "crfsuite") {
    const streamingOnly = [options.threads, options.window, options.outputFormat, options.onError];
    if (streamingOnly.some((o) => o !== undefined) || options.explain === true) {
      throw usageError(
        "--threads, --window, --output-format, --on-error and --explain are for CoNLL and NDJSON; --format crfsuite reads CRFsuite's format as it streams and writes one label per line",
      );
    }
    const { tagCrfsuiteCommand } = await import("./tag-crfsuite.js");
    return tagCrfsuiteCommand(options, opened, signal);
  }
  if (opened.model.preset === null) {
    throw usageError(
      `${options.model} has no feature preset (a model imported from CRFsuite): it reads CRFsuite attribute lists, not text columns; tag data in CRFsuite's format with --format crfsuite`,
    );
  }
  if (opened.model.firstStage !== null) {
    // A two-stage model's votes are counted over documents and the whole input: never a stream.
    if (input.streamingAsked || input.format === "ndjson") {
      throw usageError(
        `${options.model} is a two-stage model (lagrange train --two-stage): its first stage's votes are counted over whole documents and the whole input, so it tags a whole file (--data FILE in CoNLL, CoNLL-U, UMass or inline format, or a registry name), not a stream: drop --data -, --window, --output-format, --on-error and --explain${input.format === "ndjson" ? ", and convert the NDJSON to CoNLL" : ""}`,
      );
    }
    const { tagChainCommand } = await import("./tag-chain.js");
    return tagChainCommand(options, opened, signal);
  }
  if (input.streams) {
    // Loaded on demand: @lagrange/scale also brings the job queue's client.
    const { tagStreamCommand } = await import("./tag-stream.js");
    return tagStreamCommand(options, opened, input, signal);
  }
  const { tagChainCommand } = await import("./tag-chain.js");
  return tagChainCommand(options, opened, signal);
}

/** What `lagrange tag` does (its options are declared in ../define/tag.ts). */
export async function tagAction(opts: TagOptions & Record<string, unknown>): Promise<void> {
  const decoderOptions = decoderOptionsGiven(opts, STANDARD_DECODERS);
  note(await interruptible((signal) => tagCommand({ ...opts, decoderOptions }, signal)));
}
