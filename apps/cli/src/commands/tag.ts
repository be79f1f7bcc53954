import { STANDARD_DECODERS } from "@lagrange/recipes";
import { decoderOptionsGiven } from "../decoder-flags.js";
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
export async function tagAction(opts: TagOptions & Record<string, unknown>): Promise<void> {
  const decoderOptions = decoderOptionsGiven(opts, STANDARD_DECODERS);
  note(await interruptible((signal) => tagCommand({ ...opts, decoderOptions }, signal)));
}
