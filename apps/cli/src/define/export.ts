import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { lazy } from "./lazy.js";

export function defineExport(program: Command): void {
  const command = program
    .command("export")
    .description(
      "Write a Lagrange model in another system's format: export --to crfsuite --model M.lgm --out M.crfsuite (a crf1d model CRFsuite's tagger opens; it labels CRFsuite attribute input as the model does)",
    )
    .addOption(
      new Option("--to <system>", "the format to write")
        .choices(["crfsuite"])
        .makeOptionMandatory(),
    )
    .requiredOption("--model <file>", "the Lagrange model file")
    .requiredOption("--out <file>", "the file to write")
    .option(
      "--boundary-attributes <first,last>",
      "attributes that mark the first and the last token, to carry the model's first/last-label weights (CRFsuite has none); default __BOS__,__EOS__ for a model trained with a built-in preset (they emit them)",
    )
    .action(lazy(() => import("../commands/export.js"), "exportAction"));
  declareFiles(command, { inputs: { "--model": "model" }, outputs: ["--out"] });
}
