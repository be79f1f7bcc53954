/**
 * The output rule (issue 42, class 2 and 3), by enumeration rather than by example:
 * - every declared output of every command, set to every declared input of that command — the
 *   same path, a symbolic link to it, a hard link, `folder/../name` — is refused (exit 2, naming
 *   both flags) before any work, and the input is left as it was. The pairs come from the
 *   command definitions (files-declared.ts): a new file flag is covered without a new case;
 * - replacing an output keeps its mode and owner, refuses a read-only file unless `--force`, and a
 *   255-byte output name works (temporary names are short);
 * - every signal that ends the process (STOP_SIGNALS, the supervisor's list too), sent to the
 *   binary or to its whole process tree as a terminal does, removes the temporary file and keeps
 *   no partial output.
 * The enumeration runs `main` in this process (the refusal comes before any file is read); the
 * rest runs the real binary under the harness's caps.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { constants as os, tmpdir } from "node:os";
import { join } from "node:path";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { filesOf } from "../files-declared.js";
import { STOP_SIGNALS, signalExitCode } from "../interruption.js";
import { buildProgram, main } from "../main.js";
import {
  BIN,
  chunkingText,
  processTree,
  strayTemporaryFiles,
  trainModel,
} from "../probe/cli-process.js";
import { expectBounded, runBounded, startBounded } from "./harness.js";

const MEMORY_MB = 400;
const TIMEOUT_MS = 30_000;
/** From the signal to the exit: a checkpoint, or the supervisor's kill 0.5 s later; ×2 for CI. */
const STOP_MS = 2000;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-outputs-"));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "train.conll"), chunkingText(20, { seed: 3 }));
  writeFileSync(join(dir, "data.conll"), chunkingText(4, { seed: 4 }));
  await trainModel(dir, "train.conll", "chunking", 3, "model.crf");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function bounds() {
  return { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS };
}

/** Every command of the program (subcommands too) with the words that run it. */
function commandsOf(
  command: Command,
  words: string[] = [],
): { words: string[]; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const path = [...words, sub.name()];
    return [{ words: path, command: sub }, ...commandsOf(sub, path)];
  });
}

/** How an output may name an input: each must be refused. */
const ALIASES = ["same path", "symbolic link", "hard link", "folder/../name"] as const;
type Alias = (typeof ALIASES)[number];

interface OutputCase {
  readonly name: string;
  readonly argv: string[];
  readonly input: string;
  readonly inputFile: string;
}

/**
 * A command line for `words` where every declared input names its own small file, every
 * mandatory option has a value, and the output `output` names input `input` through `alias`.
 */
function outputCase(
  words: string[],
  command: Command,
  output: string,
  input: string,
  alias: Alias,
  folder: string,
): OutputCase {
  const declared = filesOf(command);
  const argv = [...words];
  const positional: string[] = [];
  let inputFile = "";
  const fileFor = (flag: string, kind: string) => {
    const path = join(folder, `input${flag.replace(/[^a-z]+/gi, "-")}`);
    if (kind === "folder") mkdirSync(path, { recursive: true });
    else writeFileSync(path, `the ${flag} input\n`);
    if (flag === input) inputFile = path;
    return kind === "lexicon" ? `org=${path}` : path;
  };
  for (const [flag, kind] of Object.entries(declared.inputs)) {
    const value = fileFor(flag, kind);
    if (flag.startsWith("<") || flag.startsWith("[")) positional.push(value);
    else argv.push(flag, value);
  }
  for (const option of command.options) {
    const flag = option.long ?? "";
    if (!option.mandatory || flag in declared.inputs || declared.outputs.includes(flag)) continue;
    argv.push(flag, option.argChoices?.[0] ?? "x");
  }
  // A required argument that names no file (a task preset): any value, the refusal comes first.
  for (const argument of command.registeredArguments) {
    if (argument.required && !(`<${argument.name()}>` in declared.inputs)) positional.push("x");
  }
  const target = aliasOf(inputFile, alias, folder);
  argv.push(output, target, ...positional);
  return { name: `${words.join(" ")} ${output} = ${input} (${alias})`, argv, input, inputFile };
}

function aliasOf(path: string, alias: Alias, folder: string): string {
  const name = path.slice(folder.length + 1);
  switch (alias) {
    case "same path":
      return path;
    case "symbolic link":
      symlinkSync(path, join(folder, `link-to-${name}`));
      return join(folder, `link-to-${name}`);
    case "hard link":
      // A folder cannot be hard-linked: its own path stands in.
      if (statSync(path).isDirectory()) return path;
      linkSync(path, join(folder, `hard-${name}`));
      return join(folder, `hard-${name}`);
    case "folder/../name":
      mkdirSync(join(folder, "sub"), { recursive: true });
      return `${folder}/sub/../${name}`;
  }
}

describe("an output is never one of the command's inputs", () => {
  const program = buildProgram(STANDARD_DECODERS);
  const pairs = commandsOf(program).flatMap(({ words, command }) => {
    const declared = filesOf(command);
    return declared.outputs.flatMap((output) =>
      Object.keys(declared.inputs).map((input) => ({ words, command, output, input })),
    );
  });

  it("covers every writing command and every input it declares", () => {
    expect(pairs.length).toBeGreaterThanOrEqual(20);
    expect(new Set(pairs.map((p) => p.words.join(" ")))).toContain("train");
  });

  it("refuses each pair under each way of naming the input, before any work", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const failures: string[] = [];
    try {
      for (const [index, pair] of pairs.entries()) {
        for (const alias of ALIASES) {
          const folder = join(dir, `pair-${index}-${ALIASES.indexOf(alias)}`);
          mkdirSync(folder, { recursive: true });
          const c = outputCase(pair.words, pair.command, pair.output, pair.input, alias, folder);
          const before = readBack(c.inputFile);
          stderr.mockClear();
          const code = await main(c.argv);
          const said = stderr.mock.calls.map((call) => String(call[0])).join("");
          const refused =
            code === 2 &&
            (said.includes("is also an input of this command") || said.includes("directory"));
          if (!refused || readBack(c.inputFile) !== before) {
            failures.push(`${c.name}: exit ${code}, ${said.trim()}`);
          }
        }
      }
    } finally {
      stderr.mockRestore();
    }
    expect(failures).toEqual([]);
  });
});

