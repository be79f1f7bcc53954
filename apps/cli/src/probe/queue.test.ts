/**
 * `lagrange queue` against a real Redis: workers are the CLI in subprocesses, killed, restarted
 * and starved of their Redis as machines are, and the collected output must still be byte for
 * byte what one `lagrange tag` writes. Needs Debian's redis-server (skipped, saying so, without).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chunkingText,
  expectCleanExit,
  type RunningCli,
  runCli,
  startCli,
  trainModel,
} from "./cli-process.js";

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

const REDIS_SERVER = findRedisServer();

function freePort(): Promise<number> {
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

/** A redis-server on `port` with an append-only file fsynced at every write: a restart loses nothing. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
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

function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** Sentences (blank-line separated blocks) of a tagged file. */
function sentenceBlocks(text: string): string[] {
  return text
    .split(/\n\n/)
    .filter((b) => b.trim() !== "")
    .map((b) => `${b}\n\n`);
}

const FAST_STALLED = ["--lock", "1500", "--stalled-interval", "500"];

describe.skipIf(REDIS_SERVER === undefined)(
  `lagrange queue on a real Redis${REDIS_SERVER === undefined ? " (skipped: no redis-server on this machine; apt-get install redis-server)" : ""}`,
  () => {
    let dir: string;
    let redis: ChildProcess;
    let port: number;
    let env: Record<string, string>;
    const workers: RunningCli[] = [];

    const work = (extra: readonly string[] = [], pauseMs?: number): RunningCli => {
      const worker = startCli(["queue", "work", ...extra], {
        cwd: dir,
        env: {
          ...env,
          ...(pauseMs === undefined ? {} : { LAGRANGE_QUEUE_PAUSE_MS: `${pauseMs}` }),
        },
      });
      workers.push(worker);
      return worker;
    };

    /** SIGTERM, the way a worker is stopped: it finishes the shard in hand and exits 0. */
    const stopWorkers = async (): Promise<string[]> => {
      const running = workers.splice(0);
      return Promise.all(
        running.map(async (w) => {
          expect(w.child.exitCode, "a worker ended before it was stopped").toBeNull();
          w.child.kill("SIGTERM");
          const result = await w.finished;
          expectCleanExit(result, 0);
          expect(result.stderr).toMatch(/worker stopped: /);
          return result.stderr;
        }),
      );
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lagrange-queue-"));
      port = await freePort();
      redis = await startRedis(port, dir);
      env = { LAGRANGE_REDIS_URL: `redis://127.0.0.1:${port}` };
      writeFileSync(join(dir, "train.txt"), chunkingText(150, { seed: 1 }));
      writeFileSync(join(dir, "data.txt"), chunkingText(400, { seed: 2 }));
      await trainModel(dir, "train.txt", "chunking", 20, "m.model");
      // The reference: one process, one `lagrange tag`.
      const tagged = await runCli(
        ["tag", "--data", "data.txt", "--model", "m.model", "--out", "reference.txt"],
        { cwd: dir },
      );
      expectCleanExit(tagged, 0);
    }, 60_000);

    afterAll(async () => {
      for (const w of workers) w.child.kill("SIGKILL");
      if (redis !== undefined) await stopProcess(redis, "SIGKILL");
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    const submit = async (job: string, data: string, shardSize: number, extra: string[] = []) => {
      const result = await runCli(
        [
          "queue",
          "submit",
          "--data",
          data,
          "--model",
          "m.model",
          "--job",
          job,
          "--shard-size",
          `${shardSize}`,
          ...extra,
        ],
        { cwd: dir, env },
      );
      expectCleanExit(result, 0);
      return result;
    };

    it("retries the shard of a worker killed with SIGKILL on another worker; the output is byte-identical", async () => {
      await submit("killed", "data.txt", 50);
      // A slow worker (30 ms a sentence: 1.5 s a shard), killed mid-shard.
      const doomed = work(FAST_STALLED, 30);
      let doomedLog = "";
      doomed.child.stderr!.on("data", (chunk: string) => {
        doomedLog += chunk;
      });
      await doomed.stderrMatches(/shard killed\/\d+: started/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const shard = /shard killed\/(\d+): started/.exec(doomedLog)![1];
      doomed.child.kill("SIGKILL");
      const killed = await doomed.finished;
      expect(killed.signal).toBe("SIGKILL");
      expect(killed.stderr).not.toMatch(new RegExp(`shard killed/${shard}: done`));
      workers.splice(workers.indexOf(doomed), 1);
      const others = [work(FAST_STALLED), work(FAST_STALLED)];
      const collected = await runCli(["queue", "collect", "--job", "killed", "--out", "out.txt"], {
        cwd: dir,
        env,
      });
      expectCleanExit(collected, 0);
      expect(readFileSync(join(dir, "out.txt"))).toEqual(readFileSync(join(dir, "reference.txt")));
      // The orphaned shard was tagged again, by one of the others.
      await Promise.any(
        others.map((w) => w.stderrMatches(new RegExp(`shard killed/${shard}: done`))),
      );
      await stopWorkers();
    }, 45_000);

    it("survives a Redis restart mid-run: workers reconnect, nothing is lost or duplicated", async () => {
      await submit("restart", "data.txt", 20);
      const running = [
        work(["--lock", "5000", "--stalled-interval", "1000"], 10),
        work(["--lock", "5000", "--stalled-interval", "1000"], 10),
      ];
      await Promise.any(running.map((w) => w.stderrMatches(/shard restart\/\d+: done/)));
      await stopProcess(redis, "SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      redis = await startRedis(port, dir);
      const collected = await runCli(
        ["queue", "collect", "--job", "restart", "--out", "restart.txt"],
        { cwd: dir, env },
      );
      expectCleanExit(collected, 0);
      const out = readFileSync(join(dir, "restart.txt"), "utf8");
      const reference = readFileSync(join(dir, "reference.txt"), "utf8");
      expect(sentenceBlocks(out)).toHaveLength(400);
      expect(Buffer.byteLength(out)).toBe(Buffer.byteLength(reference));
      expect(out).toBe(reference);
      const status = await runCli(["queue", "status", "--job", "restart", "--json"], {
        cwd: dir,
        env,
      });
      expectCleanExit(status, 0);
      const parsed = JSON.parse(status.stdout) as {
        done: number;
        shards: number;
        doneSentences: number;
      };
      expect(parsed).toMatchObject({ done: 20, shards: 20, doneSentences: 400 });
      // The outage was seen (and survived) by the workers.
      const logs = await stopWorkers();
      expect(logs.join("\n")).toMatch(/Redis connection: .*\(retrying\)/);
    }, 60_000);

    it("stops on SIGTERM after finishing the shard in hand, exiting 0", async () => {
      writeFileSync(join(dir, "small.txt"), chunkingText(40, { seed: 3 }));
      await submit("graceful", "small.txt", 40);
      const worker = work([], 25);
      await worker.stderrMatches(/shard graceful\/0: started/);
      workers.splice(workers.indexOf(worker), 1);
      worker.child.kill("SIGTERM");
      const result = await worker.finished;
      expectCleanExit(result, 0);
      expect(result.stderr).toMatch(
        /stopping after the shard\(s\) in hand[\s\S]*shard graceful\/0: done/,
      );
      const status = await runCli(["queue", "status", "--job", "graceful", "--json"], {
        cwd: dir,
        env,
      });
      expect(JSON.parse(status.stdout)).toMatchObject({ done: 1, shards: 1, doneSentences: 40 });
    }, 30_000);

    it("dead-letters a poisoned shard with its file:line; the rest completes, and --partial writes it", async () => {
      // Shard 2 of 8 (sentences 100–149) gets a row one column short.
      const lines = readFileSync(join(dir, "data.txt"), "utf8").split("\n");
      let sentence = 0;
      let poisoned = -1;
      for (let i = 0; i < lines.length && poisoned < 0; i++) {
        if (lines[i] === "") sentence++;
        else if (sentence === 120) {
          lines[i] = lines[i]!.split(" ").slice(0, 2).join(" ");
          poisoned = i + 1;
        }
      }
      writeFileSync(join(dir, "poisoned.txt"), lines.join("\n"));
      await submit("poison", "poisoned.txt", 50, ["--attempts", "2", "--backoff", "100"]);
      work(FAST_STALLED);
      const collected = await runCli(
        ["queue", "collect", "--job", "poison", "--out", "poison.txt"],
        { cwd: dir, env },
      );
      expectCleanExit(collected, 1);
      expect(collected.stderr).toContain("1 of 8 shard(s) failed every try");
      expect(collected.stderr).toMatch(
        new RegExp(`shard 2 \\(from line \\d+, 1 try\\): poisoned\\.txt:${poisoned}: `),
      );
      expect(existsSync(join(dir, "poison.txt"))).toBe(false);
      const status = await runCli(["queue", "status", "--job", "poison"], { cwd: dir, env });
      expectCleanExit(status, 0);
      expect(status.stdout).toMatch(
        /7\/8 shard\(s\) done, 0 active, 0 waiting, 0 failed \(to retry\), 1 dead/,
      );
      const partial = await runCli(
        ["queue", "collect", "--job", "poison", "--out", "poison.txt", "--partial", "--no-wait"],
        { cwd: dir, env },
      );
      expectCleanExit(partial, 1);
      expect(partial.stderr).toContain("the other 7 written to poison.txt");
      const expected = sentenceBlocks(readFileSync(join(dir, "reference.txt"), "utf8"));
      expected.splice(100, 50);
      expect(readFileSync(join(dir, "poison.txt"), "utf8")).toBe(expected.join(""));
      await stopWorkers();
    }, 45_000);
  },
);
