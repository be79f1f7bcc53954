import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { LagrangeError } from "@lagrange/core";
import { InputFileError, inputFileError, inputSizeCap } from "@lagrange/core/node";
import { DEFAULT_REDIS_URL, hasRedisPassword, type QueueTarget } from "./connection.js";

/**
 * A Redis password from a file (`--redis-password-file`): its first line, a trailing newline not
 * part of it. Kept off command lines and out of the environment, where other users see it.
 * Refused: a file that is not a regular file, is larger than a password (the password kind's
 * input cap), is empty, or ends its line in CR alone (old Mac line endings: the CR would be taken
 * for part of the password).
 */
export function readRedisPasswordFile(path: string): string {
  const what = `--redis-password-file ${path}`;
  const most = inputSizeCap("password");
  let fd: number;
  try {
    // Without blocking: a FIFO with no writer must not hang the command.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    // Worded as for every file a command line names: "no such file", "cannot be read (…)".
    const refused = inputFileError(path, error);
    throw refused instanceof InputFileError
      ? new LagrangeError("usage", `--redis-password-file ${refused.message}`, { cause: refused })
      : refused;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > most) {
      throw new LagrangeError("usage", `${what}: expected a regular file of at most ${most} bytes`);
    }
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, stat.size, 0);
    const password = buffer.subarray(0, read).toString("utf8").split(/\r?\n/)[0] ?? "";
    if (password === "") throw new LagrangeError("usage", `${what}: empty`);
    if (password.includes("\r")) {
      throw new LagrangeError(
        "usage",
        `${what}: its line ends in CR only (old Mac line endings); convert it with tr '\\r' '\\n'`,
      );
    }
    return password;
  } finally {
    closeSync(fd);
  }
}

/**
 * Where the queue is: `redis` (default {@link DEFAULT_REDIS_URL}), with the password read from
 * `passwordFile` when given. A password in both is refused: it is given once.
 */
export function queueTargetOf(options: {
  readonly redis?: string;
  readonly passwordFile?: string;
}): QueueTarget {
  const redis = options.redis ?? DEFAULT_REDIS_URL;
  if (options.passwordFile === undefined) return { redis };
  if (hasRedisPassword(redis)) {
    throw new LagrangeError(
      "usage",
      "--redis-password-file: the Redis URL has a password too; give the password once",
    );
  }
  return { redis, password: readRedisPasswordFile(options.passwordFile) };
}
