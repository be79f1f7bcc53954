import { type BinarySolution, solveBinaryProblem } from "@lagrange/core/dual-decomposition";
import {
  type FactorGraphFile,
  parseAd3FactorGraph,
  parseUaiFactorGraph,
} from "@lagrange/factor-graphs";
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

/** The MAP assignment in the file's terms. */
interface FileAssignment {
  /**
   * `.fg`: 0/1 per file variable (variable k at index k − 1). UAI: the chosen state of each
   * variable, 0-based (−1 where the assignment picks none, which only an infeasible one does).
   */
  readonly assignment: number[];
  /** `.fg` with DENSE factors: the chosen state of each multi-variable, in declaration order. */
  readonly states?: number[];
}

/** `lagrange factor-graph`: solves the graph; returns the summary (text or one JSON object). */
export async function factorGraphCommand(
  options: FactorGraphOptions,
  signal: AbortSignal,
): Promise<string> {
  requireFile("--graph", options.graph);
  const format = options.format ?? formatOfName(options.graph);
  const { posteriors } = options;
  if (posteriors === undefined) return solveGraph(options, format, undefined, signal);
  return writeOutput(posteriors, { option: "--posteriors", signal }, (out) =>
    solveGraph(options, format, out, signal),
  );
}

function formatOfName(path: string): GraphFormat {
  return path.toLowerCase().endsWith(".uai") ? "uai" : "fg";
}

async function solveGraph(
  options: FactorGraphOptions,
  format: GraphFormat,
  output: Output | undefined,
  signal: AbortSignal,
): Promise<string> {
  const readStart = performance.now();
  const text = await readNamedText("--graph", options.graph, signal);
  const file =
    format === "uai"
      ? parseUaiFactorGraph(text, options.graph)
      : parseAd3FactorGraph(text, options.graph);
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

/**
 * ad3_multi's posteriors file for one graph: the variables' posteriors one a line, a blank line,
 * the factors' additional posteriors (not kept by the engine, so none), a blank line. Exact MAP
 * writes the integral solution there, as ad3_multi does.
 */
export function posteriorsFile(solution: BinarySolution, exact: boolean): string {
  const values = exact ? solution.assignment : solution.posteriors;
  const lines: string[] = [];
  for (const value of values) lines.push(cppDefaultFormat(value));
  return `${lines.join("\n")}${lines.length > 0 ? "\n" : ""}\n\n`;
}

/**
 * A double as C++'s `ostream << double` writes it by default (`%g`, 6 significant digits):
 * fixed notation for exponents −4…5 without trailing zeros, else `1.5e-07`.
 */
export function cppDefaultFormat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const scientific = x.toExponential(5);
  const e = scientific.indexOf("e");
  const exponent = Number(scientific.slice(e + 1));
  if (exponent < -4 || exponent >= 6) {
    const mantissa = stripZeros(scientific.slice(0, e));
    const sign = exponent < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return stripZeros(x.toFixed(5 - exponent));
}

function stripZeros(fixed: string): string {
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

/** The chosen state of a group of indicators: the first set one, −1 when none is. */
function chosenState(states: Int32Array, assignment: Uint8Array): number {
  for (let k = 0; k < states.length; k++) if (assignment[states[k]!] === 1) return k;
  return -1;
}

function fileAssignment(file: FactorGraphFile, assignment: Uint8Array): FileAssignment {
  if (file.format === "uai") {
    const chosen = new Array<number>(file.multiVariables.length).fill(-1);
    for (const v of file.multiVariables) chosen[v.fileVariable] = chosenState(v.states, assignment);
    return { assignment: chosen };
  }
  const values = new Array<number>(file.counts.variables).fill(0);
  file.binaryVariables.forEach((v, i) => {
    values[v.fileVariable - 1] = assignment[i] ?? 0;
  });
  if (file.multiVariables.length === 0) return { assignment: values };
  return {
    assignment: values,
    states: file.multiVariables.map((v) => chosenState(v.states, assignment)),
  };
}

/** What `lagrange factor-graph` does (its options are declared in ../define/factor-graph.ts). */
export async function factorGraphAction(opts: FactorGraphOptions): Promise<void> {
  const summary = await interruptible((signal) => factorGraphCommand(opts, signal));
  // Posteriors on standard output: the summary goes beside them, on standard error.
  if (opts.posteriors === "-") writeStderr(summary);
  else process.stdout.write(summary);
}
