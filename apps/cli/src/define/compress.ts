import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { parseInteger, parseNonNegative } from "../options.js";
import { lazy } from "./lazy.js";

export function defineCompress(program: Command): void {
  const command = program
    .command("compress")
    .description(
      "Write a smaller copy of a model: its weights quantised (8 or 16 bits, one scale per block of 256) and its weakest state features pruned; prints the sizes before and after (raw and gzipped) and how far the weights moved",
    )
    .requiredOption("--model <file>", "the model file to compress")
    .requiredOption("--out <file>", "the model file to write (atomically)")
    .addOption(
      new Option(
        "--bits <n>",
        "bits per weight: 8 or 16 (quantised; a reader needs this release or later), 32 (float32, as train writes)",
      )
        .choices(["8", "16", "32"])
        .default("8"),
    )
    .addOption(
      new Option(
        "--prune-below <x>",
        "drop the state features whose |weight| is below x",
      ).argParser(parseNonNegative),
    )
    .addOption(
      new Option("--keep <n>", "keep only the n strongest state features (by |weight|)")
        .argParser(parseInteger)
        .conflicts("pruneBelow"),
    )
    .action(lazy(() => import("../commands/compress.js"), "compressAction"));
  declareFiles(command, { inputs: { "--model": "model" }, outputs: ["--out"] });
}
