/**
 * The built binary (dist/lagrange.js, what the published package runs) against the source run:
 * the same help, the same exit code for a usage error, and the same outputs of a real job (train
 * with two threads — worker threads started from the bundle — then tag) on generated citations.
 * Builds dist/ first; skips, saying why, when esbuild cannot build here.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hermeticEnv,
  runCli,
  sha256,
  strayTemporaryFiles,
  writeCitations,
} from "./probe/cli-process.js";

const CLI = dirname(dirname(fileURLToPath(import.meta.url)));
const BUILT = join(CLI, "dist/lagrange.js");

const build = spawnSync(process.execPath, [join(CLI, "scripts/build.mjs")], {
  cwd: CLI,
  encoding: "utf8",
  timeout: 60_000,
});
const unbuildable =
  build.status === 0 ? undefined : `the build failed: ${build.error?.message ?? build.stderr}`;
if (unbuildable !== undefined) {
  process.stderr.write(`binary.test.ts: skipped (${unbuildable})\n`);
}

function runBuilt(args: readonly string[], cwd: string) {
  const r = spawnSync(process.execPath, [BUILT, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...hermeticEnv(cwd), FORCE_COLOR: "0" },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(unbuildable !== undefined)("the built binary (dist/lagrange.js)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lagrange-binary-"));
    await writeCitations(join(dir, "citations.txt"), 80, 7);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the same help and version, and exits as the source run does", async () => {
    for (const args of [
      ["--help"],
      ["train", "--help"],
      ["tag", "--help-all"],
      ["help", "exit-codes"],
      ["datasets", "--json"],
      ["--version"],
      ["no-such-command"],
    ]) {
      const built = runBuilt(args, dir);
      const source = await runCli(args, { cwd: dir });
      expect(built.code, args.join(" ")).toBe(source.code);
      expect(built.stdout, args.join(" ")).toBe(source.stdout);
      expect(built.stderr, args.join(" ")).toBe(source.stderr);
    }
  });

  it("trains on two threads and tags: the same model and labels as the source run", async () => {
    const train = (out: string) =>
      ["train", "--data", "citations.txt", "--format", "umass", "--preset", "citation"].concat([
        "--threads",
        "2",
        "--max-iterations",
        "8",
        "--out",
        out,
      ]);
    const tag = (model: string, out: string) => [
      "tag",
      "--model",
      model,
      "--data",
      "citations.txt",
      "--format",
      "umass",
      "--out",
      out,
    ];
    const built = runBuilt(train("built.model"), dir);
    expect(built.code, built.stderr).toBe(0);
    const source = await runCli(train("source.model"), { cwd: dir });
    expect(source.code, source.stderr).toBe(0);
    // The summary names the output file and the time; the rest must agree.
    const summary = (text: string) =>
      text.replace(/\d+(\.\d+)? s\b/g, "T s").replace(/(built|source)\.model/g, "M");
    expect(summary(built.stdout)).toBe(summary(source.stdout));
    expect(runBuilt(tag("built.model", "built.tags"), dir).code).toBe(0);
    expect((await runCli(tag("source.model", "source.tags"), { cwd: dir })).code).toBe(0);
    const builtTags = readFileSync(join(dir, "built.tags"), "utf8");
    expect(builtTags.length).toBeGreaterThan(0);
    expect(builtTags).toBe(readFileSync(join(dir, "source.tags"), "utf8"));
  });
});

/**
 * The binary as installed: bin/lagrange.mjs beside dist/ and no src/, in a node_modules of its
 * own. Help runs in the binary's own process; a command runs in a child that the binary
 * supervises, so a signal sent to the binary's process alone (a script's `kill -INT`) stops it.
 */
describe.skipIf(unbuildable !== undefined)(
  "the installed binary (bin/ and dist/, no sources)",
  () => {
    let dir: string;
    let bin: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lagrange-installed-"));
      const modules = join(dir, "node_modules");
      const home = join(modules, "@lagrange", "cli");
      mkdirSync(home, { recursive: true });
      for (const part of ["bin", "dist", "package.json"])
        cpSync(join(CLI, part), join(home, part), { recursive: true });
      const manifest = JSON.parse(readFileSync(join(CLI, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      for (const name of Object.keys(manifest.dependencies)) {
        // A scoped package (`@cspell/…`) lies a folder deeper.
        mkdirSync(dirname(join(modules, name)), { recursive: true });
        symlinkSync(realpathSync(join(CLI, "node_modules", name)), join(modules, name));
      }
      bin = join(home, "bin", "lagrange.mjs");
      await writeCitations(join(dir, "citations.txt"), 300, 8);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("prints its help, and stops a training on SIGINT to its own process: 130, one line, the previous model kept", async () => {
      const help = spawnSync(process.execPath, [bin, "--help"], { cwd: dir, encoding: "utf8" });
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage: lagrange /);
      const model = join(dir, "m.model");
      writeFileSync(model, "the previous model\n");
      const hash = sha256(model);
      const child = spawn(
        process.execPath,
        [
          bin,
          "train",
          "--data",
          "citations.txt",
          "--format",
          "umass",
          "--preset",
          "citation",
          "--out",
          "m.model",
        ],
        {
          cwd: dir,
          env: { ...process.env, ...hermeticEnv(dir) },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (/training lbfgs on/.test(stderr)) child.kill("SIGINT");
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code, stderr).toBe(130);
      expect(stderr.match(/^lagrange: /gm), stderr).toEqual(["lagrange: "]);
      expect(stderr).toMatch(/^lagrange: stopped by SIGINT; no partial output was kept$/m);
      expect(sha256(model)).toBe(hash);
      expect(strayTemporaryFiles(dir)).toEqual([]);
    });
  },
);

/**
 * `pnpm lagrange` in the workspace: the root's bin (the workspace's own @lagrange/cli), run by
 * `pnpm exec` with no banner, so that its output can be redirected; the same output and exit code
 * as the binary itself, and as `pnpm -s lagrange`. Skips where pnpm is not on the PATH.
 */
const pnpm = spawnSync("pnpm", ["--version"], { encoding: "utf8", shell: false });
const noPnpm = pnpm.status === 0 ? undefined : "pnpm is not on the PATH";
if (noPnpm !== undefined)
  process.stderr.write(`binary.test.ts: pnpm lagrange skipped (${noPnpm})\n`);

describe.skipIf(noPnpm !== undefined)("pnpm lagrange (the workspace's bin)", () => {
  const root = dirname(dirname(CLI));
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "lagrange-pnpm-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes what the binary writes (no pnpm banner) and exits as it does", async () => {
    for (const args of [["--version"], ["datasets"], ["train", "--help"], ["no-such-command"]]) {
      const source = await runCli(args, { cwd: dir });
      for (const silent of [[], ["-s"]]) {
        const r = spawnSync("pnpm", [...silent, "lagrange", ...args], {
          cwd: root,
          encoding: "utf8",
          env: { ...process.env, ...hermeticEnv(dir), FORCE_COLOR: "0" },
          timeout: 60_000,
        });
        const what = ["pnpm", ...silent, "lagrange", ...args].join(" ");
        expect(r.status, what).toBe(source.code);
        expect(r.stdout, what).toBe(source.stdout);
      }
    }
  });
});
