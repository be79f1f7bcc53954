/**
 * Hostile files (issue 28, slice A): what the command line names is not always a regular file.
 * Outputs: a character device (a copy of /dev/null made with mknod), a descriptor link (what
 * /dev/stdout is), a FIFO with a reader and one whose reader comes later, a symbolic link — each
 * written through, never replaced by a renamed file; and a temporary file that a killed writer
 * left is removed by the next write. Inputs: a FIFO with no writer as --data and as --model (the
 * process itself stops within 1 s of SIGINT: no thread blocked in open()), a FIFO fed a model
 * with worker threads (a pipe is read once, to its end), files the user cannot read (exit 2, one
 * message for every option), old Mac line endings (exit 3, said as such), and one 50 MB line
 * (read in linear time, under a memory cap).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  chunkingText,
  expectCleanExit,
  hermeticEnv,
  processTree,
  startCli,
  strayTemporaryFiles,
  trainModel,
} from "../probe/cli-process.js";
import { BIN, type BoundedRun, expectBounded, runBounded } from "./harness.js";

const linux = process.platform === "linux";
const isRoot = process.getuid?.() === 0;
/** The unprivileged user of the permission cases when the suite runs as root. */
const NOBODY = 65534;

/**
 * Why uid 65534 cannot run the unprivileged checks' child here, or undefined when it can: as
 * root they run Node from this checkout as that user, which fails when the checkout sits in a
 * folder only root may enter (a clone under `mktemp -d`, mode 0700).
 */
function nobodyCannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const probe = spawnSync(
    process.execPath,
    ["-e", "require('node:fs').accessSync(process.argv[1], 4)", fileURLToPath(import.meta.url)],
    { uid: NOBODY, gid: NOBODY },
  );
  return probe.status === 0 ? undefined : `uid ${NOBODY} cannot read this checkout`;
}
const nobodyBlocked = nobodyCannotRun();
const MEMORY_MB = 400;
const TIMEOUT_MS = 30_000;

let dir: string;
/** `lagrange tag --model model.crf --data data.conll` written to standard output. */
let expected: string;
const TAG = ["tag", "--model", "model.crf", "--data", "data.conll"];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-files-"));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "train.conll"), chunkingText(40, { seed: 1 }));
  writeFileSync(join(dir, "data.conll"), chunkingText(6, { seed: 2 }));
  await trainModel(dir, "train.conll", "chunking", 5, "model.crf");
  const run = await runBounded(TAG, bounds());
  expectBounded(run, 0);
  expected = run.stdout;
  expect(expected).toMatch(/ [BI]-NP\n/);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function bounds(memoryMb = MEMORY_MB) {
  return { cwd: dir, memoryMb, timeoutMs: TIMEOUT_MS };
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

/** A reader of a FIFO (`cat fifo`), as a user's would be. */
function readerOf(path: string): Promise<string> {
  const child = spawn("cat", [path], { stdio: ["ignore", "pipe", "ignore"] });
  let text = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
  });
  return new Promise((done) => child.on("close", () => done(text)));
}

/** A writer into a FIFO (`cat file > fifo`). */
function writeInto(path: string, from: string): void {
  spawn("sh", ["-c", 'cat "$1" > "$2"', "sh", from, path], { stdio: "ignore" });
}

function expectStdoutIsTheTagging(run: BoundedRun): void {
  expectBounded(run, 0);
  expect(run.stdout).toBe(expected);
}

