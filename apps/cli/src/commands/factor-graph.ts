import { type BinarySolution, solveBinaryProblem } from "@lagrange/core/dual-decomposition";
import { fileAssignment, parseFactorGraph, posteriorsFile } from "@lagrange/factor-graphs";
import { readNamedText, requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { type Output, writeOutput } from "../output.js";
import { note, type Progress, progressBar, writeStderr } from "../progress.js";

export type GraphFormat = "fg" | "uai";

export interface FactorGraphOptions {
  readonly graph: string;
  /** Default: from the name (`*.uai` is UAI, anything else AD3's `.fg`). */
  readonly format?: GraphFormat;
  readonly exact?: boolean;
  readonly maxIterations: number;
  /** Seconds for the whole solve (branch and bound included); none when absent. */
  readonly timeLimit?: number;
  readonly eta: number;
  readonly tolerance: number;
  /** ad3_multi's posteriors file; `-` for standard output. */
  readonly posteriors?: string;
  readonly json?: boolean;
}

/** `lagrange factor-graph`: solves the graph; returns the summary (text or one JSON object). */
export async function factorGraphCommand(
  options: FactorGraphOptions,
  signal: AbortSignal,
): Promise<string> {
  requireFile("--graph", options.graph);
  const { posteriors } = options;
  if (posteriors === undefined) return solveGraph(options, undefined, signal);
  return writeOutput(posteriors, { option: "--posteriors", signal }, (out) =>
    solveGraph(options, out, signal),
  );
}

/** The flag's names of the formats → the package's. */
const FILE_FORMAT = { fg: "ad3", uai: "uai" } as const;

async function solveGraph(
  options: FactorGraphOptions,
  output: Output | undefined,
  signal: AbortSignal,
): Promise<string> {
  const readStart = performance.now();
  const text = await readNamedText("--graph", options.graph, signal);
  const file = parseFactorGraph(text, options.graph, options.format && FILE_FORMAT[options.format]);
  const format: GraphFormat = file.format === "uai" ? "uai" : "fg";
  const readSeconds = (performance.now() - readStart) / 1000;
  note(
    `solving ${options.graph} with AD3${options.exact === true ? " and branch and bound" : ""}: ${file.problem.variables} binary variables, ${file.problem.factors.length} factors`,
  );

  let bar: Progress | undefined;
  const started = performance.now();
  let solution: BinarySolution;
  try {
    solution = solveBinaryProblem(file.problem, {
      maxIterations: options.maxIterations,
      eta: options.eta,
      tolerance: options.tolerance,
      exact: options.exact === true,
      ...(options.timeLimit === undefined ? {} : { timeLimitMs: options.timeLimit * 1000 }),
      signal,
      // Only a terminal shows the bar: a piped run does not pay for the detail strings.
      ...(process.stderr.isTTY
        ? {
            onIteration: (stats) => {
              bar ??= progressBar("ad3", options.maxIterations);
              bar.update(
                Math.min(stats.iteration, options.maxIterations),
                `dual ${short(stats.dual)} primal ${short(stats.primal)}`,
              );
            },
          }
        : {}),
    });
  } finally {
    bar?.stop();
  }
  const seconds = (performance.now() - started) / 1000;

  if (output !== undefined) await output.write(posteriorsFile(solution, options.exact === true));
  const map = fileAssignment(file, solution.assignment);
  if (options.json === true) {
    return `${JSON.stringify({
      graph: options.graph,
      format,
      variables: file.counts.variables,
      binaryVariables: file.problem.variables,
      factors: file.counts.factors,
      factorsByType: file.counts.factorsByType,
      status: solution.status,
      iterations: solution.iterations,
      // −∞ (no assignment meets every factor) and an infinite gap are written as null.
      dual: solution.dual,
      primal: solution.primal,
      gap: solution.gap,
      certified: solution.certified,
      eta: solution.eta,
      nodes: solution.nodes,
      seconds,
      readSeconds,
      ...(options.posteriors === undefined ? {} : { posteriors: options.posteriors }),
      ...map,
    })}\n`;
  }
  const byType = Object.entries(file.counts.factorsByType)
    .map(([type, n]) => `${type} ${n}`)
    .join(", ");
  const variables =
    format === "uai"
      ? `${file.counts.variables} (${file.problem.variables} binary states)`
      : `${file.counts.variables} binary${file.multiVariables.length > 0 ? ` (${file.multiVariables.length} multi-variables of DENSE factors)` : ""}`;
  return [
    `graph       ${options.graph} (${format === "uai" ? "UAI" : "AD3 .fg"})`,
    `variables   ${variables}`,
    `factors     ${file.counts.factors}${byType === "" ? "" : `: ${byType}`}`,
    `status      ${solution.status}${options.exact === true ? ` (exact: ${solution.nodes} branch-and-bound nodes)` : ""}`,
    `iterations  ${solution.iterations}`,
    `dual        ${short(solution.dual)} (upper bound)`,
    `primal      ${solution.primal === Number.NEGATIVE_INFINITY ? "none (no assignment found meets every factor)" : `${short(solution.primal)} (best assignment)`}`,
    `gap         ${Number.isFinite(solution.gap) ? short(solution.gap) : "none (no primal)"}`,
    `certified   ${solution.certified ? "yes" : "no"}`,
    `time        ${seconds.toFixed(3)} s (reading ${readSeconds.toFixed(3)} s more)`,
    ...(options.posteriors === undefined || options.posteriors === "-"
      ? []
      : [`posteriors  ${options.posteriors}`]),
    "",
  ].join("\n");
}

/** Twelve significant digits: enough to compare bounds, short enough to read. */
function short(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(12))) : String(x);
}

/** What `lagrange factor-graph` does (its options are declared in ../define/factor-graph.ts). */
export async function factorGraphAction(opts: FactorGraphOptions): Promise<void> {
  const summary = await interruptible((signal) => factorGraphCommand(opts, signal));
  // Posteriors on standard output: the summary goes beside them, on standard error.
  if (opts.posteriors === "-") writeStderr(summary);
  else process.stdout.write(summary);
}
