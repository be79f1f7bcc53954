/**
 * Ctrl-C, SIGTERM and SIGHUP, sent with a real `kill` to the real binary (its supervisor's own
 * process, as a script's `kill -INT` does, or the whole process group, as a terminal's Ctrl-C
 * does) in the middle of its work: every command stops with 130, 143 or 129 and one line, an
 * existing output file is left as it was, and no temporary file remains. The full matrix (every
 * learner, decoder and command, at seeded moments) is the hostile suite's signals.test.ts.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BIN,
  expectCleanExit,
  hermeticEnv,
  type RunningCli,
  runCli,
  sha256,
  startCli,
  strayTemporaryFiles,
  trainModel,
  writeCitations,
} from "./cli-process.js";

let dir: string;
const tagMany = ["--model", "cite.model", "--data", "many.docs"];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-signals-"));
  await writeCitations(join(dir, "train.docs"), 150, 11);
  await writeCitations(join(dir, "many.docs"), 4000, 12);
  await writeCitations(join(dir, "some.docs"), 800, 14);
  await writeCitations(join(dir, "dev.docs"), 60, 13);
  await trainModel(dir, "train.docs", "citation", 10, "cite.model");
  const learned = await runCli(
    ["constraints", "learn", "--model", "cite.model", "--data", "dev.docs", "--out", "c.json"],
    { cwd: dir },
  );
  expectCleanExit(learned, 0);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once an atomic write has opened its temporary file in `dir`. */
