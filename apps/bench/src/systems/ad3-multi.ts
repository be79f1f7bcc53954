import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnchorPeer, type AnchorPeerSpec, buildAnchorPeer } from "./anchor-peer.js";

/**
 * AD3's `ad3_multi` (Martins et al.), built from `../shared/anchors/ad3` as a benchmark peer.
 *
 * Unpatched it prints nothing per iteration (its FactorGraph's verbosity stays 0), prints values
 * to six digits, and times each graph in whole milliseconds. The copy it is built from gets two
 * hooks, both off unless their environment variable is set, neither inside the timed region:
 * - `LAGRANGE_AD3_VERBOSITY=n`: the factor graph's verbosity after the graph is read (so the
 *   factors made while reading keep theirs at 0), and 17 digits on stdout and the posteriors file;
 *   at n ≥ 2 AD3 and PSDD print a line on each iteration at which they compute the dual (every
 *   50th, and each one whose primal residual is below the threshold) and the final value.
 * - `LAGRANGE_AD3_SOLVE_TIME=1`: "Solve seconds = s" after each graph, from the same two clock
 *   reads ad3_multi's own "Elapsed time" sums (after reading the graph, through the solve), in
 *   microseconds; and "Solve CPU seconds = s", the process's CPU time (clock()) over the same
 *   stretch plus the one "Running …" line before it — what a busy machine inflates least.
 */

/** ad3_multi's defaults (ad3_multi.cpp, FactorGraph.{h,cpp} at commit 22131c7). */
export const AD3_MULTI_DEFAULTS = {
  maxIterations: 1000,
  /** ad3_multi passes its --eta to AD3 (initial η) and to PSDD (step η/√(t+1)) alike. */
  eta: 0.1,
  adaptEta: true,
  /** AD3 stops when both residuals are below it; PSDD uses 1e-6 and stops at 1e-12 (fixed). */
  residualThreshold: 1e-6,
  /** Both compute the dual only every 50th iteration and when the primal residual is small. */
  dualEvery: 50,
  /** AD3's η adaptation: every 10 iterations, ×2 when r_primal > 100·r_dual, ÷2 when r_dual > 10·r_primal, within [1e-3, 100]. */
  adaptEvery: 10,
} as const;

const VERBOSITY_HOOK =
  'clock_t lagrange_cpu_start = clock(); if (getenv("LAGRANGE_AD3_VERBOSITY") != NULL) { factor_graph.SetVerbosity(atoi(getenv("LAGRANGE_AD3_VERBOSITY"))); cout.precision(17); file_posteriors.precision(17); }';
const TIME_HOOK =
  'if (getenv("LAGRANGE_AD3_SOLVE_TIME") != NULL) { double lagrange_cpu = static_cast<double>(clock() - lagrange_cpu_start) / CLOCKS_PER_SEC; cout.precision(17); cout << "Solve seconds = " << (end.tv_sec - start.tv_sec) + 1e-6 * (end.tv_usec - start.tv_usec) << endl << "Solve CPU seconds = " << lagrange_cpu << endl; }';
const RUNNING_LINE = /^(\s*)cout << "Running " << niters/m;
const TIMED_LINE = /^(\s*)time_ddadmm \+= diff_ms\(end,\s*start\);$/m;

/**
 * ad3_multi.cpp with the two hooks (see above). Throws when the lines they go beside are not
 * there: another AD3 version, whose output this module may not read right.
 */
export function patchAd3MultiSource(source: string): string {
  if (!RUNNING_LINE.test(source) || !TIMED_LINE.test(source)) {
    throw new Error(
      'ad3_multi.cpp: expected the lines `cout << "Running " << niters` and `time_ddadmm += diff_ms(end,start);` (AD3 at commit 22131c7)',
    );
  }
  return `#include <cstdlib>\n#include <ctime>\n${source
    .replace(RUNNING_LINE, (line, indent: string) => `${indent}${VERBOSITY_HOOK}\n${line}`)
    .replace(TIMED_LINE, (line, indent: string) => `${line}\n${indent}${TIME_HOOK}`)}`;
}

