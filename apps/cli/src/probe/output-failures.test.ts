/**
 * Outputs that fail under the binary: a reader that goes away (EPIPE), a full standard output
 * (`>/dev/full`), a full disk and a read-only file system (tmpfs mounts, as root). Each ends with
 * one line and the documented exit code, never an unhandled 'error' event.
 */
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectCleanExit,
  runCli,
  sha256,
  startCli,
  strayTemporaryFiles,
  trainModel,
  writeCitations,
} from "./cli-process.js";

let dir: string;
const mounts: string[] = [];

/** Why tmpfs cannot be mounted here (not root, no permission), or undefined when it can. */
function tmpfsUnavailable(): string | undefined {
  if (process.platform !== "linux") return "tmpfs mounts are Linux only";
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  const probe = join(tmpdir(), `lagrange-tmpfs-probe-${process.pid}`);
  try {
    mkdirSync(probe, { recursive: true });
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", probe], { stdio: "pipe" });
    execFileSync("umount", [probe], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split("\n")[0]}`;
  } finally {
    void rm(probe, { recursive: true, force: true });
  }
}
const noTmpfs = tmpfsUnavailable();

function mountTmpfs(name: string, options: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", path], { stdio: "pipe" });
  mounts.push(path);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-outputs-"));
  await writeCitations(join(dir, "train.docs"), 120, 21);
  await writeCitations(join(dir, "many.docs"), 3000, 22);
  await trainModel(dir, "train.docs", "citation", 5, "cite.model");
  const tagged = await runCli(
    ["tag", "--model", "cite.model", "--data", "train.docs", "--out", "tagged.txt"],
    { cwd: dir },
  );
  expectCleanExit(tagged, 0);
}, 120_000);

afterAll(async () => {
  for (const path of mounts.reverse()) execFileSync("umount", [path], { stdio: "pipe" });
  await rm(dir, { recursive: true, force: true });
});

describe("standard output that fails", () => {
  it("a reader that goes away (`| head`): EPIPE ends quietly with exit 0", async () => {
    const running = startCli(["tag", "--model", "cite.model", "--data", "many.docs"], {
      cwd: dir,
    });
    await new Promise<void>((resolve) => running.child.stdout!.once("data", () => resolve()));
    running.child.stdout!.destroy();
    const result = await running.finished;
    expectCleanExit(result, 0);
    expect(result.stderr).not.toMatch(/EPIPE/);
  });

  it("`>/dev/full` for tag, info and eval: exit 1, one line", async () => {
    const full = openSync("/dev/full", "w");
    try {
      for (const args of [
        ["tag", "--model", "cite.model", "--data", "train.docs"],
        ["info", "cite.model"],
        ["eval", "tagged.txt"],
        ["--help"],
      ]) {
        const result = await runCli(args, { cwd: dir, stdout: full });
        expectCleanExit(result, 1);
        expect(result.stderr).toMatch(
          /^lagrange: cannot write standard output: no space left on device$/m,
        );
      }
    } finally {
      closeSync(full);
    }
  });
});

describe.skipIf(noTmpfs !== undefined)(
  `full and read-only file systems (tmpfs)${noTmpfs === undefined ? "" : ` — skipped: ${noTmpfs}`}`,
  () => {
    it("a full disk under tag --out: exit 1 naming the file; no temporary file is left", async () => {
      const small = mountTmpfs("small", "size=64k");
      const result = await runCli(
        ["tag", "--model", "cite.model", "--data", "many.docs", "--out", join(small, "out.txt")],
        { cwd: dir },
      );
      expectCleanExit(result, 1);
      expect(result.stderr).toMatch(/lagrange: cannot write \S+out\.txt: no space left on device/);
      expect(readdirSync(small)).toEqual([]);
    });

    it("a full disk under train --out: exit 1, the previous model kept intact", async () => {
      const tiny = mountTmpfs("tiny", "size=16k");
      const model = join(tiny, "cite.model");
      await writeFile(model, "previous model\n");
      await writeFile(join(tiny, "filler"), new Uint8Array(8192));
      const before = sha256(model);
      const result = await runCli(
        [
          "train",
          "--data",
          "train.docs",
          "--preset",
          "citation",
          "--max-iterations",
          "3",
          "--out",
          model,
        ],
        { cwd: dir },
      );
      expectCleanExit(result, 1);
      expect(result.stderr).toMatch(/cannot write \S+cite\.model: no space left on device/);
      expect(sha256(model)).toBe(before);
      expect(readdirSync(tiny).sort()).toEqual(["cite.model", "filler"]);
    });

    it("a read-only file system: exit 2 before any work", async () => {
      const readOnly = mountTmpfs("read-only", "ro,size=16k");
      const result = await runCli(
        ["tag", "--model", "cite.model", "--data", "many.docs", "--out", join(readOnly, "o.txt")],
        { cwd: dir },
      );
      expectCleanExit(result, 2);
      expect(result.stderr).toMatch(/--out \S+o\.txt: cannot be written \(read-only file system\)/);
      expect(existsSync(join(readOnly, "o.txt"))).toBe(false);
    });
  },
);

describe("the folder is left clean", () => {
  it("no temporary file", () => {
    expect(strayTemporaryFiles(dir)).toEqual([]);
  });
});
