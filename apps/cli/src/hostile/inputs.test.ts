/**
 * Hostile inputs by class (issue 42, class 1): every file a command reads is a regular file or a
 * declared stream, under its kind's size cap. The cases are not written by hand: every input flag
 * and argument that a command of the CLI declares (files-declared.ts) is fed an endless device
 * (/dev/zero), a FIFO with no writer, a folder and a file over its cap (the cap lowered to 1 MiB
 * through LAGRANGE_MAX_INPUT, the file 2 MiB), each run of the real binary under a memory cap. A
 * table supplies only the other arguments of each command; a newly declared flag gets its cases
 * from the declaration, and a command with no line in the table fails the suite. Two runs read a
 * real 1 GiB (sparse) file under the memory cap. The queue commands' inputs are checked before
 * Redis is reached, so they need no server (a FIFO case that goes on to connect is refused by
 * the unreachable port of --redis).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readlinkSync, truncateSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INPUT_SIZE_CAPS } from "@lagrange/core/node";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { filesOf, INPUT_FILE_KINDS, type InputFileKind } from "../files-declared.js";
import { buildProgram, main } from "../main.js";
import { chunkingText, processTree, trainModel } from "../probe/cli-process.js";
import { type BoundedRun, expectBounded, runBounded, startBounded } from "./harness.js";

const MEMORY_MB = 300;
const linux = process.platform === "linux";
/**
 * Resolves once a process of the binary's tree holds `fifo` open (the command is waiting on it
 * for a writer), or with false after 20 s: a signal sent sooner would test start-up, not the wait.
 */
async function openedBy(pid: number, fifo: string): Promise<boolean> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    for (const p of processTree(pid)) {
      try {
        for (const fd of readdirSync(`/proc/${p}/fd`)) {
          if (readlinkSync(`/proc/${p}/fd/${fd}`) === fifo) return true;
        }
      } catch {
        // Ended meanwhile.
      }
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return false;
}

/** Every command of the program, subcommands included, with its path (`queue submit`). */
function commandsOf(command: Command, prefix = ""): { path: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const path = `${prefix}${sub.name()}`;
    return [{ path, command: sub }, ...commandsOf(sub, `${path} `)];
  });
}

/** A queue that is never there: a FIFO case that gets as far as connecting ends at once. */
const NO_REDIS = ["--redis", "redis://127.0.0.1:1"];

/**
 * The other arguments of each command that reads a file: a line that would run, with `{flag}`
 * where a declared input goes (filled with a valid file, or the hostile one under test). An
 * input the line does not hold is added (`--flag path`, an argument at the end). `without`:
 * the tokens to leave out when one input is under test (`--template` replaces `--preset x`);
 * `with`: the tokens it needs (constraints need a decoder that takes them).
 */
const LINES: Readonly<
  Record<
    string,
    {
      line: readonly string[];
      without?: Readonly<Record<string, readonly string[]>>;
      with?: Readonly<Record<string, readonly string[]>>;
    }
  >
> = {
  eval: { line: ["eval", "{<pred>}"] },
  train: {
    line: ["train", "--data", "{--data}", "--preset", "chunking", "--out", "out.lgm"],
    without: { "--template": ["--preset", "chunking"] },
  },
  tag: {
    line: ["tag", "--model", "{--model}", "--data", "{--data}"],
    with: { "--constraints": ["--decoder", "exact"] },
  },
  explain: { line: ["explain", "--model", "{--model}", "--data", "{--data}"] },
  parse: {
    line: ["parse", "--model", "{--model}", "{[input]}"],
    without: { "--data": ["{[input]}"] },
  },
  "constraints learn": {
    line: ["constraints", "learn", "--model", "{--model}", "--data", "{--data}", "--out", "c.out"],
  },
  "rules mine": { line: ["rules", "mine", "--data", "{--data}", "--out", "r.out"] },
  clusters: { line: ["clusters", "--text", "{--text}", "--clusters", "2", "--out", "p.out"] },
  "factor-graph": { line: ["factor-graph", "--graph", "{--graph}"] },
  "models build": { line: ["models", "build", "pos-en", "--out", "mb.out"] },
  "models list": { line: ["models", "list"] },
  info: { line: ["info", "{<model>}"] },
  import: { line: ["import", "{<model>}", "--from", "crfsuite", "--out", "i.out"] },
  export: { line: ["export", "--to", "crfsuite", "--model", "{--model}", "--out", "e.out"] },
  compress: { line: ["compress", "--model", "{--model}", "--out", "z.out"] },
  "queue submit": {
    line: [
      "queue",
      "submit",
      "--data",
      "{--data}",
      "--model",
      "{--model}",
      "--job",
      "j",
      ...NO_REDIS,
    ],
  },
  "queue work": { line: ["queue", "work", ...NO_REDIS] },
  "queue collect": { line: ["queue", "collect", "--job", "j", "--out", "q.out", ...NO_REDIS] },
  "queue status": { line: ["queue", "status", "--job", "j", ...NO_REDIS] },
  "queue remove": { line: ["queue", "remove", "j", ...NO_REDIS] },
};

