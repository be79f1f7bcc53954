import type { Command } from "commander";
import { declareFiles } from "../files-declared.js";
import { parseInteger, parseNonNegative, parsePositive } from "../options.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS } from "./values.js";

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
    )
    .option(
      "--words-only",
      "read the data through its word column alone, so that the model tags raw text (lagrange tag --format text)",
    )
    .option(
      "--threads <n>",
      "worker threads for the L-BFGS objective (at most the number of cores)",
      parseInteger,
    )
    .option("--c1 <x>", "L1 coefficient c1·‖w‖₁ (default 0: L2 alone)", parseNonNegative)
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNonNegative)
    .option(
      "--max-iterations <n>",
      "at most n L-BFGS iterations, replacing the preset's held-out stopping rule (as train --max-iterations does)",
      parseInteger,
    )
    .option(
      "--delta <x>",
      "stop when the loss falls by less than this (relative) over 10 iterations, replacing the preset's held-out stopping rule",
      parsePositive,
    )
    .option(
      "--resources <dir>",
      "a folder with clusters-<language>.paths and <lexicon>.txt files to use instead of the shipped or registry ones (as train --resources)",
    )
    .action(lazy(() => import("../commands/models.js"), "modelsBuildAction"));
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
