/**
 * Signals at random moments of every long command (issue 28, slice B). SIGINT, SIGTERM and SIGHUP
 * are sent with `kill` to the binary's own process — what a script does, and what the workspace
 * bin used to swallow — at a moment drawn from a seeded generator after the command has opened
 * its output (or printed its first line). Every run must end in 130, 143 or 129 within 1 s of the
 * signal (capped at 2 s here: see STOP_MS), with one `lagrange:` line, no temporary file left,
 * and the previous output file byte for byte as it was. The commands: training with every
 * learner and objective, tagging with every decoder (one thread and several), constraints learn,
 * rules mine, import and export. Some are stopped by their own checkpoints, others (a decode of
 * one sentence with a million iterations, a model being converted) only by the supervisor's
 * kill; the contract is the same. Each case runs in its own folder, so that the temporary-file
 * checks see that case's files only.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  childrenOf,
  chunkingText,
  sha256,
  strayTemporaryFiles,
  writeCitations,
} from "../probe/cli-process.js";
import { run } from "../testing/run-cli.js";
import { type BoundedRun, expectBounded, type RunningBounded, startBounded } from "./harness.js";

type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";
const EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
/**
 * The target is 1 s from the first signal to the exit: a command stops at its next checkpoint
 * (tens of ms) or is killed by the supervisor 0.5 s after the signal (about 0.55 s measured). The
 * cap is twice that, for a loaded two-core CI machine running other suites beside this one.
 */
const STOP_MS = 2000;
const MEMORY_MB = 1024;
const TIMEOUT_MS = 30_000;

/** The seeded moments: a delay after the command's work has begun. */
const random = seededRandom(28);
const moment = (maxMs: number) => Math.round(random() * maxMs);

/**
 * Runs at a time: most of a case is the binary's start-up, so a few overlap well (the suite's
 * budget is half a minute), and few enough that the machine still answers a signal at once.
 */
const PARALLEL = 3;
let inFlight = 0;
const waiting: (() => void)[] = [];
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A run that ends hands its place to the next in line.
  if (inFlight >= PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else inFlight++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) inFlight--;
    else next();
  }
}

let root: string;
/** Inputs shared by every case (absolute paths; outputs go to each case's own folder). */
const data = (name: string) => join(root, "data", name);

/** `word POS label` rows with `labels` distinct labels, seeded: training time grows with L². */
function manyLabels(labels: number, sentences: number): string {
  const next = seededRandom(1000);
  let text = "";
  for (let s = 0; s < sentences; s++) {
    const length = 5 + Math.floor(next() * 10);
    for (let t = 0; t < length; t++) {
      const label = Math.floor(next() * labels);
      text += `w${label}x${Math.floor(next() * 3)} P${label % 17} L${label}\n`;
    }
    text += "\n";
  }
  return text;
}

/** Seeded tweets (`token<TAB>tag`, PER and LOC) that share words by topic: general-CRF groups. */
function tweets(count: number): string {
  const topics = [
    ["concert", "tonight", "tickets", "amazing", "show", "crowd", "singing"],
    ["match", "goal", "score", "final", "league", "fans", "winning"],
    ["phone", "launch", "screen", "battery", "price", "review", "camera"],
  ];
  const people = [["Taylor", "Swift"], ["Harry", "Kane"], ["Tim"]];
  const places = [["London"], ["New", "York"], ["Tokyo"]];
  const next = seededRandom(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  let text = "";
  for (let k = 0; k < count; k++) {
    const rows = [...topics[k % topics.length]!]
      .sort(() => next() - 0.5)
      .slice(0, 6)
      .map((w) => [w, "O"]);
    rows.splice(1, 0, ...pick(people).map((w, i) => [w, i === 0 ? "B-PER" : "I-PER"]));
    rows.push(["in", "O"], ...pick(places).map((w, i) => [w, i === 0 ? "B-LOC" : "I-LOC"]));
    text += `${rows.map((r) => r.join("\t")).join("\n")}\n\n`;
  }
  return text;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "lagrange-hostile-signals-"));
  await mkdir(join(root, "data"));
  await writeCitations(data("train.docs"), 120, 11);
  await writeCitations(data("dev.docs"), 40, 13);
  await writeCitations(data("many.docs"), 2000, 12);
  await writeFile(data("chunks.conll"), chunkingText(3000, { seed: 3 }));
  await writeFile(data("few-chunks.conll"), chunkingText(200, { seed: 4 }));
  await writeFile(data("labels.conll"), manyLabels(1000, 100));
  await writeFile(data("tweets.conll"), tweets(60));
  await writeFile(data("many-tweets.conll"), tweets(3000));
  // Tagging inputs for the fast taggers, long enough to be still at work when the signal comes.
  await writeFile(data("long-chunks.conll"), chunkingText(20_000, { seed: 5 }));
  await writeFile(data("long-tweets.conll"), tweets(10_000));
  // The models the tagging cases read, made in this process (no binary start-up to pay).
  const made = await Promise.all([
    run(
      ["train", "--data", data("train.docs"), "--preset", "citation"].concat([
        "--max-iterations",
        "10",
        "--out",
        data("cite.model"),
      ]),
    ),
    run(
      ["train", "--data", data("few-chunks.conll"), "--preset", "chunking"].concat([
        "--max-iterations",
        "10",
        "--out",
        data("chunk.model"),
      ]),
    ),
    run(
      ["train", "--learner", "l2s", "--task", "pos", "--data", data("few-chunks.conll")].concat([
        "--bits",
        "16",
        "--out",
        data("pos.l2s"),
      ]),
    ),
  ]);
  const general = await run(
    ["train", "--model", "general", "--groups", "tweets", "--data", data("tweets.conll")].concat(
      ["--preset", "ner-words", "--max-iterations", "5", "--folds", "2", "--epochs", "2"],
      ["--out", data("general.model")],
    ),
  );
  const constraints = await run(
    ["constraints", "learn", "--model", data("cite.model"), "--data", data("dev.docs")].concat([
      "--out",
      data("c.json"),
    ]),
  );
  const exported = await run([
    "export",
    "--to",
    "crfsuite",
    "--model",
    data("cite.model"),
    "--out",
    data("cite.crfsuite"),
  ]);
  for (const r of [...made, general, constraints, exported]) expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A case's own folder, with the previous output already there (its hash, to compare). */
