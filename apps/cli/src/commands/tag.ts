import { STANDARD_DECODERS } from "@lagrange/recipes";
import { decoderOptionsGiven } from "../decoder-flags.js";
import { usageError } from "../exit-codes.js";
import { interruptible } from "../interruption.js";
import { note } from "../progress.js";
import { openCommandTagger, type TagOptions } from "../tag/options.js";
import { planTagging } from "../tag/plan.js";

export type { TagOptions };

/**
 * `lagrange tag`: writes the labelled data; returns the report line (stderr). The model is read
 * once and opened as one tagger, whatever its kind; the plan checks every flag against what the
 * tagger can do, and the input streams, is read whole, or is read as CRFsuite attribute lists.
 */
export async function tagCommand(options: TagOptions, signal?: AbortSignal): Promise<string> {
  const tagger = await openCommandTagger(options, signal);
  if (options.text !== undefined || options.format === "text") {
    const { tagTextInput } = await import("../tag/text.js");
    return tagTextInput(options, tagger, signal);
  }
  const plan = planTagging(options, tagger);
  if (plan.route === "stream") {
    // Loaded on demand, as each route is.
    const { tagStreamed } = await import("../tag/stream.js");
    return tagStreamed(options, tagger, plan, signal);
  }
  if (plan.route === "attributes") {
    const { tagAttributeLists } = await import("../tag/attributes.js");
    return tagAttributeLists(options, tagger, plan, signal);
  }
  const { tagWhole } = await import("../tag/whole.js");
  return tagWhole(options, tagger, plan, signal);
}

/** What `lagrange tag` does (its options are declared in ../define/tag.ts). */
export async function tagAction(
  opts: Omit<TagOptions, "data"> & { readonly data?: string } & Record<string, unknown>,
): Promise<void> {
  const decoderOptions = decoderOptionsGiven(opts, STANDARD_DECODERS);
  const data = dataOf(opts);
  note(await interruptible((signal) => tagCommand({ ...opts, data, decoderOptions }, signal)));
}

/**
 * `--data`, which text input may leave out: `--text` is the input itself, and `--format text`
 * reads standard input by default.
 */
function dataOf(opts: Pick<TagOptions, "text" | "format"> & { readonly data?: string }): string {
  if (opts.text !== undefined) {
    if (opts.data !== undefined) throw usageError("--text and --data: give one input");
    if (opts.format !== undefined && opts.format !== "text") {
      throw usageError(`--text is raw text; --format ${opts.format} is for --data`);
    }
    return "-";
  }
  if (opts.data !== undefined) return opts.data;
  if (opts.format === "text") return "-";
  throw usageError(
    "required option '--data <spec>' not specified (or --text, or --format text for standard input)",
  );
}
