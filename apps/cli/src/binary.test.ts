/**
 * The built binary (dist/lagrange.js, what the published package runs) against the source run:
 * the same help, the same exit code for a usage error, and the same outputs of a real job (train
 * with two threads — worker threads started from the bundle — then tag) on generated citations.
 * Builds dist/ first; skips, saying why, when esbuild cannot build here.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hermeticEnv, runCli, writeCitations } from "./probe/cli-process.js";

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
    for (const args of [["--help"], ["train", "--help"], ["--version"], ["no-such-command"]]) {
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
