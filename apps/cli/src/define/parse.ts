import type { Command } from "commander";
import { declareFiles } from "../files-declared.js";
import { lazy } from "./lazy.js";

export function defineParse(program: Command): void {
  const command = program
    .command("parse")
    .description(
      "Parse CoNLL-U with a learning-to-search dependency parser (lagrange train --learner l2s --task parser): writes the same CoNLL-U with HEAD and DEPREL predicted, every other field, comment and multiword-token line kept; sentences/s to stderr. --tagger predicts the POS tags the parser reads first (predicted-POS parsing). Score the output with lagrange eval --deps",
    )
    .argument(
      "[input]",
      "CoNLL-U to parse: a file (any extension) or a registry name[:split] (default split dev)",
    )
    .requiredOption("--model <file>", "parser model (lagrange train --learner l2s --task parser)")
    .option("--data <spec>", "the input, as an option (instead of the argument)")
    .option(
      "--tagger <file>",
      "a POS tagger model (CRF, or lagrange train --learner l2s --task pos) whose predictions replace the field the parser reads (UPOS, or XPOS when it was trained on --tag-field XPOS) before parsing, in the output too",
    )
    .option(
      "-o, --out <file>",
      "output CoNLL-U file, written atomically; checked before parsing (default standard output)",
    )
    .action(lazy(() => import("../commands/parse.js"), "parseAction"));
  declareFiles(command, {
    inputs: { "[input]": "data", "--data": "data", "--model": "model", "--tagger": "model" },
    outputs: ["--out"],
  });
}
