import { type AttributeSequence, getPreset } from "@lagrange/chain-crf";
import { inputRows, type Sentence } from "@lagrange/datasets";
import { openDataset } from "@lagrange/datasets/node";
import type { SystemJob } from "./protocol.js";

export interface ExtractedSplit {
  readonly sentences: Sentence[];
  readonly attributes: AttributeSequence[];
}

/** A registry split and its attributes under the job's preset (the same for every system). */
export async function extractSplit(
  job: SystemJob,
  split: string,
  limit?: number,
): Promise<ExtractedSplit> {
  const opened = await openDataset(job.dataset, split);
  if (opened.status !== "available") throw new Error(opened.message);
  const sentences = limit === undefined ? opened.sentences : opened.sentences.slice(0, limit);
  const preset = getPreset(job.preset);
  return { sentences, attributes: sentences.map((s) => preset.extract(inputRows(s))) };
}

/** Attribute names per token, the form CRFsuite's binding takes. */
export function attributeNamesPerToken(sequence: AttributeSequence): string[][] {
  const perToken: string[][] = new Array(sequence.length);
  for (let t = 0; t < sequence.length; t++) {
    perToken[t] = sequence.names.slice(sequence.offsets[t]!, sequence.offsets[t + 1]!) as string[];
  }
  return perToken;
}
