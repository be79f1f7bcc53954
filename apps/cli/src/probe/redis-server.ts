/**
 * A real redis-server for the queue's tests (the probe suite and the hostile suite): found on the
 * machine (the tests are skipped, saying so, without it), started on a free port, looked into with
 * redis-cli. Also how a test kills a `lagrange` process the way a dying machine does. Tests only.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { processTree } from "./cli-process.js";

function findRedisServer(): string | undefined {
  if (existsSync("/usr/bin/redis-server")) return "/usr/bin/redis-server";
  try {
    return (
      execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim() ||
      undefined
    );
  } catch {
    return undefined;
  }
}

/** Debian's redis-server, if installed (`apt-get install redis-server`). */
export const REDIS_SERVER = findRedisServer();
/** redis-cli beside it: the tests look at Redis's keys as they are. */
const REDIS_CLI = REDIS_SERVER?.replace(/redis-server$/, "redis-cli");

/** Runs redis-cli against the server on `port` (with `password` if it needs one); its raw reply. */
export function redisCli(
  port: number,
  args: readonly string[],
  options: { readonly password?: string } = {},
): string {
  const auth = options.password === undefined ? [] : ["-a", options.password, "--no-auth-warning"];
  return execFileSync(REDIS_CLI!, ["-p", `${port}`, ...auth, "--raw", ...args], {
    encoding: "utf8",
  }).trim();
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === "object" && address !== null ? address.port : 0),
      );
    });
  });
}

/**
 * A redis-server on `port` with an append-only file fsynced at every write (a restart loses
 * nothing), and `extra` arguments (`--requirepass …`).
 */
export async function startRedis(
  port: number,
  dir: string,
  extra: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER!,
    [
      "--port",
      `${port}`,
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--dir",
      dir,
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      if (log.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited ${code}:\n${log}`)));
  });
  return child;
}

export function stopProcess(
  child: ChildProcess,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/**
 * SIGKILL to `pid` and every process under it: the binary runs the command in a child of its
 * supervisor, and a machine that dies takes both. Children first, so none is left orphaned.
 */
export function killTree(pid: number): void {
  // Without /proc, or once `pid` is gone, the tree is `pid` alone: the signal still reaches it.
  for (const p of processTree(pid).reverse()) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
