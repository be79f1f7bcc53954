import type { Sentence } from "@lagrange/datasets";
import { type OpenedChainTagger, withFirstStageVotes } from "@lagrange/recipes";
import { progressBar } from "../progress.js";

/** A two-stage model's input: the sentences with its first stage's votes; else the sentences. */
export async function firstStageInput(
  opened: OpenedChainTagger,
  sentences: readonly Sentence[],
  signal: AbortSignal | undefined,
): Promise<readonly Sentence[]> {
  if (opened.model.firstStage === null) return sentences;
  const bar = progressBar("first stage", sentences.length, process.stderr.isTTY);
  try {
    return await withFirstStageVotes(opened.model, sentences, {
      ...(signal === undefined ? {} : { signal }),
      onProgress: (done) => bar.update(done),
    });
  } finally {
    bar.stop();
  }
}