describe.skipIf(process.platform === "win32")(
  "hostile outputs: written through, never replaced",
  () => {
    it.skipIf(!isRoot || !linux)(
      "--out a character device (a copy of /dev/null made with mknod, as root) stays that device",
      async () => {
        const device = join(dir, "null-device");
        execFileSync("mknod", [device, "c", "1", "3"]);
        const before = statSync(device).rdev;
        const run = await runBounded([...TAG, "--out", "null-device"], bounds());
        expectBounded(run, 0);
        expect(lstatSync(device).isCharacterDevice()).toBe(true);
        expect(statSync(device).rdev).toBe(before);
        expect(strayTemporaryFiles(dir)).toEqual([]);
      },
    );

    it.skipIf(!linux)(
      "--out a descriptor link to standard output (what /dev/stdout is) writes what --out - writes",
      async () => {
        symlinkSync("/proc/self/fd/1", join(dir, "stdout-link"));
        const run = await runBounded([...TAG, "--out", "stdout-link"], bounds());
        expectStdoutIsTheTagging(run);
        expect(readlinkSync(join(dir, "stdout-link"))).toBe("/proc/self/fd/1");
      },
    );

    it("--out a FIFO: the reader gets the whole output and its end, also one that comes after the open", async () => {
      const path = fifo("out-fifo");
      // Maybe no reader yet at the open: the command then waits for one as `cat > fifo` does,
      // without blocking a thread. Replacing the FIFO with a file, as before, left readers hanging.
      const running = runBounded([...TAG, "--out", "out-fifo"], bounds());
      await new Promise((done) => setTimeout(done, 500));
      const reader = readerOf(path);
      expectBounded(await running, 0);
      expect(await reader).toBe(expected);
      expect(lstatSync(path).isFIFO()).toBe(true);
    });

    it("--out a symbolic link writes its target; a temporary file a killed writer left there is removed", async () => {
      mkdirSync(join(dir, "models"));
      writeFileSync(join(dir, "models", "tagged.txt"), "previous\n");
      symlinkSync("models/tagged.txt", join(dir, "tagged-link"));
      // What SIGKILL leaves (it cannot be caught): the temporary file of a process that is gone.
      const dead = spawnedAndEnded();
      const stale = `.lgr-${dead}.0123456789ab.tmp`;
      writeFileSync(join(dir, "models", stale), "half a file");
      const run = await runBounded([...TAG, "--out", "tagged-link"], bounds());
      expectBounded(run, 0);
      expect(readFileSync(join(dir, "models", "tagged.txt"), "utf8")).toBe(expected);
      expect(lstatSync(join(dir, "tagged-link")).isSymbolicLink()).toBe(true);
      expect(readdirSync(join(dir, "models"))).toEqual(["tagged.txt"]);
    });
  },
);

/** The id of a process that has ended (so no process has it, barring reuse). */
function spawnedAndEnded(): number {
  return Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
}

