/**
 * `pnpm install:local`: every failure is one line (usage 2, failure 1, a signal 128 + its number)
 * and the staging folder of tarballs never outlives the run. Packing is a stand-in `npx` first on
 * the PATH (one that fails, or one that waits to be stopped), so no case packs for real.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../install-local.mjs", import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lagrange-install-local-test-"));
  writeFileSync(join(dir, "a-file"), "not a project\n");
  // Node, not sh: a shell started with SIGINT ignored (as in a background job) cannot catch it.
  for (const [name, body] of [
    ["failing", 'process.stderr.write("pnpm: boom\\n"); process.exit(1);'],
    [
      "waiting",
      'for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => process.exit(1)); setTimeout(() => {}, 30000);',
    ],
  ] as const) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "npx"), `#!${process.execPath}\n${body}\n`);
    chmodSync(join(dir, name, "npx"), 0o755);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  /** Staging folders left in the run's own TMPDIR. */
  readonly left: string[];
}

/** Runs the script with its own TMPDIR (and `npx` from `fake`), stopping it with `signal` once it stages. */
function install(
  args: readonly string[],
  options: { fake?: "failing" | "waiting"; signal?: NodeJS.Signals } = {},
): Promise<Run> {
  const temp = mkdtempSync(join(dir, "tmp-"));
  const path = options.fake === undefined ? "" : `${join(dir, options.fake)}:`;
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    cwd: dir,
    detached: true, // its own process group: a signal reaches it and its children, as Ctrl-C does
    env: { ...process.env, TMPDIR: temp, PATH: `${path}${process.env.PATH ?? ""}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const staged = () => readdirSync(temp).filter((f) => f.startsWith("lagrange-install-"));
  const poll =
    options.signal === undefined
      ? undefined
      : setInterval(() => {
          if (staged().length > 0 && stderr.includes("packing")) {
            clearInterval(poll);
            process.kill(-child.pid!, options.signal);
          }
        }, 20);
  return new Promise((done) => {
    child.on("close", (code) => {
      clearInterval(poll);
      done({ code, stderr, left: staged() });
    });
  });
}

const lines = (text: string) => text.trimEnd().split("\n");

describe("install:local", () => {
  it.each([
    [["--into", "a-file"], "--into a-file: is a file; expected a project folder"],
    [["--into", "a-file/x"], "--into a-file/x: a path through a file; expected a project folder"],
    [["--into"], "--into needs a project folder"],
    [["--bogus"], "unknown option --bogus (see --help)"],
    [[], "nothing to do: give --into DIR, --cli or both (see --help)"],
    [["--into", "project", "nosuch"], "unknown package nosuch: expected one of core, "],
  ])("%j is a usage error in one line, before anything is staged", async (args, message) => {
    const result = await install(args);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain(`install:local: ${message}`);
    expect(result.left).toEqual([]);
  });

  it("a packing failure shows the tool's output, then one line; exit 1, nothing left staged", async () => {
    const result = await install(["--into", "project", "core"], { fake: "failing" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pnpm: boom");
    expect(lines(result.stderr).at(-1)).toBe("install:local: packing @lagrange/core failed");
    expect(result.left).toEqual([]);
  });

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "%s while packing stops it with 128 + its number and removes the staging folder",
    async (signal) => {
      const result = await install(["--into", "project", "core"], { fake: "waiting", signal });
      expect(result.code).toBe(128 + constants.signals[signal]);
      expect(lines(result.stderr).at(-1)).toBe(`install:local: stopped by ${signal}`);
      expect(result.left).toEqual([]);
    },
  );
});
