import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lagrangeErrorCode } from "@lagrange/core";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_REDIS_URL } from "./connection.js";
import { queueTargetOf, readRedisPasswordFile } from "./target.js";

const dir = mkdtempSync(join(tmpdir(), "lagrange-target-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The usage error `run` throws, as `[code, message]`. */
function refusal(run: () => unknown): [string | undefined, string] {
  try {
    run();
  } catch (error) {
    return [lagrangeErrorCode(error), (error as Error).message];
  }
  throw new Error("expected a refusal");
}

describe("where the queue is", () => {
  it("defaults to the local Redis, and takes the password from a file's first line", () => {
    expect(queueTargetOf({})).toEqual({ redis: DEFAULT_REDIS_URL });
    const file = join(dir, "pw");
    writeFileSync(file, "s3cret\r\nignored\n");
    expect(queueTargetOf({ redis: "redis://h:1", passwordFile: file })).toEqual({
      redis: "redis://h:1",
      password: "s3cret",
    });
  });

  it("refuses a password given twice, an empty or missing file, and a FIFO (without blocking)", () => {
    const file = join(dir, "pw2");
    writeFileSync(file, "x\n");
    expect(refusal(() => queueTargetOf({ redis: "redis://:p@h:1", passwordFile: file }))).toEqual([
      "usage",
      "--redis-password-file: the Redis URL has a password too; give the password once",
    ]);
    writeFileSync(join(dir, "empty"), "\n");
    expect(refusal(() => readRedisPasswordFile(join(dir, "empty")))).toEqual([
      "usage",
      `--redis-password-file ${join(dir, "empty")}: empty`,
    ]);
    // Old Mac line endings: the CR would be sent as part of the password.
    writeFileSync(join(dir, "mac"), "secret\rsecond line\r");
    expect(refusal(() => readRedisPasswordFile(join(dir, "mac")))[1]).toMatch(/ends in CR only/);
    writeFileSync(join(dir, "crlf"), "secret\r\n");
    expect(readRedisPasswordFile(join(dir, "crlf"))).toBe("secret");
    expect(refusal(() => readRedisPasswordFile(join(dir, "missing")))).toEqual([
      "usage",
      `--redis-password-file ${join(dir, "missing")}: no such file`,
    ]);
    if (process.platform !== "win32") {
      execFileSync("mkfifo", [join(dir, "fifo")]);
      expect(refusal(() => readRedisPasswordFile(join(dir, "fifo")))[1]).toMatch(
        /expected a regular file of at most 4096 bytes$/,
      );
    }
  });
});
