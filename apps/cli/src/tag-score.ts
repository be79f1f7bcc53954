import {
  type CorpusFormat,
  renderLabellingScore,
  type Sentence,
  scoreTagging,
  WrittenTaggingScorer as WrittenTextScorer,
} from "@lagrange/datasets";
import type { Output } from "./output.js";

/**
 * `lagrange tag`'s report of its score against the input's gold, as `lagrange eval` scores the
 * file it writes (datasets' scoreTagging): `; UPOS token accuracy 94.22% (…)`, `; chunk F1 …`;
 * empty when the input has no gold.
 */
export function taggingScoreNote(
  format: CorpusFormat,
  sentences: readonly Sentence[],
  predicted: readonly (readonly string[])[],
): string {
  try {
    const score = scoreTagging(format, sentences, predicted);
    return score === undefined ? "" : `; ${renderLabellingScore(score)}`;
  } catch (error) {
    return notScored(error);
  }
}

/** A gold column the scheme cannot read is reported, never a reason to lose the tagging. */
function notScored(error: unknown): string {
  return `; not scored against the gold (${error instanceof Error ? error.message : String(error)})`;
}

/**
 * `lagrange tag`'s score of a streamed tagging, taken from the text written (datasets'
 * WrittenTaggingScorer), whatever thread tagged it.
 */
export class WrittenTaggingScorer extends WrittenTextScorer {
  readonly #decoder = new TextDecoder();

  /** The output, with every write also scored. */
  wrap(output: Output): Output {
    return {
      write: (data) => {
        this.feed(typeof data === "string" ? data : this.#decoder.decode(data, { stream: true }));
        return output.write(data);
      },
      close: () => output.close(),
      abort: () => output.abort(),
    };
  }

  /** The score line (`; …`), empty when nothing with gold was written. */
  note(): string {
    const score = this.finish();
    if (this.failure !== undefined) return notScored(this.failure);
    return score === undefined ? "" : `; ${renderLabellingScore(score)}`;
  }
}
