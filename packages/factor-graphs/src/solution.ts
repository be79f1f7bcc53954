import type { BinarySolution } from "@lagrange/core/dual-decomposition";
import type { FactorGraphFile } from "./factor-graph-file.js";
import { parseAd3FactorGraph } from "./fg.js";
import { parseUaiFactorGraph } from "./uai.js";

/**
 * A factor graph's text read in one of AD3's formats: UAI when `format` says so or the name ends
 * in `.uai`, AD3's `.fg` otherwise.
 */
export function parseFactorGraph(
  text: string,
  name: string,
  format?: FactorGraphFile["format"],
): FactorGraphFile {
  const uai = format === undefined ? name.toLowerCase().endsWith(".uai") : format === "uai";
  return uai ? parseUaiFactorGraph(text, name) : parseAd3FactorGraph(text, name);
}

/** The MAP assignment in the file's terms. */
export interface FileAssignment {
  /**
   * `.fg`: 0/1 per file variable (variable k at index k − 1). UAI: the chosen state of each
   * variable, 0-based (−1 where the assignment picks none, which only an infeasible one does).
   */
  readonly assignment: number[];
  /** `.fg` with DENSE factors: the chosen state of each multi-variable, in declaration order. */
  readonly states?: number[];
}

/** The binary problem's assignment of `file` written back in the file's own variables. */
export function fileAssignment(file: FactorGraphFile, assignment: Uint8Array): FileAssignment {
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

/** The chosen state of a group of indicators: the first set one, −1 when none is. */
function chosenState(states: Int32Array, assignment: Uint8Array): number {
  for (let k = 0; k < states.length; k++) if (assignment[states[k]!] === 1) return k;
  return -1;
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
