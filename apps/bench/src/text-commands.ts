import type { Command } from "commander";
import { emit, status } from "./arguments.js";
import { TEXT_DATASETS, textBench, textMarkdown } from "./suites/text.js";

/** `pnpm bench text`. */
export function textCommand(bench: Command): void {
  bench
    .command("text")
    .description(
      "raw-text tokenisation (segmentText) against gold tokens: CoNLL-2003 and EWT dev detokenised to text, per sentence and per document (sentences joined by a space); token recall and precision on exact offsets, sentence ends found, tokens/s; JSON + Markdown",
    )
    .option("--out <file.json>", "write the JSON result here (the Markdown goes beside it as .md)")
    .option("--datasets <list>", "comma-separated dataset:split names", TEXT_DATASETS.join(","))
    .option("--newline", "join a document's sentences by a newline instead of a space")
    .option(
      "--model <file>",
      "a model that reads the word alone (lagrange train --words-only): its entity F1 and speed on --tagging-data through the gold tokens and through tagText on each document's text",
    )
    .option("--tagging-data <dataset:split>", "the split --model tags", "conll2003:dev")
    .action(
      async (opts: {
        out?: string;
        datasets: string;
        newline?: boolean;
        model?: string;
        taggingData: string;
      }) => {
        const result = await textBench({
          ...(opts.model === undefined
            ? {}
            : { model: opts.model, taggingDataset: opts.taggingData }),
          datasets: opts.datasets
            .split(",")
            .map((d) => d.trim())
            .filter((d) => d !== ""),
          joiner: opts.newline === true ? "\n" : " ",
          onStatus: status,
        });
        await emit(result, textMarkdown(result), opts.out);
      },
    );
}