export const AD3_MULTI_PEER: AnchorPeerSpec = {
  name: "ad3",
  anchor: "ad3",
  sentinel: "ad3_multi.cpp",
  makeTargets: ["libad3", "ad3_multi"],
  products: ["ad3_multi"],
  duration: "under a minute",
  patch: {
    version: "lagrange-hooks-2",
    apply: async (copy) => {
      const file = join(copy, "ad3_multi.cpp");
      await writeFile(file, patchAd3MultiSource(await readFile(file, "utf8")));
    },
  },
};

/** ad3_multi built (or reused from the bench cache), or why not. */
export function buildAd3Multi(status: (message: string) => void): Promise<AnchorPeer> {
  return buildAnchorPeer(AD3_MULTI_PEER, status);
}

/** One line AD3 or PSDD prints at an iteration where it computes the dual (verbosity ≥ 2). */
export interface Ad3MultiTracePoint {
  /** 0-based, as printed. */
  readonly iteration: number;
  /** Since the solve began; whole milliseconds (ad3_multi's clock). */
  readonly seconds: number;
  readonly dual: number;
  /** The relaxed primal at this iterate; null where not computed (ad3_multi prints −1e100). */
  readonly primal: number | null;
  readonly bestDual: number;
  readonly bestPrimal: number | null;
  readonly primalResidual: number;
  /** AD3 only. */
  readonly dualResidual: number | null;
  readonly eta: number;
}

export type Ad3MultiStatus = "integer" | "fractional" | "lower-bound" | "approximate";

/** What ad3_multi printed about one graph of its input file. */
export interface Ad3MultiGraphOutput {
  readonly algorithm: string;
  /** From "Read N variables and M factors." (UAI: multi-variables); null where not printed. */
  readonly variables: number | null;
  readonly factors: number | null;
  readonly trace: readonly Ad3MultiTracePoint[];
  /**
   * Iterations run: the printed final t + 1 when the run stopped early (solved, or a dual below
   * the lower bound), t when it used them all. Summed over branch-and-bound nodes (exact).
   */
  readonly iterations: number | null;
  /** The objective of the posteriors (the "Solution value"; exact: of the ILP solution). */
  readonly value: number | null;
  /** The best dual of the last trace line; null without a trace. */
  readonly bestDual: number | null;
  readonly status: Ad3MultiStatus | null;
  /** ad3_multi's "Took" (verbosity ≥ 2), whole milliseconds. */
  readonly tookSeconds: number | null;
  /** From the solve-time hook, microseconds. */
  readonly solveSeconds: number | null;
  /** From the solve-time hook: CPU seconds. */
  readonly solveCpuSeconds: number | null;
}

export interface Ad3MultiOutput {
  readonly graphs: readonly Ad3MultiGraphOutput[];
  /** "Elapsed time": the sum over graphs, each truncated to whole milliseconds. */
  readonly elapsedSeconds: number | null;
}

const NOT_COMPUTED = -1e99;
const optional = (x: number | undefined) => (x === undefined || x < NOT_COMPUTED ? null : x);

const STATUS_LINES: Readonly<Record<string, Ad3MultiStatus>> = {
  "Solution is integer.": "integer",
  "Solution is fractional.": "fractional",
  "Solution is only approximate.": "approximate",
};

