import type { Command } from "commander";
import { addDecoderFlags } from "../decoder-flags.js";
import { declareFiles } from "../files-declared.js";
import { collect, malformedOption, parseInteger } from "../options.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS } from "./values.js";

export function defineExplain(program: Command): void {
  const explain = program
    .command("explain")
    .description(
      "Break one sentence's label scores into state features, transitions and constraint multipliers",
    )
    .requiredOption("--model <file>", "model file (a linear-chain CRF)")
    .requiredOption("--data <spec>", "a registry name[:split] (default split dev) or a file")
    .option("--sentence <n>", "the n-th sentence of --data, from 1 (default 1)", parseInteger)
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--decoder <name>",
      `${PACKAGE_DEFAULTS.decoders.join(", ")} (default ${PACKAGE_DEFAULTS.defaultDecoder})`,
    )
    .option("--constraints <file>", "constraints file (lagrange constraints learn)")
    .option("--top <k>", "contributions shown per token (default 5)", parseInteger)
    .option("--compare <label>", "also break down this label (or runner-up); repeatable", collect)
    .option("--unlabeled", "the data has no gold label column")
    .addOption(malformedOption())
    .option("--json", "as JSON")
    .action(lazy(() => import("../commands/explain.js"), "explainAction"));
  // Plug-in decoders are not loaded here: --decoder-option name=value reaches any standard one.
  addDecoderFlags(explain, []);
  declareFiles(explain, {
    inputs: { "--model": "model", "--data": "data", "--constraints": "constraints" },
    outputs: [],
  });
}