function readBack(path: string): string {
  return statSync(path).isDirectory() ? "(folder)" : readFileSync(path, "utf8");
}

const TRAIN = ["train", "--data", "train.conll", "--preset", "chunking", "--max-iterations", "2"];

describe("replacing an output keeps what its owner set", () => {
  it("keeps the mode of the file it replaces (0600, 0640)", async () => {
    for (const mode of [0o600, 0o640]) {
      const out = join(dir, `kept-${mode.toString(8)}.crf`);
      writeFileSync(out, "old");
      chmodSync(out, mode);
      expectBounded(await runBounded([...TRAIN, "--out", out], bounds()), 0);
      expect(statSync(out).mode & 0o7777).toBe(mode);
      expect(readFileSync(out).subarray(0, 6).toString()).toBe("LGRCRF");
    }
  });

  it.skipIf(process.getuid?.() !== 0)("keeps the owner of the file it replaces", async () => {
    const out = join(dir, "owned.conll");
    writeFileSync(out, "old");
    chownSync(out, 65534, 65534);
    const run = await runBounded(
      ["tag", "--model", "model.crf", "--data", "data.conll", "--out", out],
      bounds(),
    );
    expectBounded(run, 0);
    expect([statSync(out).uid, statSync(out).gid]).toEqual([65534, 65534]);
  });

  it("refuses a read-only output (exit 2, naming --force), and --force replaces it keeping 0444", async () => {
    const out = join(dir, "read-only.crf");
    writeFileSync(out, "protected");
    chmodSync(out, 0o444);
    const refused = await runBounded([...TRAIN, "--out", out], bounds());
    expectBounded(refused, 2);
    expect(refused.stderr).toMatch(/read-only; --force replaces it/);
    expect(readFileSync(out, "utf8")).toBe("protected");
    expectBounded(await runBounded([...TRAIN, "--out", out, "--force"], bounds()), 0);
    expect(readFileSync(out).subarray(0, 6).toString()).toBe("LGRCRF");
    expect(statSync(out).mode & 0o7777).toBe(0o444);
    expect(strayTemporaryFiles(dir)).toEqual([]);
  });

  it("writes an output whose name is 255 bytes (the temporary name stays short)", async () => {
    const out = join(dir, `${"m".repeat(251)}.crf`);
    expectBounded(await runBounded([...TRAIN, "--out", out], bounds()), 0);
    expect(existsSync(out)).toBe(true);
  });
});

// Concurrent: each case is mostly the binary's start-up, and each has its own folder.
describe.concurrent("every signal that ends the process removes its temporary file", () => {
  it("the supervisor stops on the same signals as the command", () => {
    const source = readFileSync(BIN, "utf8");
    const list = /const STOP_SIGNALS = [^(]*\(\[([^\]]*)\]\)/.exec(source)?.[1] ?? "";
    expect([...list.matchAll(/"(SIG[A-Z0-9]+)"/g)].map((m) => m[1])).toEqual([...STOP_SIGNALS]);
  });

  const here = STOP_SIGNALS.filter((name) => os.signals[name] !== undefined);
  // Half are sent to the binary (a script's `kill`), half to the whole tree (a terminal's Ctrl-\).
  it.each(here.map((signal, i) => ({ signal, tree: i % 2 === 1 })))(
    "$signal (to the whole tree: $tree): exit 128 + n, no temporary file, no output",
    async ({ signal, tree }) => {
      const folder = join(dir, `signal-${signal}`);
      mkdirSync(folder, { recursive: true });
      const fifo = join(folder, "data.fifo");
      execFileSync("mkfifo", [fifo]);
      // A writer that never ends the stream: the command waits for more data, its output open.
      const writer = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      writeSync(writer, "He PRP B-NP\n");
      const out = join(folder, "out.conll");
      const running = startBounded(
        ["tag", "--model", join(dir, "model.crf"), "--data", fifo, "--format", "conll"].concat([
          "--out",
          out,
        ]),
        { ...bounds(), cwd: folder },
      );
      try {
        await waitFor(() => strayTemporaryFiles(folder).length > 0, running.finished);
        const children = tree ? processTree(running.pid).filter((p) => p !== running.pid) : [];
        running.kill(signal);
        for (const pid of children) process.kill(pid, signal);
        const run = await running.finished;
        expectBounded(run, signalExitCode(signal));
        expect(run.stderr).toContain(`stopped by ${signal}`);
        expect(run.stoppedMs ?? 0).toBeLessThan(STOP_MS);
        expect(strayTemporaryFiles(folder)).toEqual([]);
        expect(existsSync(out)).toBe(false);
      } finally {
        closeSync(writer);
      }
    },
  );
});

/** Polls `ready` until true; fails if the process ends first. */
async function waitFor(ready: () => boolean, ended: Promise<unknown>): Promise<void> {
  let over = false;
  void ended.then(() => {
    over = true;
  });
  while (!ready()) {
    if (over) throw new Error("the command ended before it was ready");
    await new Promise((done) => setTimeout(done, 25));
  }
}