/** Reads ad3_multi's stdout (any verbosity; one or more graphs per file). */
export function parseAd3MultiOutput(text: string): Ad3MultiOutput {
  const graphs: Ad3MultiGraphOutput[] = [];
  let elapsedSeconds: number | null = null;
  let read: { variables: number; factors: number } | null = null;
  let current: {
    algorithm: string;
    variables: number | null;
    factors: number | null;
    trace: Ad3MultiTracePoint[];
    iterations: number | null;
    lastT: number | null;
    value: number | null;
    status: Ad3MultiStatus | null;
    tookSeconds: number | null;
    solveSeconds: number | null;
    solveCpuSeconds: number | null;
    ilpValue: number | null;
  } | null = null;
  const close = () => {
    if (current === null) return;
    let iterations = current.iterations;
    // A run that used every iteration printed t = the cap; one that stopped early, the t it broke at.
    if (current.lastT !== null) {
      iterations = (iterations ?? 0) + current.lastT + (current.status === "approximate" ? 0 : 1);
    }
    graphs.push({
      algorithm: current.algorithm,
      variables: current.variables,
      factors: current.factors,
      trace: current.trace,
      iterations,
      value: current.ilpValue ?? current.value,
      bestDual: current.trace.at(-1)?.bestDual ?? null,
      status: current.status,
      tookSeconds: current.tookSeconds,
      solveSeconds: current.solveSeconds,
      solveCpuSeconds: current.solveCpuSeconds,
    });
    current = null;
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const readLine = line.match(/^Read (\d+) (?:multi-)?variables and (\d+) factors\.$/);
    if (readLine) {
      close();
      read = { variables: Number(readLine[1]), factors: Number(readLine[2]) };
      continue;
    }
    const running = line.match(/^Running (\d+) iterations of (\S+) \(eta = [^)]*\)\.\.\.$/);
    if (running) {
      close();
      current = {
        algorithm: running[2]!,
        variables: read?.variables ?? null,
        factors: read?.factors ?? null,
        trace: [],
        iterations: null,
        lastT: null,
        value: null,
        status: null,
        tookSeconds: null,
        solveSeconds: null,
        solveCpuSeconds: null,
        ilpValue: null,
      };
      read = null;
      continue;
    }
    const elapsed = line.match(/^Elapsed time: (\S+) sec\.$/);
    if (elapsed) {
      close();
      elapsedSeconds = Number(elapsed[1]);
      continue;
    }
    if (current === null) continue;
    if (line.startsWith("Iteration = ")) {
      const fields = new Map<string, number>();
      for (const part of line.split("\t")) {
        const kv = part.match(/^(.+?) = (\S+)(?: sec\.)?$/);
        if (kv) fields.set(kv[1]!, Number(kv[2]));
      }
      current.trace.push({
        iteration: fields.get("Iteration") ?? Number.NaN,
        seconds: fields.get("Time") ?? Number.NaN,
        dual: fields.get("Dual obj") ?? Number.NaN,
        primal: optional(fields.get("Primal rel obj")),
        bestDual: fields.get("Best dual obj") ?? Number.NaN,
        bestPrimal: optional(fields.get("Best primal rel obj")),
        primalResidual: fields.get("Primal residual") ?? Number.NaN,
        dualResidual: fields.get("Dual residual") ?? null,
        eta: fields.get("eta") ?? Number.NaN,
      });
      continue;
    }
    const solution = line.match(/^Solution value after (\d+) iterations \([^)]*\) = (\S+)$/);
    if (solution) {
      // Exact mode runs AD3 at every branch-and-bound node: one such line per node.
      if (current.lastT !== null) {
        current.iterations =
          (current.iterations ?? 0) + current.lastT + (current.status === "approximate" ? 0 : 1);
      }
      current.lastT = Number(solution[1]);
      current.value = Number(solution[2]);
      current.status = null;
      continue;
    }
    const ilp = line.match(/^Solution value for AD3 ILP: (\S+)$/);
    if (ilp) current.ilpValue = Number(ilp[1]);
    const took = line.match(/^Took (\S+) sec\.$/);
    if (took) current.tookSeconds = Number(took[1]);
    const solve = line.match(/^Solve seconds = (\S+)$/);
    if (solve) current.solveSeconds = Number(solve[1]);
    const cpu = line.match(/^Solve CPU seconds = (\S+)$/);
    if (cpu) current.solveCpuSeconds = Number(cpu[1]);
    if (line.startsWith("Reached lower bound: ")) current.status = "lower-bound";
    const ended = STATUS_LINES[line];
    if (ended !== undefined) current.status = ended;
  }
  close();
  return { graphs, elapsedSeconds };
}

