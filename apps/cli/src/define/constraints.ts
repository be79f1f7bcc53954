import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { malformedOption, parseInteger, parseNumber, parsePositive } from "../options.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS } from "./values.js";

export function defineConstraints(program: Command): void {
  const constraints = program
    .command("constraints")
    .description("Global constraints over a model's labels (anzaroot2014): learn penalties");
  const learn = constraints
    .command("learn")
    .description(
      "Generate candidate constraints from templates, prune them by importance (imp(c) ≥ threshold) and learn their penalties on held-out data; writes a versioned constraints file and prints which constraints were kept and dropped",
    )
    .requiredOption("--model <file>", "model file (the base CRF)")
    .requiredOption(
      "--data <spec>",
      "held-out labelled data: a registry name[:split] (default split dev) or a file path",
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--templates <list>",
      "comma-separated families: singleton, pairwise, hierarchical, bio (the BIO mask, always on), rules (adjacency, precedence, state-change, begin-end, presence-precedence) or single rule families",
      "singleton,pairwise,hierarchical",
    )
    .option("--threshold <x>", "keep candidates with importance imp(c) ≥ x", parseNumber, 2.75)
    .addOption(
      new Option("--algorithm <name>", "penalty learner")
        .choices([...PACKAGE_DEFAULTS.penaltyAlgorithms])
        .default("averaged-perceptron"),
    )
    .option("--epochs <n>", "passes over the held-out data", parseInteger, 5)
    .option("--learning-rate <x>", "perceptron step / SSVM η₀ (default 0.1)", parsePositive)
    .addOption(
      new Option(
        "--count-unit <unit>",
        "what singleton and pairwise constraints count: segments, or full labels (the paper's literal reading)",
      )
        .choices(["label", "segment"])
        .default("segment"),
    )
    .addOption(malformedOption())
    .requiredOption(
      "--out <file>",
      "constraints file to write (JSON, atomically; checked before learning; never an input)",
    )
    .action(lazy(() => import("../commands/constraints.js"), "constraintsAction"));
  declareFiles(learn, { inputs: { "--model": "model", "--data": "data" }, outputs: ["--out"] });
}
