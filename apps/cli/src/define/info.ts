import type { Command } from "commander";
import { declareFiles } from "../files-declared.js";
import { collect, parseInteger } from "../options.js";
import { lazy } from "./lazy.js";

export function defineInfo(program: Command): void {
  const command = program
    .command("info")
    .description("Describe a model file")
    .argument("<model>", "model file")
    .option("--json", "as JSON")
    .option("--features", "the strongest state weights per label, and the transitions")
    .option("--top <k>", "with --features: weights per label and sign (default 10)", parseInteger)
    .option("--label <label>", "with --features: only this label; repeatable", collect)
    .action(lazy(() => import("../commands/info.js"), "infoAction"));
  declareFiles(command, { inputs: { "<model>": "model" }, outputs: [] });
}
