import type { DecoderOptionValue } from "@lagrange/core";
import { openTagger, type SequenceTagger } from "@lagrange/recipes";
import { openData, readModelBytes, readNamedText, requireFile } from "../inputs.js";

/** `lagrange tag`'s options (declared in ../define/tag.ts). */
export interface TagOptions {
  readonly model: string;
  /** A registry name, a path or `-` (standard input); absent with `--text`. */
  readonly data: string;
  readonly format?: string;
  /** Raw text to tag (`--text`): entities out. */
  readonly text?: string;
  /** Text input: whether a single line break ends a sentence. */
  readonly lineBreaks?: "space" | "sentence";
  /** Default: the model's own (a chain CRF's file may record one), else its kind's. */
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
  readonly threads?: number;
  /** Streaming: sentences read and not yet written, at most. */
  readonly window?: number;
  /** `entities` (one a line) for text input only. */
  readonly outputFormat?: "conll" | "ndjson" | "entities";
  /** Streaming: a bad record stops the stream, or is reported and skipped. */
  readonly onError?: "stop" | "skip";
  /** NDJSON: each sentence's decoding and the constraints that fired. */
  readonly explain?: boolean;
  /** Per-token marginals (CoNLL: the predicted label's, one column; NDJSON: `marginals`, `confidence`). */
  readonly marginals?: boolean;
  /** p(y|x) of each output labelling (NDJSON `probability`). */
  readonly probability?: boolean;
  /** The k best labellings (CoNLL: k−1 more columns; NDJSON: `nbest`). */
  readonly nbest?: number;
  /** The input's last column fixes labels, `?` = free (forced / partial decoding). */
  readonly forced?: boolean;
}

type DataOptions = Pick<TagOptions, "data" | "format" | "malformed">;
type TaggerOptions = Pick<
  TagOptions,
  "model" | "decoder" | "decoderOptions" | "constraints" | "plugin" | "slave"
>;

/** `--data` read whole (any format the path or `--format` says; a registry name's split). */
export function readTagData(options: DataOptions, signal: AbortSignal | undefined) {
  return openData("--data", options.data, {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    defaultSplit: "dev",
    ...(signal === undefined ? {} : { signal }),
  });
}

/** The command line's choices as the one tagging spec, opened: the model read once, one registry. */
export async function openCommandTagger(
  options: TaggerOptions,
  signal: AbortSignal | undefined,
): Promise<SequenceTagger> {
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