export interface Ad3MultiRunOptions {
  readonly binary: string;
  readonly format: "ad3" | "uai";
  readonly file: string;
  readonly algorithm: "ad3" | "psdd";
  readonly maxIterations?: number;
  readonly eta?: number;
  readonly residualThreshold?: number;
  readonly exact?: boolean;
  /** Verbosity 2: the per-iteration trace, the final value and status, 17 digits. */
  readonly trace?: boolean;
  /** Print each graph's solve time in microseconds. */
  readonly solveTime?: boolean;
  readonly timeoutMs?: number;
}

export type Ad3MultiRun =
  | { readonly kind: "ok"; readonly output: Ad3MultiOutput; readonly stdout: string }
  | { readonly kind: "failed"; readonly reason: string };

/** Runs ad3_multi once on a file (posteriors to a scratch file); its stdout read, or why it failed. */
export async function runAd3Multi(options: Ad3MultiRunOptions): Promise<Ad3MultiRun> {
  const work = await mkdtemp(join(tmpdir(), "lagrange-ad3-multi-"));
  try {
    const args = [
      `--format=${options.format}`,
      `--file_graphs=${options.file}`,
      `--file_posteriors=${join(work, "posteriors.txt")}`,
      `--algorithm=${options.algorithm}`,
      ...(options.maxIterations === undefined ? [] : [`--max_iterations=${options.maxIterations}`]),
      ...(options.eta === undefined ? [] : [`--eta=${options.eta}`]),
      ...(options.residualThreshold === undefined
        ? []
        : [`--residual_threshold=${options.residualThreshold}`]),
      ...(options.exact === true ? ["--exact=true"] : []),
    ];
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (options.trace === true) env.LAGRANGE_AD3_VERBOSITY = "2";
    if (options.solveTime === true) env.LAGRANGE_AD3_SOLVE_TIME = "1";
    const { code, signal, stdout, stderr } = await new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn(options.binary, args, {
        env,
        stdio: ["ignore", "pipe", "pipe"],
        timeout: options.timeoutMs ?? 600_000,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => err.push(b));
      child.on("error", reject);
      child.on("close", (c, s) =>
        resolve({
          code: c,
          signal: s,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
        }),
      );
    });
    if (code !== 0) {
      const why = `${stderr}\n${stdout}`.trim().split("\n").slice(-2).join(" ");
      return {
        kind: "failed",
        reason: `ad3_multi ${signal === null ? `exited with ${code}` : `died of ${signal}`}${why === "" ? "" : `: ${why}`}`,
      };
    }
    const output = parseAd3MultiOutput(stdout);
    // ad3_multi prints its usage or an error and still exits 0 on bad flags or an unreadable file.
    if (output.graphs.length === 0) {
      return {
        kind: "failed",
        reason: `ad3_multi solved no graph: ${stdout.trim().split("\n").slice(-2).join(" ")}`,
      };
    }
    return { kind: "ok", output, stdout };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The same graph `copies` times in one file, for timing: ad3_multi solves each in turn, each in a
 * fresh FactorGraph, and (with the solve-time hook) prints each one's time.
 */
export function repeatGraph(text: string, copies: number, format: "ad3" | "uai"): string {
  if (format === "uai") return `${text.trimEnd()}\n\n`.repeat(copies);
  // ad3_multi reads a `.fg` graph as exactly 2 + variables + factors lines and then one more line
  // whatever it holds (some of AD3's files end with a stray word there): keep those lines, then a
  // blank one.
  const lines = text.split("\n");
  const count = (k: number) => Number.parseInt((lines[k] ?? "").split("#")[0]!.trim(), 10);
  const length = 2 + count(0) + count(1);
  if (!(length >= 2) || lines.length < length) {
    throw new Error(
      `expected a .fg graph (variables, factors, then one line each), got ${lines.length} lines`,
    );
  }
  return `${lines.slice(0, length).join("\n")}\n\n`.repeat(copies);
}
