import type { Command } from "commander";
import { lazy } from "./lazy.js";

export function defineDatasets(program: Command): void {
  program
    .command("datasets")
    .description(
      "List the dataset registry: each dataset's splits as --data names them (conll2003:train), their sizes, and whether each is on this machine (the mirror or the cache) or is downloaded on first use",
    )
    .argument("[name]", "one dataset (default all)")
    .option("--json", "as JSON")
    .action(lazy(() => import("../commands/datasets.js"), "datasetsAction"));
}