/** A valid file of each kind, in the test's folder (written in beforeAll). */
const VALID: Readonly<Record<InputFileKind, string>> = {
  data: "d.conll",
  model: "m.lgm",
  template: "t.tpl",
  lexicon: "l.txt",
  clusters: "c.paths",
  constraints: "k.txt",
  plugin: "plugin.mjs",
  graph: "g.fg",
  predictions: "p.txt",
  text: "t.txt",
  password: "pw.txt",
  folder: "folder",
};

/** How a flag's value names its file (`--lexicon NAME=FILE`). */
function flagValue(kind: InputFileKind, path: string): string {
  return kind === "lexicon" ? `org=${path}` : path;
}

interface InputCase {
  readonly command: string;
  readonly flag: string;
  readonly kind: InputFileKind;
  /** The command line with `hostile` as this input, every other input valid. */
  readonly args: (hostile: string, valid?: (name: string) => string) => string[];
}

/** Every declared input of every command, with its command line (undefined: no line in LINES). */
function inputCases(): { cases: InputCase[]; missing: string[] } {
  const cases: InputCase[] = [];
  const missing: string[] = [];
  for (const { path, command } of commandsOf(buildProgram(STANDARD_DECODERS))) {
    const inputs = Object.entries(filesOf(command).inputs);
    if (inputs.length === 0) continue;
    const entry = LINES[path];
    if (entry === undefined) {
      missing.push(path);
      continue;
    }
    for (const [flag, kind] of inputs) {
      cases.push({
        command: path,
        flag,
        kind,
        args: (hostile, valid = (name) => name) =>
          lineFor(entry, flag, kind, hostile, filesOf(command).inputs, valid),
      });
    }
  }
  return { cases, missing };
}

function lineFor(
  entry: (typeof LINES)[string],
  flag: string,
  kind: InputFileKind,
  hostile: string,
  inputs: Readonly<Record<string, InputFileKind>>,
  valid: (name: string) => string,
): string[] {
  const line = [...entry.line];
  const drop = entry.without?.[flag] ?? [];
  const at = drop.length === 0 ? -1 : line.indexOf(drop[0]!);
  if (at >= 0) line.splice(at, drop.length);
  line.push(...(entry.with?.[flag] ?? []));
  let placed = false;
  const filled = line.map((token) => {
    const slot = /^\{(.+)\}$/.exec(token)?.[1];
    if (slot === undefined) return token;
    if (slot === flag) {
      placed = true;
      return flagValue(kind, hostile);
    }
    const other = inputs[slot];
    return other === undefined ? token : flagValue(other, valid(VALID[other]));
  });
  if (!placed) {
    if (flag.startsWith("<") || flag.startsWith("[")) filled.push(flagValue(kind, hostile));
    else filled.push(flag, flagValue(kind, hostile));
  }
  return filled;
}

const { cases, missing } = inputCases();

/** The one `lagrange:` line of a refusal, which names the flag (an argument by its file). */
function expectRefusal(run: BoundedRun, code: number, flag: string, path: string): void {
  expectBounded(run, code);
  const lines = run.stderr.split("\n").filter((l) => l.startsWith("lagrange: "));
  expect(lines, run.stderr).toHaveLength(1);
  const named = flag.startsWith("<") || flag.startsWith("[") ? path : `${flag} `;
  expect(lines[0], run.stderr).toContain(named);
}