async function temporaryFileAppears(running: RunningCli): Promise<void> {
  let ended = false;
  void running.finished.then(() => {
    ended = true;
  });
  while (strayTemporaryFiles(dir).length === 0) {
    if (ended) throw new Error("the command ended before opening its output");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An existing output file that an interrupted run must leave as it was. */
async function existingOutput(name: string): Promise<{ path: string; hash: string }> {
  const path = join(dir, name);
  await writeFile(path, `the previous ${name}\n`);
  return { path, hash: sha256(path) };
}

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

function expectStopped(
  result: Awaited<RunningCli["finished"]>,
  signal: keyof typeof EXIT_CODES,
): void {
  expectCleanExit(result, EXIT_CODES[signal]);
  expect(result.stderr).toMatch(new RegExp(`^lagrange: stopped by ${signal}; `, "m"));
  expect(result.stderr.match(/^lagrange: /gm)).toHaveLength(1);
  expect(strayTemporaryFiles(dir)).toEqual([]);
}

describe("signals stop every long command cleanly", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`train: ${signal} during L-BFGS; the previous model file is kept`, async () => {
      const previous = await existingOutput(`train-${signal}.model`);
      const running = startCli(
        [
          "train",
          "--data",
          "some.docs",
          "--preset",
          "citation",
          "--max-iterations",
          "500",
          "--out",
          previous.path,
        ],
        { cwd: dir },
      );
      await running.stderrMatches(/training lbfgs on/);
      running.child.kill(signal);
      expectStopped(await running.finished, signal);
      expect(sha256(previous.path)).toBe(previous.hash);
    });
  }

  it("constraints learn: SIGINT between epochs' sentences; no constraints file", async () => {
    const running = startCli(
      [
        "constraints",
        "learn",
        "--model",
        "cite.model",
        "--data",
        "many.docs",
        "--epochs",
        "1000",
        "--out",
        "learned.json",
      ],
      { cwd: dir },
    );
    await running.stderrMatches(/learning penalties/);
    running.child.kill("SIGINT");
    expectStopped(await running.finished, "SIGINT");
    expect(existsSync(join(dir, "learned.json"))).toBe(false);
  });

  it("tag --out with soft-dd: SIGINT once the output is open; no <out>.<pid>.tmp left", async () => {
    const previous = await existingOutput("tagged.txt");
    const running = startCli(
      [
        "tag",
        "--model",
        "cite.model",
        "--data",
        "many.docs",
        "--decoder",
        "soft-dd",
        "--constraints",
        "c.json",
        "--out",
        previous.path,
      ],
      { cwd: dir },
    );
    await temporaryFileAppears(running);
    running.child.kill("SIGINT");
    expectStopped(await running.finished, "SIGINT");
    expect(readFileSync(previous.path, "utf8")).toBe("the previous tagged.txt\n");
  });

  it("tag: a second Ctrl-C quits at once, still removing the temporary file", async () => {
    const running = startCli(
      ["tag", "--model", "cite.model", "--data", "many.docs", "--out", "twice.txt"],
      { cwd: dir },
    );
    await temporaryFileAppears(running);
    running.child.kill("SIGINT");
    running.child.kill("SIGINT");
    const result = await running.finished;
    expectCleanExit(result, 130);
    expect(strayTemporaryFiles(dir)).toEqual([]);
    expect(existsSync(join(dir, "twice.txt"))).toBe(false);
  });

  it("tag to standard output: SIGTERM", async () => {
    const running = startCli(["tag", "--model", "cite.model", "--data", "many.docs"], {
      cwd: dir,
    });
    await new Promise<void>((resolve) => running.child.stdout!.once("data", () => resolve()));
    running.child.kill("SIGTERM");
    expectStopped(await running.finished, "SIGTERM");
  });

  it("train --max-iterations 1: SIGINT during its only (so its last) iteration; the previous model is kept", async () => {
    // The case: nothing checked the signal between the end of training and the commit,
    // so a signal during the last iteration ended in exit 0 with the model replaced.
    const previous = await existingOutput("last-iteration.model");
    const running = startCli(
      ["train", "--data", "some.docs", "--preset", "citation", "--max-iterations", "1"].concat([
        "--out",
        previous.path,
      ]),
      { cwd: dir },
    );
    await running.stderrMatches(/training lbfgs on/);
    running.child.kill("SIGINT");
    expectStopped(await running.finished, "SIGINT");
    expect(sha256(previous.path)).toBe(previous.hash);
  });

  it("train: SIGHUP (a closed terminal) stops it too, with 129; the previous model is kept", async () => {
    const previous = await existingOutput("train-SIGHUP.model");
    const running = startCli(
      ["train", "--data", "some.docs", "--preset", "citation", "--max-iterations", "500"].concat([
        "--out",
        previous.path,
      ]),
      { cwd: dir },
    );
    await running.stderrMatches(/training lbfgs on/);
    running.child.kill("SIGHUP");
    expectStopped(await running.finished, "SIGHUP");
    expect(sha256(previous.path)).toBe(previous.hash);
  });

  it("a terminal's Ctrl-C reaches the binary and the command alike: one stop, its own line", async () => {
    // A process group of its own, as a shell gives a job: the group's SIGINT reaches the
    // supervisor and the command together, and the supervisor passes its copy on as well.
    const child = spawn(process.execPath, [BIN, "tag", ...tagMany, "--out", "group.txt"], {
      cwd: dir,
      env: { ...process.env, ...hermeticEnv(dir), FORCE_COLOR: "0" },
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const finished = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => child.on("close", (code, signal) => resolve({ code, signal })),
    );
    while (strayTemporaryFiles(dir).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.kill(-child.pid!, "SIGINT");
    const result = { ...(await finished), stdout: "", stderr };
    // Not a "second signal" exit without a word: one stop, reported once, nothing left.
    expectStopped(result, "SIGINT");
    expect(existsSync(join(dir, "group.txt"))).toBe(false);
  });

  it("demo: SIGINT while it trains on generated citations", async () => {
    const running = startCli(["demo", "--crf-iterations", "200"], { cwd: dir });
    await running.stderrMatches(/generated citations/);
    running.child.kill("SIGINT");
    expectStopped(await running.finished, "SIGINT");
  });
});
