import type { Command } from "commander";
import { lazyAction } from "../options.js";

export function defineInfo(program: Command): void {
  program
    .command("info")
    .description("Describe a model file")
    .argument("<model>", "model file")
    .option("--json", "as JSON")
    .action(
      lazyAction(
        () => import("../commands/info.js"),
        (m) => m.infoAction,
      ),
    );
}