/** Whether any process of the tree rooted at `pid` holds `path` open. */
function holdsOpen(pid: number, path: string): boolean {
  return processTree(pid).some((p) => {
    try {
      return readdirSync(`/proc/${p}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${p}/fd/${fd}`) === path;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

/**
 * Runs the CLI process itself (not the binary's supervisor, which would kill it 0.5 s after a
 * signal: the process must stop by itself) until it holds `path` open, sends SIGINT, and returns
 * the result and the milliseconds from the signal to the exit.
 */
async function interruptedWhileWaiting(
  args: readonly string[],
  path: string,
): Promise<{ result: CliResult; stoppedMs: number }> {
  const running = startCli(args, { cwd: dir });
  const child: ChildProcess = running.child;
  // A process that does not stop (the bug) is killed, with its tree, so that nothing outlives the test.
  const guard = setTimeout(() => {
    for (const p of processTree(child.pid!)) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }, 10_000);
  try {
    while (!holdsOpen(child.pid!, path)) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      await new Promise((done) => setTimeout(done, 20));
    }
    const sent = performance.now();
    child.kill("SIGINT");
    const result = await running.finished;
    return { result, stoppedMs: performance.now() - sent };
  } finally {
    clearTimeout(guard);
  }
}

describe.skipIf(!linux)("hostile inputs", () => {
  it("a FIFO with no writer as --data or --model: SIGINT stops the process itself within 1 s", async () => {
    const cases = [
      [[...TAG.slice(0, 3), "--data", "data-fifo"], fifo("data-fifo")],
      [["tag", "--model", "model-fifo", "--data", "data.conll"], fifo("model-fifo")],
      [
        ["train", "--data", "train-fifo", "--preset", "chunking", "--out", "t.crf"],
        fifo("train-fifo"),
      ],
    ] as const;
    const runs = await Promise.all(
      cases.map(([args, path]) => interruptedWhileWaiting(args, path)),
    );
    for (const { result, stoppedMs } of runs) {
      expectCleanExit(result, 130);
      expect(stoppedMs).toBeLessThan(1000);
    }
    expect(strayTemporaryFiles(dir)).toEqual([]);
  });

  it("FIFOs fed a model and data, with worker threads: each read once, to its end", async () => {
    const model = fifo("model-in");
    const data = fifo("data-in");
    writeInto(model, join(dir, "model.crf"));
    writeInto(data, join(dir, "data.conll"));
    const run = await runBounded(
      [
        "tag",
        "--model",
        "model-in",
        "--data",
        "data-in",
        "--threads",
        "2",
        "--output-format",
        "conll",
      ],
      bounds(800),
    );
    expectStdoutIsTheTagging(run);
  });

  it("old Mac line endings (CR alone) are refused as such, naming the file (exit 3)", async () => {
    writeFileSync(join(dir, "mac.conll"), "the DT B-NP\rcat NN I-NP\r\r");
    const run = await runBounded([...TAG.slice(0, 3), "--data", "mac.conll"], bounds());
    expectBounded(run, 3);
    expect(run.stderr).toMatch(
      /^lagrange: mac\.conll:1: lines end in CR only \(old Mac line endings\); convert them to LF or CRLF/m,
    );
  });

  it("a 50 MB line is read in linear time, under a memory cap", async () => {
    // One 50 MB token, then a line of another width: the error comes after the long line is read.
    writeFileSync(join(dir, "long.conll"), `${"a".repeat(50_000_000)}\nthe DT B-NP\n`);
    const run = await runBounded([...TAG.slice(0, 3), "--data", "long.conll"], {
      cwd: dir,
      memoryMb: 800,
      timeoutMs: 15_000,
    });
    expectBounded(run, 3);
    expect(run.stderr).toMatch(/^lagrange: long\.conll:2/m);
  });
});

describe.skipIf(process.platform === "win32")("files the user cannot read", () => {
  it.skipIf(nobodyBlocked !== undefined)(
    `are a usage error (exit 2) naming the option, for every kind of input (as uid ${NOBODY} under root)${nobodyBlocked === undefined ? "" : ` (skipped: ${nobodyBlocked})`}`,
    async () => {
      const closed = join(dir, "closed");
      mkdirSync(closed);
      writeFileSync(join(closed, "data.conll"), "the DT B-NP\n");
      chmodSync(closed, 0o600);
      writeFileSync(join(dir, "secret.conll"), "the DT B-NP\n");
      chmodSync(join(dir, "secret.conll"), 0o600);
      writeFileSync(join(dir, "secret.crf"), readFileSync(join(dir, "model.crf")));
      chmodSync(join(dir, "secret.crf"), 0o600);
      if (!isRoot) chmodSync(join(dir, "secret.conll"), 0o000);
      if (!isRoot) chmodSync(join(dir, "secret.crf"), 0o000);
      const cases: [readonly string[], string][] = [
        [[...TAG.slice(0, 3), "--data", "secret.conll"], "--data secret.conll"],
        [[...TAG.slice(0, 3), "--data", "closed/data.conll"], "--data closed/data.conll"],
        [["tag", "--model", "secret.crf", "--data", "data.conll"], "--model secret.crf"],
        [
          [
            "train",
            "--data",
            "train.conll",
            "--dev",
            "secret.conll",
            "--preset",
            "chunking",
            "--out",
            "-",
          ],
          "--dev secret.conll",
        ],
        [["info", "secret.crf"], "model secret.crf"],
        [["eval", "secret.conll"], "prediction file secret.conll"],
      ];
      const results = await Promise.all(cases.map(([args]) => runAsUnprivileged(args)));
      results.forEach((result, k) => {
        expectCleanExit(result, 2);
        expect(result.stderr).toContain(
          `lagrange: ${cases[k]![1]}: cannot be read (permission denied)`,
        );
      });
    },
  );
});

/** The binary run as an unprivileged user (nobody, when the tests run as root; else as is). */
function runAsUnprivileged(args: readonly string[]): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { ...process.env, ...hermeticEnv(dir), FORCE_COLOR: "0", HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code, signal) => done({ code, signal, stdout, stderr }));
  });
}
