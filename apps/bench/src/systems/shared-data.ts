import { type AttributeSequence, getPreset } from "@lagrange/chain-crf";
import { inputRows, type Sentence } from "@lagrange/datasets";
import { openDataset } from "@lagrange/datasets/node";
import { type SystemJob, timedPasses } from "./protocol.js";

export interface ExtractedSplit {
  readonly sentences: Sentence[];
  readonly attributes: AttributeSequence[];
}

/** A registry split's sentences (UMass: under the job's malformed-line policy). */
export async function openSplit(
  job: Pick<SystemJob, "dataset" | "malformed">,
  split: string,
  limit?: number,
): Promise<Sentence[]> {
  const opened = await openDataset(
    job.dataset,
    split,
    job.malformed === undefined ? {} : { malformed: job.malformed },
  );
  if (opened.status !== "available") throw new Error(opened.message);
  return limit === undefined ? opened.sentences : opened.sentences.slice(0, limit);
}

/** A registry split and its attributes under the job's preset (the same for every system). */
export async function extractSplit(
  job: SystemJob,
  split: string,
  limit?: number,
): Promise<ExtractedSplit> {
  const sentences = await openSplit(job, split, limit);
  const preset = getPreset(job.preset);
  return { sentences, attributes: sentences.map((s) => preset.extract(inputRows(s))) };
}

/** Tokens per second of the job's preset extracting attributes from the sentences. */
export function extractionThroughput(job: SystemJob, sentences: readonly Sentence[]): number {
  const preset = getPreset(job.preset);
  const rows = sentences.map((s) => inputRows(s));
  const { seconds, tokens } = timedPasses(rows.length, job.minTagSeconds ?? 1, (limit) => {
    let n = 0;
    for (let i = 0; i < limit; i++) n += preset.extract(rows[i]!).length;
    return n;
  });
  return tokens / seconds;
}

/** Attribute names per token, the form CRFsuite's binding takes. */
export function attributeNamesPerToken(sequence: AttributeSequence): string[][] {
  const perToken: string[][] = new Array(sequence.length);
  for (let t = 0; t < sequence.length; t++) {
    perToken[t] = sequence.names.slice(sequence.offsets[t]!, sequence.offsets[t + 1]!) as string[];
  }
  return perToken;
}
