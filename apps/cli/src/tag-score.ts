import {
  type CorpusFormat,
  LabellingScorer,
  type LabelScheme,
  renderLabellingScore,
  type Sentence,
  scoreTagging,
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
 * Scores a streamed tagging from the text written (CoNLL: gold second-to-last, prediction last, a
 * blank line after each sentence, as `lagrange eval` reads it; NDJSON: `gold` and `labels`), in
 * bounded memory, whatever thread tagged it. The stream never holds the whole gold, so the scheme
 * is the model's (the one it decodes under) rather than read off the gold.
 */
export class WrittenTaggingScorer {
  readonly #scorer: LabellingScorer;
  readonly #format: "conll" | "ndjson";
  readonly #decoder = new TextDecoder();
  #pending = "";
  #gold: string[] = [];
  #predicted: string[] = [];
  #sentences = 0;
  #failure: unknown;
  /** CoNLL columns written after the prediction (`--marginals`' confidence). */
  readonly #trailing: number;

  constructor(format: "conll" | "ndjson", scheme: LabelScheme, trailing = 0) {
    this.#format = format;
    this.#scorer = new LabellingScorer(scheme);
    this.#trailing = trailing;
  }

  /** The output, with every write also scored. */
  wrap(output: Output): Output {
    return {
      write: (data) => {
        this.#feed(typeof data === "string" ? data : this.#decoder.decode(data, { stream: true }));
        return output.write(data);
      },
      close: () => output.close(),
      abort: () => output.abort(),
    };
  }

  /** The score line (`; …`), empty when nothing with gold was written. */
  note(): string {
    this.#feed("\n\n");
    if (this.#failure !== undefined) return notScored(this.#failure);
    return this.#sentences === 0 ? "" : `; ${renderLabellingScore(this.#scorer.score())}`;
  }

  #feed(text: string): void {
    if (this.#failure !== undefined) return;
    const lines = (this.#pending + text).split("\n");
    this.#pending = lines.pop() ?? "";
    try {
      for (const line of lines) this.#line(line);
    } catch (error) {
      this.#failure = error;
    }
  }

  #line(line: string): void {
    if (this.#format === "ndjson") {
      if (line.trim() === "") return;
      const record = JSON.parse(line) as { gold?: string[]; labels?: string[] };
      if (record.gold !== undefined && record.labels !== undefined) {
        this.#scorer.add(record.gold, record.labels);
        this.#sentences++;
      }
      return;
    }
    if (line === "") {
      this.#endSentence();
      return;
    }
    const fields = line.split(" ");
    const last = fields.length - 1 - this.#trailing;
    if (last < 1) return;
    this.#gold.push(fields[last - 1]!);
    this.#predicted.push(fields[last]!);
  }

  #endSentence(): void {
    if (this.#gold.length === 0) return;
    this.#scorer.add(this.#gold, this.#predicted);
    this.#sentences++;
    this.#gold = [];
    this.#predicted = [];
  }
}