async function caseFolder(name: string, out: string | undefined) {
  const dir = join(root, name);
  await mkdir(dir);
  if (out === undefined) return { dir, hash: undefined };
  await writeFile(join(dir, out), `the previous ${out}, which an interrupted run must keep\n`);
  return { dir, hash: sha256(join(dir, out)) };
}

/** Resolves once `dir` holds the output's temporary file (the command opened its output). */
async function outputOpened(running: RunningBounded, dir: string): Promise<void> {
  let ended = false;
  void running.finished.then(() => {
    ended = true;
  });
  while (strayTemporaryFiles(dir).length === 0) {
    if (ended) throw new Error("the command ended before opening its output");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function expectStopped(
  run: BoundedRun,
  signal: StopSignal,
  dir: string,
  out: string | undefined,
  hash: string | undefined,
): void {
  const context = `exit ${run.code}, stopped in ${run.stoppedMs} ms\nstderr: ${run.stderr}`;
  expectBounded(run, EXIT_CODE[signal]);
  expect(run.stoppedMs, context).toBeLessThanOrEqual(STOP_MS);
  expect(run.stderr, context).toMatch(
    new RegExp(`^lagrange: stopped by ${signal}; no partial output was kept$`, "m"),
  );
  expect(run.stderr.match(/^lagrange: /gm), context).toHaveLength(1);
  expect(strayTemporaryFiles(dir), context).toEqual([]);
  if (out !== undefined) expect(sha256(join(dir, out)), context).toBe(hash);
}

interface SignalCase {
  readonly name: string;
  /** Its `--out` names a file in the case's folder; without one it writes standard output. */
  readonly args: readonly string[];
  readonly signal: StopSignal;
  /** Waits for this stderr line instead of the output's temporary file. */
  readonly after?: RegExp;
  /**
   * The signal comes up to this many ms after that (seeded; default 600): less for the commands
   * whose work after that point is short, so that they are still at it on a fast machine.
   */
  readonly withinMs?: number;
  /** A second signal 100 ms after the first (a second Ctrl-C: stop at once). */
  readonly twice?: boolean;
}

const cite = ["--model", "cite.model"];
const trainOn = (file: string, preset: string, ...rest: string[]) => [
  "train",
  "--data",
  file,
  "--preset",
  preset,
  "--max-iterations",
  "100000",
  ...rest,
  "--out",
  "out.model",
];
const tagMany = (...rest: string[]) => ["tag", ...cite, "--data", "many.docs", ...rest];
const tagInto = (...rest: string[]) => [...tagMany(...rest), "--out", "out.txt"];

/** Every long command, each with one signal (they rotate), at a seeded moment. */
const CASES: readonly SignalCase[] = [
  // Training: every learner and objective.
  { name: "train lbfgs", args: trainOn("many.docs", "citation"), signal: "SIGINT" },
  {
    name: "train owlqn",
    args: trainOn("many.docs", "citation", "--algorithm", "owlqn"),
    signal: "SIGTERM",
  },
  {
    name: "train ap (perceptron)",
    args: trainOn("many.docs", "citation", "--algorithm", "ap"),
    signal: "SIGHUP",
  },
  {
    name: "train sgd",
    args: trainOn("many.docs", "citation", "--algorithm", "sgd"),
    signal: "SIGINT",
  },
  {
    name: "train --objective bcrf",
    args: trainOn("many.docs", "citation", "--objective", "bcrf"),
    signal: "SIGTERM",
  },
  {
    name: "train --objective mean-field",
    args: trainOn("many.docs", "citation", "--objective", "mean-field"),
    signal: "SIGINT",
  },
  {
    name: "train --threads 2",
    args: trainOn("many.docs", "citation", "--threads", "2"),
    signal: "SIGHUP",
  },
  {
    name: "train --learner l2s",
    args: [
      "train",
      "--learner",
      "l2s",
      "--task",
      "pos",
      "--data",
      "chunks.conll",
      "--passes",
      "1000",
      "--out",
      "out.model",
    ],
    signal: "SIGTERM",
  },
  {
    name: "train --model general",
    args: [
      "train",
      "--model",
      "general",
      "--groups",
      "tweets",
      "--data",
      "many-tweets.conll",
      "--preset",
      "ner-words",
      "--epochs",
      "1000",
      "--out",
      "out.model",
    ],
    signal: "SIGINT",
  },
  // Tagging: every decoder, one thread and two.
  {
    name: "tag viterbi to standard output",
    args: tagMany(),
    signal: "SIGTERM",
    after: /./,
    withinMs: 200,
  },
  {
    name: "tag soft-dd",
    args: tagInto("--decoder", "soft-dd", "--constraints", "c.json"),
    signal: "SIGINT",
  },
  {
    name: "tag hard-dd",
    args: tagInto("--decoder", "hard-dd", "--constraints", "c.json"),
    signal: "SIGHUP",
  },
  {
    name: "tag exact",
    args: tagInto("--decoder", "exact", "--constraints", "c.json"),
    signal: "SIGTERM",
  },
  {
    name: "tag two-phase",
    args: tagInto("--decoder", "two-phase", "--constraints", "c.json"),
    signal: "SIGINT",
  },
  {
    name: "tag bcrf, 10⁶ iterations: two Ctrl-C",
    args: tagInto("--decoder", "bcrf", "--bcrf-iterations", "1e6"),
    signal: "SIGINT",
    twice: true,
  },
  {
    name: "tag mean-field, 10⁶ iterations",
    args: tagInto("--decoder", "mean-field", "--bcrf-iterations", "1e6"),
    signal: "SIGTERM",
  },
  {
    // CoNLL, which streams: the worker threads tag it (bcrf's 1,000 steps make it last).
    name: "tag --threads 2",
    args: ["tag", "--model", "chunk.model", "--data", "chunks.conll", "--threads", "2"].concat([
      "--decoder",
      "bcrf",
      "--bcrf-iterations",
      "1000",
      "--out",
      "out.txt",
    ]),
    signal: "SIGHUP",
  },
  {
    name: "tag greedy (an L2S tagger)",
    args: ["tag", "--model", "pos.l2s", "--data", "long-chunks.conll", "--out", "out.txt"],
    signal: "SIGINT",
    withinMs: 200,
  },
  {
    name: "tag two-slave (a general CRF)",
    args: ["tag", "--model", "general.model", "--data", "long-tweets.conll", "--out", "out.txt"],
    signal: "SIGTERM",
    withinMs: 200,
  },
  {
    name: "tag naive-dd (a general CRF)",
    args: [
      "tag",
      "--model",
      "general.model",
      "--data",
      "long-tweets.conll",
      "--decoder",
      "naive-dd",
      "--out",
      "out.txt",
    ],
    signal: "SIGHUP",
    withinMs: 200,
  },
  // The other commands that work long or write a file.
  {
    name: "constraints learn",
    args: [
      "constraints",
      "learn",
      ...cite,
      "--data",
      "many.docs",
      "--epochs",
      "1000",
      "--out",
      "out.json",
    ],
    signal: "SIGHUP",
  },
  {
    name: "rules mine",
    args: ["rules", "mine", "--data", "many.docs", "--out", "out.json"],
    signal: "SIGINT",
    withinMs: 100,
  },
  {
    name: "export --to crfsuite",
    args: ["export", "--to", "crfsuite", ...cite, "--out", "out.crfsuite"],
    signal: "SIGINT",
    withinMs: 20,
  },
  {
    name: "import --from crfsuite",
    args: ["import", "--from", "crfsuite", "cite.crfsuite", "--out", "out.model"],
    signal: "SIGTERM",
    withinMs: 20,
  },
];

/** The folder's own output option, if the case writes a file. */
function outputOf(args: readonly string[]): string | undefined {
  const at = args.indexOf("--out");
  return at < 0 ? undefined : args[at + 1];
}

/** Input names resolved against the shared data folder (outputs stay in the case's folder). */
function withData(args: readonly string[], out: string | undefined): string[] {
  return args.map((arg) => (arg !== out && existsSync(data(arg)) ? data(arg) : arg));
}

/** Starts the case's command, signals it at its moment, and checks how it stopped. */
async function stopCase(c: SignalCase, index: number, delay: number): Promise<void> {
  const out = outputOf(c.args);
  const { dir, hash } = await caseFolder(`case-${index}`, out);
  const running = startBounded(withData(c.args, out), {
    cwd: dir,
    memoryMb: MEMORY_MB,
    timeoutMs: TIMEOUT_MS,
  });
  if (c.after !== undefined) {
    await (out === undefined
      ? new Promise<void>((resolve) => running.child.stdout!.once("data", () => resolve()))
      : running.stderrMatches(c.after));
  } else await outputOpened(running, dir);
  await new Promise((resolve) => setTimeout(resolve, delay));
  running.kill(c.signal);
  if (c.twice === true) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    running.kill(c.signal);
  }
  expectStopped(await running.finished, c.signal, dir, out, hash);
}

describe.skipIf(process.platform !== "linux")(
  "signals at random moments of every long command",
  () => {
    CASES.forEach((c, index) => {
      // Drawn here, in the cases' order, so that the moments do not depend on which run ends first.
      const delay = moment(c.withinMs ?? 600);
      const name = `${c.name}: ${c.signal}${c.twice === true ? " twice" : ""} after ${delay} ms`;
      it.concurrent(name, () => inTurn(() => stopCase(c, index, delay)));
    });
  },
);

describe.skipIf(process.platform !== "linux")("the issue's own cases", () => {
  // The moments were 1, 3 and 8 s: start-up, data preparation, and inside an L-BFGS
  // evaluation (one takes seconds with 1,000 labels); the last is taken once training has begun.
  const labelMoments = [1000, 3000, "evaluation"] as const;
  const evaluationDelay = 500 + moment(1000);
  for (const [index, when] of labelMoments.entries()) {
    const at = when === "evaluation" ? `${evaluationDelay} ms into training` : `${when} ms`;
    it.concurrent(`train with 1,000 labels on one thread: SIGINT at ${at}`, () =>
      inTurn(async () => {
        const { dir, hash } = await caseFolder(`labels-${index}`, "out.model");
        const running = startBounded(
          ["train", "--data", data("labels.conll"), "--format", "conll"].concat([
            "--preset",
            "chunking",
            "--out",
            "out.model",
          ]),
          { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS },
        );
        if (when === "evaluation") {
          await running.stderrMatches(/training lbfgs on/);
          await new Promise((resolve) => setTimeout(resolve, evaluationDelay));
        } else await new Promise((resolve) => setTimeout(resolve, when));
        running.kill("SIGINT");
        expectStopped(await running.finished, "SIGINT", dir, "out.model", hash);
      }));
  }

  it.concurrent("a child killed by another signal (the out-of-memory killer's SIGKILL): one line, exit 137, no temporary file", () =>
    inTurn(async () => {
      const { dir, hash } = await caseFolder("killed", "out.model");
      const running = startBounded(
        ["train", "--data", data("many.docs"), "--preset", "citation", "--out", "out.model"],
        { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS },
      );
      await outputOpened(running, dir);
      const children = childrenOf(running.pid);
      expect(children).toHaveLength(1);
      process.kill(children[0]!, "SIGKILL");
      const result = await running.finished;
      expectBounded(result, 137);
      expect(result.stderr).toMatch(/^lagrange: the command was killed by SIGKILL \(/m);
      expect(result.stderr.match(/^lagrange: /gm)).toHaveLength(1);
      expect(strayTemporaryFiles(dir)).toEqual([]);
      expect(sha256(join(dir, "out.model"))).toBe(hash);
    }));

  it.concurrent("the supervisor killed with SIGKILL: its child stops by itself as on SIGHUP, leaving no temporary file and the previous model", () =>
    inTurn(async () => {
      const { dir, hash } = await caseFolder("orphan", "out.model");
      const running = startBounded(
        ["train", "--data", data("many.docs"), "--preset", "citation", "--out", "out.model"],
        { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS },
      );
      await outputOpened(running, dir);
      const [child] = childrenOf(running.pid);
      expect(child).toBeDefined();
      running.kill("SIGKILL");
      const result = await running.finished;
      expect(result.signal).toBe("SIGKILL");
      // The child is nobody's to wait for now: poll until it is gone (it stops at its next
      // checkpoint, tens of milliseconds into a training pass).
      const started = performance.now();
      while (isAlive(child!) && performance.now() - started < STOP_MS) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(isAlive(child!), "the orphaned child is still running").toBe(false);
      expect(strayTemporaryFiles(dir)).toEqual([]);
      expect(sha256(join(dir, "out.model"))).toBe(hash);
    }));
});

/** Whether process `pid` exists and is not a zombie (Linux). */
function isAlive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}
