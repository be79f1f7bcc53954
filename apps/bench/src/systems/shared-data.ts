import { getPreset } from "@lagrange/chain-crf";
import { openDataset, type Sentence } from "@lagrange/datasets";
import type { SystemJob } from "./protocol.ts";

export interface FeaturisedSplit {
  readonly sentences: Sentence[];
  /** Per sentence, per token, attribute names (binary attributes; the chunking preset has no weights). */
  readonly attributes: string[][][];
}

/** Input columns of a sentence without its label column (the label is the last column). */
export function inputRows(sentence: Sentence): string[][] {
  const { columns, tokens } = sentence;
  const width = sentence.labels === undefined ? columns.length : columns.length - 1;
  const rows: string[][] = new Array(tokens.length);
  for (let t = 0; t < tokens.length; t++) {
    const row = new Array<string>(width);
    for (let c = 0; c < width; c++) row[c] = columns[c]![t]!;
    rows[t] = row;
  }
  return rows;
}

export async function loadSplit(job: SystemJob, split: string, limit?: number): Promise<FeaturisedSplit> {
  const opened = await openDataset(job.dataset, split);
  if (opened.status !== "available") {
    throw new Error(`${job.dataset}:${split} is not available here (${opened.status})`);
  }
  const sentences = limit === undefined ? opened.sentences : opened.sentences.slice(0, limit);
  const preset = getPreset(job.preset);
  const attributes = sentences.map((s) => {
    const seq = preset.extract(inputRows(s));
    const perToken: string[][] = new Array(seq.length);
    for (let t = 0; t < seq.length; t++) {
      perToken[t] = seq.names.slice(seq.offsets[t]!, seq.offsets[t + 1]!) as string[];
    }
    return perToken;
  });
  return { sentences, attributes };
}
