import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS } from "./values.js";

/** `lagrange train`'s flags that `models build` takes too (`ModelsBuildOptions`). */
export const MODELS_BUILD_TRAIN_FLAGS = [
  "--words-only",
  "--document-constraints",
  "--threads",
  "--c1",
  "--c2",
  "--max-iterations",
  "--delta",
  "--resources",
] as const;

/** `lagrange models`; after `defineTrain`, whose flags `models build` shares. */
export function defineModels(program: Command): void {
  const models = program
    .command("models")
    .description(
      "Each task preset's model, built from the registry split it was chosen on, and what is built: models build TASK trains it as lagrange train --data SPLIT --preset TASK does and records its provenance beside it; models list shows every built model and whether it is still the file its provenance describes",
    );
  const build = models
    .command("build")
    .description(
      `Train a task preset's model on the registry split the preset was chosen on (its training split: CoNLL-2003 for ner-en, UD English EWT for pos-en, …) exactly as lagrange train does, write it atomically, and write <model>.provenance.json beside it: the data and its SHA-256, the preset, its resources (cluster files, gazetteers) with their SHA-256, the options, the version, the date, the training time, the model's SHA-256 and size`,
    )
    .argument("<task>", `a task preset: ${PACKAGE_DEFAULTS.presets.task.join(", ")}`)
    .option(
      "--out <model>",
      "model file to write (atomically; default <cache dir>/models/<task>.lgm, the cache dir LAGRANGE_CACHE_DIR or ~/.cache/lagrange); the provenance goes to <model>.provenance.json",
    );
  // The train flags a build passes on, as lagrange train declares them (one declaration).
  const train = program.commands.find((c) => c.name() === "train");
  for (const flag of MODELS_BUILD_TRAIN_FLAGS) {
    const option = train?.options.find((o) => o.long === flag);
    if (option === undefined) throw new Error(`lagrange train declares no ${flag}`);
    build.addOption(copyOption(option));
  }
  build.action(lazy(() => import("../commands/models.js"), "modelsBuildAction"));
  declareFiles(build, { inputs: { "--resources": "folder" }, outputs: ["--out"] });
  const list = models
    .command("list")
    .description(
      "Every built model of the models folder: task, file, size, date, data, and whether its SHA-256 still matches its provenance (a changed file is reported, not trusted)",
    )
    .option("--dir <dir>", "the models folder (default <cache dir>/models)")
    .option("--json", "one JSON object a line (NDJSON), with each model's provenance")
    .action(lazy(() => import("../commands/models.js"), "modelsListAction"));
  declareFiles(list, { inputs: { "--dir": "folder" }, outputs: [] });
}

/** A fresh copy of a declared option: help layout marks options hidden, per command. */
function copyOption(option: Option): Option {
  const copy = new Option(option.flags, option.description);
  if (option.parseArg !== undefined) copy.argParser(option.parseArg);
  if (option.argChoices !== undefined) copy.choices(option.argChoices);
  if (option.defaultValue !== undefined) {
    copy.default(option.defaultValue, option.defaultValueDescription);
  }
  return copy;
}
