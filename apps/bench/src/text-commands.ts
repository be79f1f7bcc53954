import type { Command } from "commander";
import { emit, status } from "./arguments.js";
import { TEXT_DATASETS, textBench, textMarkdown } from "./suites/text.js";
import { measureTextBundle, textBundleMarkdown } from "./suites/text-bundle.js";

/** `pnpm bench text`. */
export function textCommand(bench: Command): void {
  bench
    .command("text")
    .description(
      "raw-text tokenisation (segmentText) against gold tokens: CoNLL-2003 and EWT dev detokenised to text, per sentence, per document (sentences joined by a space) and a sentence a line (lineBreaks sentence); token recall and precision on exact offsets, sentence ends found, tokens/s; JSON + Markdown",
    )
    .option("--out <file.json>", "write the JSON result here (the Markdown goes beside it as .md)")
    .option("--datasets <list>", "comma-separated dataset:split names", TEXT_DATASETS.join(","))
    .option(
      "--model <file>",
      "a model that reads the word alone (lagrange train --words-only): its entity F1 and speed on --tagging-data through the gold tokens and through tagText on each document's text (sentences joined by a space; and a sentence a line)",
    )
    .option("--tagging-data <dataset:split>", "the split --model tags", "conll2003:dev")
    .action(
      async (opts: { out?: string; datasets: string; model?: string; taggingData: string }) => {
        const result = await textBench({
          ...(opts.model === undefined
            ? {}
            : { model: opts.model, taggingDataset: opts.taggingData }),
          datasets: opts.datasets
            .split(",")
            .map((d) => d.trim())
            .filter((d) => d !== ""),
          onStatus: status,
        });
        await emit(result, textMarkdown(result), opts.out);
      },
    );
}

/** `pnpm bench text-bundle`. */
export function textBundleCommand(bench: Command): void {
  bench
    .command("text-bundle")
    .description(
      "the browser bundle that tags text with a model (chain-crf's loader + taggerFromModel + tagText from @lagrange/recipes/browser): esbuild, minified, gzipped, against issue 39's 80 KB; bytes per package and the heaviest modules; JSON + Markdown",
    )
    .option("--out <file.json>", "write the JSON result here (the Markdown goes beside it as .md)")
    .action(async (opts: { out?: string }) => {
      const result = await measureTextBundle();
      await emit(result, textBundleMarkdown(result), opts.out);
      if (!result.met || result.nodeImports.length > 0) process.exitCode = 1;
    });
}
