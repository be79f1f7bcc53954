/**
 * The hostile-input suite's harness: the real `lagrange` binary (apps/cli/bin/lagrange.mjs, with
 * its supervisor) run under a memory cap and a time cap. The resident memory of the whole process
 * tree is sampled every few milliseconds; a run over either cap is killed (with its children) and
 * reported as such, so that a regression fails its test instead of taking the machine down.
 * Signals are sent with `kill`, and the time from the first one to the exit is measured. Tests only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import {
  BIN,
  type CliResult,
  captureOutput,
  expectCleanExit,
  hermeticEnv,
  processTree,
} from "../probe/cli-process.js";

export { BIN };

export interface BoundedOptions {
  readonly cwd: string;
  /** Cap on the resident memory of the whole process tree (default 1024 MB). */
  readonly memoryMb?: number;
  /** Cap on the wall time (default 30 s). */
  readonly timeoutMs?: number;
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Standard output: captured (default), or a file descriptor. */
  readonly stdout?: number;
}

export interface BoundedRun extends CliResult {
  /** Highest resident memory of the process tree seen, in MB. */
  readonly peakRssMb: number;
  readonly wallMs: number;
  /** Killed by the harness for going over the memory cap. */
  readonly overMemory: boolean;
  /** Killed by the harness for going over the time cap. */
  readonly overTime: boolean;
  /** Milliseconds from the first `kill` to the exit, when one was sent. */
  readonly stoppedMs?: number;
}

export interface RunningBounded {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once standard error has matched `pattern` (rejects if the process ends first). */
  stderrMatches(pattern: RegExp): Promise<void>;
  /** Sends `signal` to the binary's process (not its group); the first one starts `stoppedMs`. */
  kill(signal: NodeJS.Signals): void;
  readonly finished: Promise<BoundedRun>;
}

const SAMPLE_MS = 15;
const PAGE_KB = 4;

/** Starts `lagrange …args` under the caps and returns at once. */
export function startBounded(args: readonly string[], options: BoundedOptions): RunningBounded {
  const memoryMb = options.memoryMb ?? 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...hermeticEnv(options.cwd), ...options.env, FORCE_COLOR: "0" },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", options.stdout ?? "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${BIN}`);
  let peakRssMb = 0;
  let overMemory = false;
  let overTime = false;
  let signalledAt: number | undefined;
  let exited = false;
  const output = captureOutput(child);
  if (options.stdin !== undefined) {
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.stdin);
  }
  const killTree = () => {
    for (const p of processTree(pid)) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  };
  const sampler = setInterval(() => {
    if (exited) return;
    const rss = treeRssMb(pid);
    if (rss > peakRssMb) peakRssMb = rss;
    if (rss > memoryMb && !overMemory) {
      overMemory = true;
      killTree();
    }
    if (performance.now() - started > timeoutMs && !overTime) {
      overTime = true;
      killTree();
    }
  }, SAMPLE_MS);
  const finished = new Promise<BoundedRun>((resolve, reject) => {
    child.on("error", (error) => {
      clearInterval(sampler);
      reject(error);
    });
    child.on("close", (code, signal) => {
      exited = true;
      clearInterval(sampler);
      const ended = performance.now();
      // Children the binary left behind (it must not) are killed so that nothing outlives a test.
      killTree();
      resolve({
        code,
        signal,
        stdout: output.stdout,
        stderr: output.stderr,
        peakRssMb: Math.round(peakRssMb),
        wallMs: Math.round(ended - started),
        overMemory,
        overTime,
        ...(signalledAt === undefined ? {} : { stoppedMs: Math.round(ended - signalledAt) }),
      });
    });
  });
  return {
    child,
    pid,
    finished,
    kill(signal) {
      signalledAt ??= performance.now();
      try {
        process.kill(pid, signal);
      } catch {
        // It ended meanwhile: `finished` tells.
      }
    },
    stderrMatches: (pattern) => output.stderrMatches(pattern, finished),
  };
}

/** Runs `lagrange …args` to the end under the caps. */
export function runBounded(args: readonly string[], options: BoundedOptions): Promise<BoundedRun> {
  return startBounded(args, options).finished;
}

/** Runs every job, a few at a time (most of a run is the binary's start-up). */
export async function inParallel<T>(jobs: readonly (() => Promise<T>)[], width = 3): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]!();
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/**
 * The checks every hostile case makes: it stayed under its memory and time caps, and ended with a
 * documented exit code (the expected one, when given), no stack trace, and one `lagrange: …` line
 * on failure.
 */
export function expectBounded(run: BoundedRun, expected?: number): void {
  const context = `exit ${run.code} (signal ${run.signal}), peak ${run.peakRssMb} MB, ${run.wallMs} ms\nstderr: ${run.stderr}`;
  expect(run.overMemory, `over the memory cap: ${context}`).toBe(false);
  expect(run.overTime, `over the time cap: ${context}`).toBe(false);
  expectCleanExit(run, expected);
}

/** Resident memory of the tree in MB (0 where /proc is not there: other systems are not capped). */
function treeRssMb(root: number): number {
  let pages = 0;
  for (const pid of processTree(root)) {
    try {
      // statm: size resident shared text lib data dt (pages).
      const fields = readFileSync(`/proc/${pid}/statm`, "utf8").split(" ");
      pages += Number(fields[1] ?? 0);
    } catch {
      // Ended meanwhile.
    }
  }
  return (pages * PAGE_KB) / 1024;
}