describe.skipIf(!linux)(
  "every declared input: a device, a FIFO, a folder, a file over its cap",
  () => {
    let dir = "";
    const measured: string[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-inputs-"));
      writeFileSync(join(dir, VALID.data), chunkingText(30, { seed: 42 }));
      await trainModel(dir, VALID.data, "chunking", 2, VALID.model);
      writeFileSync(join(dir, VALID.template), "U00:%x[0,0]\n");
      writeFileSync(join(dir, VALID.lexicon), "Acme\n");
      writeFileSync(join(dir, VALID.clusters), "0\tthe\t3\n");
      writeFileSync(join(dir, VALID.constraints), "");
      writeFileSync(join(dir, VALID.plugin), "export default () => {};\n");
      writeFileSync(join(dir, VALID.graph), "1\n1\n1\n2\n0.5 0.5\n");
      writeFileSync(join(dir, VALID.predictions), "a DT B-NP B-NP\n\n");
      writeFileSync(join(dir, VALID.text), "the cat\n");
      writeFileSync(join(dir, VALID.password), "secret\n");
      mkdirSync(join(dir, VALID.folder));
      mkdirSync(join(dir, "a-folder"));
      // Over a 1 MiB cap: 2 MiB of text lines.
      writeFileSync(join(dir, "two-mib"), "a\n".repeat(1 << 20));
    }, 60_000);

    afterAll(async () => {
      if (measured.length > 0) console.log(measured.join("\n"));
      await rm(dir, { recursive: true, force: true });
    });

    it("cover every command that declares an input (a new one needs a line in LINES)", () => {
      expect(missing).toEqual([]);
      expect(cases.length).toBeGreaterThanOrEqual(30);
    });

    it("refuse a device, a folder and a file over its cap, naming the flag: every declared input, through main()", async () => {
      // In this process, for speed (the refusal comes before any work, the same code as the
      // binary's); every cap lowered to 8 MiB so that a regression cannot read much.
      const guard = Object.keys(INPUT_SIZE_CAPS)
        .map((kind) => `${kind}=8MiB`)
        .join(",");
      const at = (name: string) => join(dir, name);
      const failures: string[] = [];
      const check = async (input: InputCase, hostile: string, code: number, env: string) => {
        const before = process.env.LAGRANGE_MAX_INPUT;
        process.env.LAGRANGE_MAX_INPUT = env;
        const written: string[] = [];
        const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
          written.push(String(chunk));
          return true;
        });
        let got: number;
        try {
          got = await main(input.args(hostile, at));
        } finally {
          spy.mockRestore();
          if (before === undefined) delete process.env.LAGRANGE_MAX_INPUT;
          else process.env.LAGRANGE_MAX_INPUT = before;
        }
        const lines = written
          .join("")
          .split("\n")
          .filter((l) => l.startsWith("lagrange: "));
        const named =
          input.flag.startsWith("<") || input.flag.startsWith("[") ? hostile : input.flag;
        if (got !== code || lines.length !== 1 || !lines[0]!.includes(named)) {
          failures.push(
            `${input.command} ${input.flag} ${hostile}: exit ${got}, ${written.join("")}`,
          );
        }
      };
      for (const input of cases) {
        await check(input, "/dev/zero", 2, guard);
        if (input.kind === "folder") continue;
        await check(input, at("a-folder"), 2, guard);
        await check(input, at("two-mib"), 3, `${guard},${input.kind}=1MiB`);
      }
      expect(failures).toEqual([]);
    }, 60_000);

    /** One declared input of each kind (the first the program declares), for the binary's runs. */
    const perKind = INPUT_FILE_KINDS.flatMap((kind) => cases.find((c) => c.kind === kind) ?? []);

    describe.concurrent.each(perKind)("the binary: $kind ($command $flag)", (input) => {
      const bounds = () => ({ cwd: dir, memoryMb: MEMORY_MB, timeoutMs: 30_000 });

      it("an endless device (/dev/zero): exit 2 naming the flag, nothing read", async () => {
        const run = await runBounded(input.args("/dev/zero"), bounds());
        expectRefusal(run, 2, input.flag, "/dev/zero");
        expect(run.stderr).toMatch(
          input.kind === "folder"
            ? /a device; expected a folder/
            : /a device; expected a regular file or a pipe/,
        );
        measured.push(
          `${input.kind} (${input.command} ${input.flag}) /dev/zero: exit 2 at ${run.peakRssMb} MB`,
        );
      });

      it("a FIFO with no writer: refused where a stream cannot be, else it waits and SIGTERM stops it within 1 s", async () => {
        const fifo = `fifo-${input.kind}`;
        execFileSync("mkfifo", [join(dir, fifo)]);
        const running = startBounded(input.args(fifo), bounds());
        const ended = await Promise.race([
          running.finished,
          openedBy(running.pid, join(dir, fifo)),
        ]);
        if (typeof ended === "object") {
          // Refused before waiting: a plug-in, a password or a folder cannot be a pipe.
          expectRefusal(ended, 2, input.flag, fifo);
          expect(["plugin", "password", "folder"], ended.stderr).toContain(input.kind);
          expect(ended.stderr).toMatch(/a pipe; expected a (regular file|folder)/);
          return;
        }
        expect(ended, "the command never opened the FIFO").toBe(true);
        // Waiting on epoll for a writer, not busy: the signal must still end it.
        await new Promise((done) => setTimeout(done, 300));
        running.kill("SIGTERM");
        const run = await running.finished;
        expectBounded(run, 143);
        expect(run.stoppedMs ?? Number.POSITIVE_INFINITY).toBeLessThan(1000);
        measured.push(
          `${input.kind} (${input.command} ${input.flag}) FIFO: stopped ${run.stoppedMs} ms after SIGTERM`,
        );
      });

      it("a FIFO whose writer never stops: the reader itself stops at the kind's cap (1 MiB here)", async () => {
        // The pre-start check lets a pipe through (it cannot know its length): what bounds it is
        // the reader's own cap, whichever reader the kind goes to (a model sniffed for its kind,
        // a lexicon in recipes, a corpus streamed, a queue's shards).
        const fifo = `endless-${input.kind}`;
        execFileSync("mkfifo", [join(dir, fifo)]);
        // A line every kind's first glance accepts (a model's magic starts "LGR").
        const writer = spawn("sh", ["-c", 'exec yes "LGR x y z" > "$1"', "sh", join(dir, fifo)], {
          stdio: "ignore",
        });
        try {
          const run = await runBounded(input.args(fifo), {
            ...bounds(),
            env: { LAGRANGE_MAX_INPUT: `${input.kind === "folder" ? "data" : input.kind}=1MiB` },
          });
          expectBounded(run);
          expect([2, 3], run.stderr).toContain(run.code);
          measured.push(
            `${input.kind} (${input.command} ${input.flag}) endless FIFO: exit ${run.code} at ${run.peakRssMb} MB`,
          );
        } finally {
          writer.kill("SIGKILL");
        }
      });
    });

    it("a real 1 GiB file (sparse) as --graph and as tag --data: refused without reading it, under the memory cap", async () => {
      const big = join(dir, "one-gib");
      writeFileSync(big, "");
      truncateSync(big, 2 ** 30);
      const graph = await runBounded(["factor-graph", "--graph", big], {
        cwd: dir,
        memoryMb: MEMORY_MB,
      });
      expectRefusal(graph, 3, "--graph", big);
      expect(graph.stderr).toContain("over the 256.0 MiB (268435456 bytes) cap on graph files");
      // Data is streamed (its cap is 64 GiB): the first chunk's NUL bytes stop it.
      const data = await runBounded(["tag", "--model", VALID.model, "--data", big], {
        cwd: dir,
        memoryMb: MEMORY_MB,
      });
      expectBounded(data, 3);
      expect(data.stderr).toMatch(/one-gib:1: NUL byte/);
      measured.push(
        `1 GiB sparse file: factor-graph --graph refused in ${graph.wallMs} ms at ${graph.peakRssMb} MB; tag --data refused in ${data.wallMs} ms at ${data.peakRssMb} MB`,
      );
    });
  },
);
