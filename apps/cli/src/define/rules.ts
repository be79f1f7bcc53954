import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { malformedOption, parseInteger, parseNonNegative, parsePositive } from "../options.js";
import { lazy } from "./lazy.js";
import { PACKAGE_DEFAULTS, parseDelimiters, parseFraction } from "./values.js";

export function defineRules(program: Command): void {
  const rules = program
    .command("rules")
    .description(
      "fersini2014's rule templates (adjacency, precedence, state change, begin-end, presence and precedence): mine them from labelled data",
    );
  const mine = rules
    .command("mine")
    .description(
      "Count every candidate rule template over the gold labels of the training data (support: instances whose premise fires; confidence: the share the gold labels satisfy), keep those above the thresholds and write them as a versioned constraints file whose penalties are the rule costs, for `lagrange tag --constraints`. A counting substitute for the paper's MINSAT/Lsquare learner",
    )
    .requiredOption(
      "--data <spec>",
      "labelled training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline (default from the extension)",
    )
    .option(
      "--scheme <name>",
      "label scheme the gold labels are checked against and segments are read under: IOB1, IOB2, IOE1, IOE2, BIOES, BILOU, hierarchical-BIO (default: the data's)",
    )
    .option(
      "--model <file>",
      "write the rules for this model's label set, in its order (default: the data's gold labels in order of first appearance, which is what `lagrange train` on the same data gives)",
    )
    .option(
      "--families <list>",
      `"rules" (all five) or a comma-separated list of ${PACKAGE_DEFAULTS.ruleFamilies.join(", ")}`,
      "rules",
    )
    .option(
      "--min-support <n>",
      "keep rules whose premise fires at least n times",
      parseInteger,
      PACKAGE_DEFAULTS.ruleMining.minSupport,
    )
    .option(
      "--min-confidence <x>",
      "keep rules the gold labels satisfy in at least this share of their instances (0…1)",
      parseFraction,
      PACKAGE_DEFAULTS.ruleMining.minConfidence,
    )
    .option(
      "--min-lift <x>",
      "keep rules whose confidence is at least x times the consequent's rate without the premise",
      parseNonNegative,
      PACKAGE_DEFAULTS.ruleMining.minLift,
    )
    .addOption(
      new Option(
        "--cost <policy>",
        "rule cost (the penalty): paper (fersini2014 Eq. 30 made ≥ 0; small, for the two-phase ILP), violation-rate (−log of the smoothed violation rate), log-odds (on the scale of CRF scores, for soft-dd)",
      )
        .choices([...PACKAGE_DEFAULTS.ruleCostPolicies])
        .default(PACKAGE_DEFAULTS.ruleMining.cost),
    )
    .option(
      "--smoothing <alpha>",
      "Laplace smoothing α of the costs (> 0)",
      parsePositive,
      PACKAGE_DEFAULTS.ruleMining.smoothing,
    )
    .option(
      "--delimiters <tokens>",
      'state-change delimiters: characters (",;:()"), tokens separated by spaces ("( ) -- ..."), or auto (default: , . ; : ( ) and every punctuation token seen min-support times)',
      parseDelimiters,
    )
    .option("--no-outside", "rules never name O (tokens outside every segment)")
    .addOption(malformedOption())
    .option(
      "--allow-empty",
      "write the file even when no rule passes the thresholds (by default that is an error, exit 1)",
    )
    .requiredOption(
      "--out <file>",
      "constraints file to write (JSON, atomically; checked before mining; never an input)",
    )
    .addHelpText(
      "after",
      "\nWhen no candidate rule passes the thresholds nothing is written and the command exits 1 (unless --allow-empty).\nPlain tags (scheme none) have no segments: a usage error (exit 2); malformed data exits 3 at its file:line.",
    )
    .action(lazy(() => import("../commands/rules.js"), "rulesAction"));
  declareFiles(mine, { inputs: { "--data": "data", "--model": "model" }, outputs: ["--out"] });
}
