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
      "Generate candidate constraints from templates, prune them by importance (imp(c) ≥ threshold) and learn their penalties on part of held-out data, then keep a family, and a constraint, only if Soft-DD with it raises chunk F1 over Viterbi on the rest (the check cut); writes a versioned constraints file (an empty set when nothing helps) and prints each kept family's check gain with a 95 % bootstrap interval and why the others were dropped",
    )
    .requiredOption("--model <file>", "model file (the base CRF)")
    .requiredOption(
      "--data <spec>",
      "labelled data held out from the model's training: a registry name[:split] (default split dev) or a file path; with --templates document, the model's TRAINING data instead (default split train; dev and test splits are refused)",
    )
    .option(
      "--check-folds <k>",
      "the check cut is 1 of k folds of --data (whole documents where it marks them, else blocks of 20 sentences); penalties are learned on the rest",
      parseInteger,
      3,
    )
    .option("--format <format>", "file format for a path: conll, conllu, umass, inline")
    .option(
      "--templates <list>",
      "comma-separated families: singleton, pairwise, hierarchical, bio (the BIO mask, always on), rules (adjacency, precedence, state-change, begin-end, presence-precedence) or single rule families; or document alone (the same name, and an acronym and its long form, get the same type across a document): chain CRFs of 4 jackknife folds of --data are trained as the model file records, penalties learned on 3 folds, and each type kept only when the 4th gains with 95 % confidence",
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
