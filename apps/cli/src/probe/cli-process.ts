/**
 * The probe suite's harness: the real `lagrange` binary as a subprocess (what a user runs), the
 * data it is probed with (generated, seeded), and the checks every probe makes — the exit code, no
 * stack trace, and no file lost or left behind. Tests only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { STOP_SIGNALS, signalExitCode } from "../interruption.js";

// The probes' data and their look at files and processes, in one import with the harness.
export { childrenOf, listFiles, processTree, sha256, strayTemporaryFiles } from "./inspect.js";
export { chunkingText, writeCitations } from "./probe-data.js";

/**
 * The `lagrange` binary, as a user and `pnpm lagrange` run it: its supervisor runs the sources in a
 * child process (see bin/lagrange.mjs).
 */
export const BIN = fileURLToPath(new URL("../../bin/lagrange.mjs", import.meta.url));

/** The exit codes of a command stopped by a signal it catches (130 SIGINT, 143 SIGTERM, …). */
export const STOPPED_EXIT_CODES: readonly number[] = STOP_SIGNALS.map(signalExitCode);

/**
 * Every exit code the CLI documents (`--help`), the signals' included: 137 is a command killed by
 * SIGKILL (the out-of-memory killer), which the binary's supervisor reports.
 */
export const DOCUMENTED_EXIT_CODES: readonly number[] = [0, 1, 2, 3, 4, 137, ...STOPPED_EXIT_CODES];

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd: string;
  /** Standard output: captured (default), or a file descriptor (`/dev/full`). */
  readonly stdout?: number;
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * An environment that reaches no real corpus: registry names resolve to nothing (exit 4), so a
 * probe behaves the same on a fresh clone and on a machine with the mirror.
 */
export function hermeticEnv(dir: string): Record<string, string> {
  const empty = join(dir, ".no-data");
  mkdirSync(empty, { recursive: true });
  return {
    LAGRANGE_DATA_DIR: empty,
    LAGRANGE_CACHE_DIR: empty,
    LAGRANGE_OFFLINE: "1",
  };
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** Resolves once standard error has matched `pattern` (rejects if the process ends first). */
  stderrMatches(pattern: RegExp): Promise<void>;
  readonly finished: Promise<CliResult>;
}

/** Starts `lagrange …args` and returns at once. */
export function startCli(args: readonly string[], options: CliOptions): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...hermeticEnv(options.cwd), ...options.env, FORCE_COLOR: "0" },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", options.stdout ?? "pipe", "pipe"],
  });
  const output = captureOutput(child);
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  const finished = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout: output.stdout, stderr: output.stderr }),
    );
  });
  return {
    child,
    finished,
    stderrMatches: (pattern) => output.stderrMatches(pattern, finished),
  };
}

/** A child's standard output and error as they have come so far (the probe and hostile harnesses). */
export interface CapturedOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once standard error has matched `pattern` (rejects if `finished` settles first). */
  stderrMatches(pattern: RegExp, finished: Promise<unknown>): Promise<void>;
}

export function captureOutput(child: ChildProcess): CapturedOutput {
  let stdout = "";
  let stderr = "";
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const w of watchers) if (w.pattern.test(stderr)) w.resolve();
  });
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    stderrMatches: (pattern, finished) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(stderr)) return resolve();
        watchers.push({ pattern, resolve });
        finished.then(
          () =>
            pattern.test(stderr)
              ? resolve()
              : reject(new Error(`ended before stderr matched ${pattern}:\n${stderr}`)),
          reject,
        );
      }),
  };
}

/** Runs `lagrange …args` to the end. */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).finished;
}

/** A line of a Node stack trace, or the marks of an error nobody handled. */
const STACK_TRACE =
  /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$|node:internal|Unhandled '?error|^\w*Error: |Uncaught/m;

/** The one check every probe makes: a documented exit code and no stack trace on stderr. */
export function expectCleanExit(result: CliResult, expected?: number): void {
  const context = `exit ${result.code} (signal ${result.signal})\nstderr: ${result.stderr}`;
  expect(result.signal, context).toBeNull();
  expect(DOCUMENTED_EXIT_CODES as readonly (number | null)[], context).toContain(result.code);
  if (expected !== undefined) expect(result.code, context).toBe(expected);
  expect(result.stderr, context).not.toMatch(STACK_TRACE);
  if (result.code !== 0 && !STOPPED_EXIT_CODES.includes(result.code ?? 0)) {
    // A failure says what went wrong in one `lagrange: …` line (commander prints its own "error:").
    expect(result.stderr, context).toMatch(/^(lagrange: |error: )/m);
  }
}

/** Trains a model through the binary, for the probes to tag with. */
export async function trainModel(
  dir: string,
  data: string,
  preset: "chunking" | "citation",
  iterations: number,
  out: string,
): Promise<void> {
  const args = ["train", "--data", data, "--preset", preset, "--max-iterations", `${iterations}`];
  expectCleanExit(await runCli([...args, "--out", out], { cwd: dir }), 0);
}

/** Predicted labels (last column) of a `lagrange tag` output, sentence by sentence. */
export function predictions(text: string): string[][] {
  return text
    .split(/\n\s*\n/)
    .filter((block) => block.trim() !== "")
    .map((block) =>
      block
        .trim()
        .split("\n")
        .map((line) => line.trim().split(/\s+/).at(-1)!),
    );
}
