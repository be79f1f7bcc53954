import type { Command } from "commander";
import { declareFiles } from "../files-declared.js";
import { parseInteger } from "../options.js";
import { lazy } from "./lazy.js";

export function defineClusters(program: Command): void {
  const command = program
    .command("clusters")
    .description(
      "Brown clusters of raw text (Liang 2005's algorithm, as his wcluster computes them): clusters --text FILE… --clusters N --out paths.txt writes Liang's paths file (bits TAB word TAB count), read back by anything that takes cluster paths",
    )
    .option(
      "--text <file...>",
      "plain text: one sentence a line, tokens separated by whitespace (UTF-8)",
    )
    .option(
      "--corpus <name...>",
      "raw-text corpora of the dataset registry (brown, abc, cess-esp, …) or the words of a split as dataset:split (conll2003:train; never a test split)",
    )
    .option("--clusters <n>", "C, the number of clusters", parseInteger, 1000)
    .option(
      "--min-count <k>",
      "leave out words seen fewer than k times (wcluster's --min-occur)",
      parseInteger,
      1,
    )
    .requiredOption("--out <file>", "the paths file to write (atomically)")
    .addHelpText(
      "after",
      "\nBigrams run across line ends, as in wcluster (a `$#$` token separates). Time O(types × C²): C = 1000 on the Brown corpus (1.16 M tokens, 56 k word types) takes about 8 minutes of one core.",
    )
    .action(lazy(() => import("../commands/clusters.js"), "clustersAction"));
  declareFiles(command, { inputs: { "--text": "text" }, outputs: ["--out"] });
}
