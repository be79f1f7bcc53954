import type { Command } from "commander";
import type { infoAction } from "../commands/info.js";

export function defineInfo(program: Command): void {
  program
    .command("info")
    .description("Describe a model file")
    .argument("<model>", "model file")
    .option("--json", "as JSON")
    .action(async (...args: Parameters<typeof infoAction>) => {
      const { infoAction } = await import("../commands/info.js");
      await infoAction(...args);
    });
}
