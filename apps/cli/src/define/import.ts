import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { lazy } from "./lazy.js";

export function defineImport(program: Command): void {
  const command = program
    .command("import")
    .description(
      "Convert another system's model file into a Lagrange model: import --from crfsuite M.crfsuite --out M.lgm (CRFsuite's crf1d models, as crfsuite learn and python-crfsuite write them). The model has no feature preset: tag CRFsuite attribute input with it",
    )
    .argument("<model>", "the model file to convert")
    .addOption(
      new Option("--from <system>", "the system that wrote it")
        .choices(["crfsuite"])
        .makeOptionMandatory(),
    )
    .requiredOption("--out <file>", "the Lagrange model file to write")
    .action(lazy(() => import("../commands/import.js"), "importAction"));
  declareFiles(command, { inputs: { "<model>": "model" }, outputs: ["--out"] });
}
