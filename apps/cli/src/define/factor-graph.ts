import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { parseNonNegative, parsePositive } from "../options.js";
import { lazy } from "./lazy.js";
import { parseIterations, parseTimeLimit } from "./values.js";

export function defineFactorGraph(program: Command): void {
  const command = program
    .command("factor-graph")
    .description(
      "Solve a factor graph in AD3's formats (the .fg files of AD3's ad3_multi, or UAI Markov networks) with the AD3 step: factor-graph --graph coref.fg prints the variables and factors by type, the status, iterations, dual (an upper bound), primal (the best assignment), gap, certificate and time",
    )
    .requiredOption("--graph <file>", "the factor graph file")
    .addOption(
      new Option(
        "--format <format>",
        "fg (AD3's format) or uai (UAI's MARKOV networks); default from the name: uai for *.uai, fg otherwise",
      ).choices(["fg", "uai"]),
    )
    .option(
      "--exact",
      "exact MAP: branch and bound over AD3 relaxations while the relaxation is fractional (as ad3_multi --exact=true)",
    )
    .option(
      "--max-iterations <n>",
      "AD3 iterations; with --exact, per branch-and-bound node, as ad3_multi (at most 1,000 nodes; --time-limit bounds the whole search)",
      parseIterations,
      1000,
    )
    .option(
      "--time-limit <seconds>",
      "stop after this long in all (with --exact, the root and every node together), keeping the best assignment found; status time-limit (default: none)",
      parseTimeLimit,
    )
    .option("--eta <x>", "AD3's initial quadratic penalty η, then adapted", parsePositive, 1)
    .option(
      "--tolerance <t>",
      "certified when dual − primal ≤ t · max(1, |dual|)",
      parseNonNegative,
      1e-6,
    )
    .option(
      "--posteriors <file>",
      "write the posteriors as ad3_multi's --file_posteriors does (atomically; - for standard output, the summary then going to standard error)",
    )
    .option(
      "--json",
      "print one JSON object: the summary and the MAP assignment in the file's terms",
    )
    .addHelpText(
      "after",
      `
The posteriors file has ad3_multi's layout: one line per binary variable (a .fg file's variables
in order; a UAI file's states, variable 0's first), a blank line, the factors' additional
posteriors (none are written: AD3's factor-level marginals are not kept), a blank line; numbers
as C++ prints them (6 significant digits). With --exact, the best 0/1 assignment, as ad3_multi.
--json's "assignment" is in the file's terms: 0/1 per variable of a .fg file (variable k at
index k − 1) with "states" giving the chosen state of each DENSE multi-variable; the chosen state
(0-based) of each UAI variable.`,
    )
    .action(lazy(() => import("../commands/factor-graph.js"), "factorGraphAction"));
  declareFiles(command, { inputs: { "--graph": "graph" }, outputs: ["--posteriors"] });
}
