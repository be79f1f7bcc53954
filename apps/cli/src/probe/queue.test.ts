/**
 * `lagrange queue` against a real Redis: workers are the CLI in subprocesses, killed, restarted
 * and starved of their Redis as machines are, and the collected output must still be byte for
 * byte what one `lagrange tag` writes. Needs Debian's redis-server (skipped, saying so, without).
 */
import type { ChildProcess } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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
import {
  freePort,
  killTree,
  REDIS_SERVER,
  redisCli as redisCliOf,
  startRedis,
  stopProcess,
} from "./redis-server.js";

const redisCli = (port: number, ...args: string[]): string => redisCliOf(port, args);

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

    /** SIGTERM, the way a worker is stopped: it hands back the shard in hand and exits 143. */
    const stopWorkers = async (): Promise<string[]> => {
      const running = workers.splice(0);
      return Promise.all(
        running.map(async (w) => {
          expect(w.child.exitCode, "a worker ended before it was stopped").toBeNull();
          w.child.kill("SIGTERM");
          const result = await w.finished;
          expectCleanExit(result, 143);
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
      for (const w of workers) if (w.child.pid !== undefined) killTree(w.child.pid);
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
      killTree(doomed.child.pid!);
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

    it("stops on SIGTERM at once, putting the shard in hand back in the queue for another worker (exit 143)", async () => {
      writeFileSync(join(dir, "small.txt"), chunkingText(40, { seed: 3 }));
      await submit("graceful", "small.txt", 40);
      // 40 sentences at 100 ms: the shard is in hand for 4 s.
      const worker = work([], 100);
      await worker.stderrMatches(/shard graceful\/0: started/);
      workers.splice(workers.indexOf(worker), 1);
      worker.child.kill("SIGTERM");
      const result = await worker.finished;
      expectCleanExit(result, 143);
      expect(result.stderr).toMatch(
        /stopping; the shard\(s\) in hand go back to the queue[\s\S]*shard graceful\/0: put back in the queue/,
      );
      expect(result.stderr).not.toMatch(/shard graceful\/0: done/);
      // Not a failure: no try was used up, and the next worker takes it at once.
      const next = work();
      await next.stderrMatches(
        /shard graceful\/0: started \(try 1\)[\s\S]*shard graceful\/0: done/,
      );
      const status = await runCli(["queue", "status", "--job", "graceful", "--json"], {
        cwd: dir,
        env,
      });
      expect(JSON.parse(status.stdout)).toMatchObject({
        submission: "complete",
        done: 1,
        shards: 1,
        doneSentences: 40,
      });
      await stopWorkers();
    }, 45_000);

    it("removes a job with everything it stored; its name can then be used again", async () => {
      writeFileSync(join(dir, "tiny.txt"), chunkingText(30, { seed: 4 }));
      await submit("again", "tiny.txt", 10);
      const keys = () =>
        redisCli(port, "--scan", "--pattern", "*again*").split("\n").filter(Boolean);
      expect(keys().length).toBeGreaterThan(0);
      const removed = await runCli(["queue", "remove", "again"], { cwd: dir, env });
      expectCleanExit(removed, 0);
      expect(removed.stderr).toContain("removed job again: 3 queued shard(s)");
      // Record, corpus, results, stats and the shards' BullMQ jobs: nothing is left.
      expect(keys()).toEqual([]);
      const status = await runCli(["queue", "status", "--job", "again"], { cwd: dir, env });
      expectCleanExit(status, 2);
      expect(status.stderr).toMatch(/--job again: no such job in redis:\/\/127\.0\.0\.1:\d+/);
      const collect = await runCli(["queue", "collect", "--job", "again", "--out", "again.txt"], {
        cwd: dir,
        env,
      });
      expectCleanExit(collect, 2);
      const unknown = await runCli(["queue", "remove", "again"], { cwd: dir, env });
      expectCleanExit(unknown, 2);
      await submit("again", "tiny.txt", 10);
      work();
      expectCleanExit(
        await runCli(["queue", "collect", "--job", "again", "--out", "again.txt"], {
          cwd: dir,
          env,
        }),
        0,
      );
      expect(sentenceBlocks(readFileSync(join(dir, "again.txt"), "utf8"))).toHaveLength(30);
      await stopWorkers();
    }, 60_000);

    it("a submit stopped by SIGINT removes what it had queued, and says so", async () => {
      // 20 shards at 300 ms each: interrupted after the first is queued.
      const submitting = startCli(
        [
          "queue",
          "submit",
          "--data",
          "data.txt",
          "--model",
          "m.model",
          "--job",
          "halfway",
          "--shard-size",
          "20",
        ],
        { cwd: dir, env: { ...env, LAGRANGE_QUEUE_SUBMIT_PAUSE_MS: "300" } },
      );
      for (
        let i = 0;
        i < 200 && redisCli(port, "HLEN", "lagrange:lagrange-tag:halfway:shards") === "0";
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(redisCli(port, "HGET", "lagrange:lagrange-tag:halfway:meta", "state")).toBe(
        "submitting",
      );
      submitting.child.kill("SIGINT");
      const stopped = await submitting.finished;
      expectCleanExit(stopped, 130);
      expect(stopped.stderr).toContain("stopped by SIGINT; no partial output was kept");
      expect(redisCli(port, "--scan", "--pattern", "*halfway*")).toBe("");
    }, 30_000);

    it("workers serve jobs whose model is named in a --model-dir; a worker without one refuses them", async () => {
      const models = join(dir, "models");
      mkdirSync(models, { recursive: true });
      copyFileSync(join(dir, "m.model"), join(models, "m.model"));
      writeFileSync(join(dir, "tiny2.txt"), chunkingText(20, { seed: 5 }));
      const submitted = await runCli(
        [
          "queue",
          "submit",
          "--data",
          "tiny2.txt",
          "--model",
          "models/m.model",
          "--model-dir",
          "models",
          "--job",
          "shared",
          "--shard-size",
          "10",
        ],
        { cwd: dir, env },
      );
      expectCleanExit(submitted, 0);
      expect(submitted.stderr).toContain("the model in the workers' --model-dir");
      expect(
        JSON.parse(redisCli(port, "HGET", "lagrange:lagrange-tag:shared:meta", "spec")),
      ).toMatchObject({
        modelSource: "model-dir",
        model: "m.model",
      });
      work(["--model-dir", models]);
      expectCleanExit(
        await runCli(["queue", "collect", "--job", "shared", "--out", "shared.txt"], {
          cwd: dir,
          env,
        }),
        0,
      );
      expect(sentenceBlocks(readFileSync(join(dir, "shared.txt"), "utf8"))).toHaveLength(20);
      await stopWorkers();
      await runCli(
        [
          "queue",
          "submit",
          "--data",
          "tiny2.txt",
          "--model",
          "models/m.model",
          "--model-dir",
          "models",
          "--job",
          "shared2",
          "--shard-size",
          "20",
        ],
        { cwd: dir, env },
      );
      work();
      const refused = await runCli(
        ["queue", "collect", "--job", "shared2", "--out", "shared2.txt"],
        {
          cwd: dir,
          env,
        },
      );
      expectCleanExit(refused, 1);
      expect(refused.stderr).toContain(
        "model m.model: the job names a model in a model directory, and this worker was given none",
      );
      await stopWorkers();
    }, 60_000);

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
