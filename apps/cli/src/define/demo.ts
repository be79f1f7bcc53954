import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { parseInteger } from "../options.js";
import { lazy } from "./lazy.js";

export function defineDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "The main job (anzaroot2014): train a citation CRF on UMass citations (or generated ones), learn soft-constraint penalties on half of dev, decode the other half with Viterbi and with Soft-DD, print both and a citation the constraints changed",
    )
    .option("--crf-iterations <n>", "L-BFGS iterations of the citation CRF", parseInteger, 60)
    .option(
      "--threads <n>",
      "worker threads for training (at most the number of cores)",
      parseInteger,
      Math.min(2, availableParallelism()),
    )
    .option("--epochs <n>", "penalty-learning epochs", parseInteger, 5)
    .option(
      "--seed <n>",
      "seed of the dev split into learning and evaluation halves",
      parseInteger,
      1,
    )
    .action(lazy(() => import("../commands/demo.js"), "demoAction"));
}
