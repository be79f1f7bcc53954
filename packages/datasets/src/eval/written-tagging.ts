import type { LabelScheme } from "../schemes/label-scheme.js";
import { type LabellingScore, LabellingScorer } from "./labelling.js";

/**
 * Scores a tagging from the text written, chunk by chunk (CoNLL: gold second-to-last, prediction
 * last, a blank line after each sentence, as `lagrange eval` reads it; NDJSON: `gold` and
 * `labels`), in bounded memory. The text never holds the whole gold at once, so the scheme is
 * given (the one the tagger decodes under) rather than read off the gold.
 */
export class WrittenTaggingScorer {
  readonly #scorer: LabellingScorer;
  readonly #format: "conll" | "ndjson";
  /** CoNLL columns written after the prediction (a confidence). */
  readonly #trailing: number;
  #pending = "";
  #gold: string[] = [];
  #predicted: string[] = [];
  #sentences = 0;
  #failure: unknown;

  constructor(format: "conll" | "ndjson", scheme: LabelScheme, trailing = 0) {
    this.#format = format;
    this.#scorer = new LabellingScorer(scheme);
    this.#trailing = trailing;
  }

  /** Why the text could not be scored (its first unreadable line); undefined while it could. */
  get failure(): unknown {
    return this.#failure;
  }

  /** More of the text; a line that cannot be read stops the scoring (see {@link failure}). */
  feed(text: string): void {
    if (this.#failure !== undefined) return;
    const lines = (this.#pending + text).split("\n");
    this.#pending = lines.pop() ?? "";
    try {
      for (const line of lines) this.#line(line);
    } catch (error) {
      this.#failure = error;
    }
  }

  /** Ends the text: its score, undefined when no sentence with gold was written or it failed. */
  finish(): LabellingScore | undefined {
    this.feed("\n\n");
    if (this.#failure !== undefined || this.#sentences === 0) return undefined;
    return this.#scorer.score();
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
