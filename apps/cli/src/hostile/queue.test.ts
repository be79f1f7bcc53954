/**
 * The queue against someone who can write to its Redis, or who has its URL: job specs injected
 * into Redis that name /dev/zero, an attacker's URL, a root-only file, a FIFO, paths out of the
 * model directory, wrong types, huge numbers, missing fields, plug-ins; passwords in URLs; wrong
 * and missing passwords; a submit killed halfway; signals while submitting, collecting and
 * working; every shape of secret (URL user information, `?password=`, tokens and signatures in
 * model URLs) against every place that prints or stores a message; a stored model corrupted in
 * Redis. A real redis-server with `--requirepass`; the workers and commands are the real binary
 * under a memory and a time cap. Skipped, saying so, without redis-server.
 */

import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deadLetterReport, type JobStatus, jobStatus, removeJob, submitJob } from "@lagrange/scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkingText, listFiles, trainModel } from "../probe/cli-process.js";
import {
  freePort,
  killTree,
  REDIS_SERVER,
  redisCli,
  startRedis,
  stopProcess,
} from "../probe/redis-server.js";
import { expectBounded, runBounded, startBounded } from "./harness.js";

const PASSWORD = "s3cretPW-h0stile";
/** In a root-only file outside the model directory: must never appear in any output. */
const SECRET = "SECRET-MARKER-7f3a9c";
const isRoot = process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(REDIS_SERVER === undefined || process.platform !== "linux")(
  `lagrange queue under attack${REDIS_SERVER === undefined ? " (skipped: no redis-server on this machine; apt-get install redis-server)" : ""}`,
  () => {
    let dir: string;
    let redis: ChildProcess;
    let port: number;
    let url: string;
    let env: Record<string, string>;
    let http: Server;
    let httpUrl: string;
    const fetched: string[] = [];

    const cli = (args: readonly string[]) => redisCli(port, args, { password: PASSWORD });
    const target = () => ({ redis: url });
    const submit = (job: string, data = "data.txt", shardSize = 10) =>
      submitJob({
        ...target(),
        job,
        data: join(dir, data),
        model: join(dir, "m.model"),
        shardSize,
        attempts: 2,
        backoffMs: 100,
      });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lagrange-hostile-queue-"));
      port = await freePort();
      redis = await startRedis(port, dir, ["--requirepass", PASSWORD]);
      url = `redis://:${PASSWORD}@127.0.0.1:${port}`;
      env = { LAGRANGE_REDIS_URL: url };
      writeFileSync(join(dir, "train.txt"), chunkingText(100, { seed: 1 }));
      writeFileSync(join(dir, "data.txt"), chunkingText(4, { seed: 2 }));
      writeFileSync(join(dir, "corpus.txt"), chunkingText(60, { seed: 3 }));
      await trainModel(dir, "train.txt", "chunking", 5, "m.model");
      // The worker's model directory, with every way out of it an attacker could name.
      const models = join(dir, "models");
      mkdirSync(models);
      copyFileSync(join(dir, "m.model"), join(models, "m.model"));
      writeFileSync(join(dir, "shadow"), `root:$6$${SECRET}$hash:19000:0:99999:7:::\n`);
      chmodSync(join(dir, "shadow"), 0o600);
      symlinkSync("../shadow", join(models, "shadow-link"));
      symlinkSync("/dev/zero", join(models, "zero-link"));
      execFileSync("mkfifo", [join(models, "pipe")]);
      if (isRoot) execFileSync("mknod", [join(models, "zero-device"), "c", "1", "5"]);
      // An attacker's server: any request is a failure of the test.
      http = createServer((request, response) => {
        fetched.push(request.url ?? "");
        response.end("x");
      });
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
      const address = http.address();
      httpUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
    }, 60_000);

    afterAll(async () => {
      http?.closeAllConnections();
      await new Promise((resolve) => http?.close(resolve));
      if (redis !== undefined) await stopProcess(redis, "SIGKILL");
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it("never prints the password, and fails at once (exit 2) when Redis refuses it", async () => {
      const wrong = `redis://:wrong-${PASSWORD}@127.0.0.1:${port}`;
      const bare = `redis://127.0.0.1:${port}`;
      // A worker with a wrong password used to retry for ever; commands, 12 s.
      writeFileSync(join(dir, "right.pw"), `${PASSWORD}\n`);
      const [worker, collect, unknown, passwordFile, rightFile] = await Promise.all([
        runBounded(["queue", "work"], {
          cwd: dir,
          env: { LAGRANGE_REDIS_URL: wrong },
          timeoutMs: 30_000,
        }),
        runBounded(["queue", "collect", "--job", "x", "--out", "o.txt"], {
          cwd: dir,
          env: { LAGRANGE_REDIS_URL: bare },
          timeoutMs: 30_000,
        }),
        runBounded(["queue", "status", "--job", "nope", "--redis", url], {
          cwd: dir,
          timeoutMs: 30_000,
        }),
        (async () => {
          writeFileSync(join(dir, "wrong.pw"), `wrong-${PASSWORD}\n`);
          return runBounded(
            ["queue", "remove", "x", "--redis", bare, "--redis-password-file", "wrong.pw"],
            { cwd: dir, timeoutMs: 30_000 },
          );
        })(),
        runBounded(
          [
            "queue",
            "status",
            "--job",
            "nope",
            "--redis",
            bare,
            "--redis-password-file",
            "right.pw",
          ],
          { cwd: dir, timeoutMs: 30_000 },
        ),
      ]);
      // Let in: the job is what is missing.
      expectBounded(rightFile, 2);
      expect(rightFile.stderr).toBe(`lagrange: --job nope: no such job in ${bare}\n`);
      expectBounded(worker, 2);
      expect(worker.stderr).toContain(
        `lagrange: Redis at redis://:***@127.0.0.1:${port} refused the password (WRONGPASS)`,
      );
      expectBounded(collect, 2);
      expect(collect.stderr).toMatch(/requires a password \(NOAUTH\); none was given: give it in/);
      expectBounded(passwordFile, 2);
      expect(passwordFile.stderr).toContain("refused the password (WRONGPASS)");
      expectBounded(unknown, 2);
      expect(unknown.stderr).toContain(`--job nope: no such job in redis://:***@127.0.0.1:${port}`);
      expect(unknown.stderr).toMatch(/warning: a password in --redis is visible to other users/);
      // At once: no slower than a command Redis answers, started at the same moment (start-up
      // dominates both; the retries took 12 s, a worker's for ever).
      for (const run of [worker, collect, passwordFile]) {
        expect(run.wallMs).toBeLessThan(Math.max(unknown.wallMs, rightFile.wallMs) + 4000);
      }
      for (const run of [worker, collect, unknown, passwordFile, rightFile]) {
        expect(run.stdout + run.stderr).not.toContain(PASSWORD);
      }
      console.info(
        `queue: wrong password → exit 2 in ${worker.wallMs} ms (worker), ${passwordFile.wallMs} ms (remove); no password ${collect.wallMs} ms; an answered command ${unknown.wallMs} ms (start-up included)`,
      );
    }, 45_000);

    it("refuses malicious specs with a clear reason, reading, fetching and leaking nothing, and keeps serving other jobs", async () => {
      await submit("good-first");
      const { modelSha256 } = JSON.parse(
        cli(["HGET", "lagrange:lagrange-tag:good-first:meta", "spec"]),
      ) as { modelSha256: string };
      const real = { modelSha256, data: "corpus.conll", format: "conll" };
      const cases: { job: string; spec: unknown; reason: RegExp }[] = [
        {
          job: "dev-zero",
          spec: { ...real, modelSource: "model-dir", model: "/dev/zero", modelBytes: 1000 },
          reason: /spec: model: expected a path relative to the model directory/,
        },
        {
          job: "dev-zero-link",
          spec: { ...real, modelSource: "model-dir", model: "zero-link", modelBytes: 1000 },
          reason: /^model zero-link: outside this worker's model directory$/,
        },
        ...(isRoot
          ? [
              {
                job: "dev-zero-device",
                spec: { ...real, modelSource: "model-dir", model: "zero-device", modelBytes: 1000 },
                reason: /^model zero-device: not a regular file \(a character device\)$/,
              },
            ]
          : []),
        {
          job: "steal",
          spec: { ...real, modelSource: "url", model: `${httpUrl}/steal`, modelBytes: 1 },
          reason: /this worker does not fetch models from URLs/,
        },
        {
          job: "steal-old-spec",
          spec: {
            model: `${httpUrl}/steal-old`,
            modelSha256: real.modelSha256,
            data: "x",
            format: "conll",
          },
          reason: /modelSource: missing \(a job submitted by an earlier lagrange/,
        },
        {
          job: "shadow-dots",
          spec: { ...real, modelSource: "model-dir", model: "../shadow", modelBytes: 60 },
          reason: /spec: model: expected a path relative to the model directory, without '\.\.'/,
        },
        {
          job: "shadow-absolute",
          spec: { ...real, modelSource: "model-dir", model: "/etc/shadow", modelBytes: 60 },
          reason: /spec: model: expected a path relative/,
        },
        {
          job: "shadow-link",
          spec: { ...real, modelSource: "model-dir", model: "shadow-link", modelBytes: 60 },
          reason: /^model shadow-link: outside this worker's model directory$/,
        },
        {
          job: "fifo",
          spec: { ...real, modelSource: "model-dir", model: "pipe", modelBytes: 1000 },
          reason: /^model pipe: not a regular file \(a FIFO\)$/,
        },
        {
          job: "wrong-type",
          spec: { ...real, modelSource: "redis", model: { startsWith: 1 }, modelBytes: 1000 },
          reason: /spec: model: expected a name of 1 to 4096 printable characters, found an object/,
        },
        {
          job: "huge-number",
          spec: { ...real, modelSource: "redis", model: "m", modelBytes: 1e308 },
          reason:
            /spec: modelBytes: expected a whole number of bytes ≥ 1, found a number out of range/,
        },
        {
          job: "over-the-cap",
          spec: { ...real, modelSource: "model-dir", model: "m.model", modelBytes: 2 ** 40 },
          reason: /^model m\.model: 1048576\.0 MiB, above this worker's cap of 1024\.0 MiB$/,
        },
        {
          job: "missing-fields",
          spec: { model: "m" },
          reason: /spec: modelSource: missing|spec: modelSource: expected one of/,
        },
        {
          job: "plug-in",
          spec: { ...real, modelSource: "redis", model: "m", modelBytes: 1, plugin: "./evil.mjs" },
          reason: /"plugin": not a field of a job's spec \(queue workers never load plug-ins\)/,
        },
        { job: "not-json", spec: "{", reason: /its spec is not JSON/ },
        {
          job: "shard-data",
          spec: undefined,
          reason: /shard job .*: index: expected a shard number/,
        },
      ];
      for (const c of cases) {
        await submit(c.job);
        const key = `lagrange:lagrange-tag:${c.job}:meta`;
        if (c.spec !== undefined) {
          cli(["HSET", key, "spec", typeof c.spec === "string" ? c.spec : JSON.stringify(c.spec)]);
        } else {
          const id = `${c.job}/${cli(["HGET", key, "submission"])}/0`;
          const data = JSON.parse(cli(["HGET", `bull:lagrange-tag:${id}`, "data"]));
          cli([
            "HSET",
            `bull:lagrange-tag:${id}`,
            "data",
            JSON.stringify({ ...data, index: "0; rm -rf /" }),
          ]);
        }
      }
      await submit("good-last");
      const worker = startBounded(["queue", "work", "--model-dir", "models"], {
        cwd: dir,
        env,
        memoryMb: 700,
        timeoutMs: 60_000,
      });
      const jobs = ["good-first", ...cases.map((c) => c.job), "good-last"];
      // Shards are taken in the order they were queued: once the last job is done, all are settled.
      for (let i = 0; i < 120; i++) {
        const last = await jobStatus({ ...target(), job: "good-last" });
        if (last.done === 1) break;
        await sleep(250);
      }
      const statuses = new Map<string, JobStatus>();
      for (const job of jobs) statuses.set(job, await jobStatus({ ...target(), job }));
      worker.kill("SIGHUP");
      const run = await worker.finished;
      expectBounded(run, 129);
      expect(run.stoppedMs!, "stopped within a second of SIGHUP").toBeLessThan(1000);
      for (const c of cases) {
        const status = statuses.get(c.job)!;
        expect(status.dead, c.job).toHaveLength(1);
        expect(status.dead[0]!.attempts, `${c.job}: dead at the first try`).toBe(1);
        expect(status.dead[0]!.error, c.job).toMatch(c.reason);
      }
      // The worker served the jobs before and after the attacks.
      for (const job of ["good-first", "good-last"]) {
        expect(statuses.get(job)).toMatchObject({ done: 1, shards: 1, doneSentences: 4 });
      }
      expect(fetched, "the attacker's server was asked for").toEqual([]);
      const everything = JSON.stringify([...statuses.values()]) + run.stdout + run.stderr;
      expect(everything).not.toContain(SECRET);
      expect(everything).not.toContain("root:");
      expect(everything).not.toContain(PASSWORD);
      expect(run.stderr).not.toMatch(/is not a function|Cannot read prop|internal error/);
      console.info(
        `queue: a worker refusing ${cases.length} malicious specs (/dev/zero, a FIFO, URLs, root-only files, …) peaked at ${run.peakRssMb} MB resident (the binary's supervisor and worker together)`,
      );
    }, 60_000);

    it("a submit killed halfway leaves a job shown as incomplete, that collect refuses at once and remove clears; the name is then free", async () => {
      const submitting = startBounded(
        [
          "queue",
          "submit",
          "--data",
          "corpus.txt",
          "--model",
          "m.model",
          "--job",
          "half",
          "--shard-size",
          "3",
        ],
        { cwd: dir, env: { ...env, LAGRANGE_QUEUE_SUBMIT_PAUSE_MS: "200" }, timeoutMs: 30_000 },
      );
      const queued = () => Number(cli(["HLEN", "lagrange:lagrange-tag:half:shards"]));
      for (let i = 0; i < 300 && queued() < 1; i++) await sleep(50);
      // A machine that dies: the supervisor and the command with it, nothing cleaned up.
      killTree(submitting.pid);
      await submitting.finished;
      expect(queued()).toBeGreaterThanOrEqual(1);
      expect((await jobStatus({ ...target(), job: "half" })).submission).toBe("submitting");
      // What the mark's expiry (15 s after the last renewal) does, without the wait.
      cli(["DEL", "lagrange:lagrange-tag:half:submitter"]);
      const [status, collect] = await Promise.all([
        runBounded(["queue", "status", "--job", "half"], { cwd: dir, env, timeoutMs: 15_000 }),
        runBounded(["queue", "collect", "--job", "half", "--out", "half.txt"], {
          cwd: dir,
          env,
          timeoutMs: 15_000,
        }),
      ]);
      expectBounded(status, 0);
      expect(status.stdout).toMatch(
        /^job half: INCOMPLETE — its submit stopped after \d+ shard\(s\) were queued, so it can never be collected; `lagrange queue remove half` clears it/,
      );
      expect(status.stdout).not.toMatch(/-\d|\/0 shard/);
      expectBounded(collect, 1);
      expect(collect.stderr).toMatch(
        /lagrange: job half: its submission did not finish .*`lagrange queue remove half` clears it/,
      );
      expect(existsSync(join(dir, "half.txt"))).toBe(false);
      const removed = await runBounded(["queue", "remove", "half"], {
        cwd: dir,
        env,
        timeoutMs: 15_000,
      });
      expectBounded(removed, 0);
      expect(cli(["--scan", "--pattern", "*half*"])).toBe("");
      // The name is free again.
      expect(await submit("half")).toMatchObject({ job: "half", shards: 1 });
      await removeJob({ ...target(), job: "half" });
    }, 60_000);

    it("submit and collect stop within a second of SIGINT and SIGTERM, leaving no job and no file", async () => {
      await submit("never-tagged");
      const submitting = startBounded(
        [
          "queue",
          "submit",
          "--data",
          "corpus.txt",
          "--model",
          "m.model",
          "--job",
          "sigint",
          "--shard-size",
          "3",
        ],
        { cwd: dir, env: { ...env, LAGRANGE_QUEUE_SUBMIT_PAUSE_MS: "200" }, timeoutMs: 30_000 },
      );
      const collecting = startBounded(
        ["queue", "collect", "--job", "never-tagged", "--out", "never.txt"],
        { cwd: dir, env, timeoutMs: 30_000 },
      );
      for (
        let i = 0;
        i < 300 && Number(cli(["HLEN", "lagrange:lagrange-tag:sigint:shards"])) < 1;
        i++
      ) {
        await sleep(50);
      }
      submitting.kill("SIGINT");
      // Collect is waiting for a shard no worker will tag: stopped at whatever moment it is in.
      await sleep(Math.random() * 1000);
      collecting.kill("SIGTERM");
      const [submitted, collected] = await Promise.all([submitting.finished, collecting.finished]);
      expectBounded(submitted, 130);
      expect(submitted.stoppedMs!).toBeLessThan(1000);
      expect(cli(["--scan", "--pattern", "*sigint*"]), "what the stopped submit queued").toBe("");
      expectBounded(collected, 143);
      expect(collected.stoppedMs!).toBeLessThan(1000);
      expect(listFiles(dir).filter((f) => f.startsWith("never") || f.includes(".tmp"))).toEqual([]);
      await removeJob({ ...target(), job: "never-tagged" });
    }, 60_000);

    describe("class 8: secrets and the stored model", () => {
      /** A model server: serves a path once (to submit), then refuses it (to the workers). */
      const served = new Set<string>();
      const authorizations: string[] = [];
      let models: Server;
      let modelBase: string;

      beforeAll(async () => {
        const bytes = readFileSync(join(dir, "m.model"));
        models = createServer((request, response) => {
          authorizations.push(request.headers.authorization ?? "");
          const path = (request.url ?? "").replace(/\?.*/, "");
          if (path.startsWith("/denied/") || served.has(path)) {
            response.statusCode = 403;
            response.end("no");
          } else {
            served.add(path);
            response.end(bytes);
          }
        });
        await new Promise<void>((resolve) => models.listen(0, "127.0.0.1", resolve));
        const address = models.address();
        modelBase = `127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
      });

      afterAll(async () => {
        models?.closeAllConnections();
        await new Promise((resolve) => models?.close(resolve));
      });

      it("hides every secret shape in every place that prints or stores a message", async () => {
        const hostPort = `127.0.0.1:${port}`;
        const wrong = `wrong-${PASSWORD}`;
        /** Every shape a secret takes in a URL, each with its own marker. */
        const secrets = {
          "Redis URL user information": PASSWORD,
          "Redis URL ?password=": PASSWORD,
          "a wrong Redis password": wrong,
          "model URL user": "mu-5ecretUser",
          "model URL password": "mp-5ecretPass",
          "model URL ?token=": "tk-5ecretToken",
          "model URL X-Amz-Credential": "AKIA5ECRETCRED",
          "model URL X-Amz-Signature": "5ig5ecretSignature",
          "model URL #access_token": "at-5ecretFragment",
        };
        const redisQuery = `redis://${hostPort}/0?password=${PASSWORD}`;
        const redisUser = `redis://default:${PASSWORD}@${hostPort}`;
        const query = `X-Amz-Credential=${secrets["model URL X-Amz-Credential"]}&X-Amz-Signature=${secrets["model URL X-Amz-Signature"]}&token=${secrets["model URL ?token="]}&lang=en#access_token=${secrets["model URL #access_token"]}`;
        const userInfo = `${secrets["model URL user"]}:${secrets["model URL password"]}`;
        const modelUrl = (path: string) => `http://${userInfo}@${modelBase}/${path}?${query}`;
        const redacted = (path: string) =>
          `http://***:***@${modelBase}/${path}?X-Amz-Credential=***&X-Amz-Signature=***&token=***&lang=en#access_token=***`;
        const submitArgs = (job: string, model: string, redis: string) => [
          ...["queue", "submit", "--data", "data.txt", "--model", model],
          ...["--job", job, "--redis", redis],
        ];
        const bounded = { cwd: dir, timeoutMs: 30_000 };
        // A worker allowed URLs (started beside the rest: start-up is most of each run): the server
        // refuses the model the second time, and the shard is dead-lettered.
        const worker = startBounded(["queue", "work", "--allow-model-urls"], {
          cwd: dir,
          env,
          memoryMb: 700,
          timeoutMs: 30_000,
        });
        const [submitted, refusedModel, wrongQuery] = await Promise.all([
          runBounded(submitArgs("secret-url", modelUrl("m.lgm"), redisQuery), bounded),
          runBounded(submitArgs("secret-denied", modelUrl("denied/m.lgm"), redisUser), bounded),
          runBounded(
            ["queue", "work", "--redis", `redis://${hostPort}/0?password=${wrong}`],
            bounded,
          ),
        ]);
        expectBounded(submitted, 0);
        expectBounded(refusedModel, 2);
        expectBounded(wrongQuery, 2);
        // The credentials reached the model server, as HTTP Basic (fetch refuses them in a URL).
        expect(authorizations).toContain(`Basic ${Buffer.from(userInfo).toString("base64")}`);
        let status = await jobStatus({ ...target(), job: "secret-url" });
        for (let i = 0; i < 120 && status.dead.length === 0; i++) {
          await sleep(250);
          status = await jobStatus({ ...target(), job: "secret-url" });
        }
        worker.kill("SIGHUP");
        const [worked, statusText] = await Promise.all([
          worker.finished,
          runBounded(["queue", "status", "--job", "secret-url"], { ...bounded, env }),
        ]);
        expectBounded(worked, 129);
        expectBounded(statusText, 0);
        const submission = cli(["HGET", "lagrange:lagrange-tag:secret-url:meta", "submission"]);
        const record = cli([
          "HGET",
          `bull:lagrange-tag:secret-url/${submission}/0`,
          "failedReason",
        ]);
        const refusal = `model ${redacted("m.lgm")}: HTTP 403 Forbidden`;
        /** Every place that prints or stores, with what it must show (the redacted form). */
        const places: { place: string; text: string; shows: string }[] = [
          {
            place: "submit's progress line",
            text: submitted.stderr,
            shows: `to redis://${hostPort}/0?password=***, the model at its URL`,
          },
          {
            place: "the warning",
            text: submitted.stderr + refusedModel.stderr,
            shows: "warning: a password in --redis is visible",
          },
          {
            place: "an error line (a model URL)",
            text: refusedModel.stderr,
            shows: `lagrange: --model ${redacted("denied/m.lgm")}: HTTP 403 Forbidden`,
          },
          {
            place: "Redis's refusal (query)",
            text: wrongQuery.stderr,
            shows: `Redis at redis://${hostPort}/0?password=*** refused the password (WRONGPASS)`,
          },
          { place: "the worker's log", text: worked.stderr, shows: refusal },
          { place: "the job's record in Redis", text: record, shows: refusal },
          { place: "queue status", text: statusText.stdout, shows: refusal },
          // What `queue status --json` prints, and `queue collect` lists.
          { place: "the job's status", text: JSON.stringify(status), shows: refusal },
          { place: "the dead-letter report", text: deadLetterReport(status), shows: refusal },
        ];
        for (const { place, text, shows } of places) {
          expect(text, place).toContain(shows);
          for (const [shape, secret] of Object.entries(secrets)) {
            expect(text, `${shape} in ${place}`).not.toContain(secret);
          }
        }
        for (const job of ["secret-url"]) await removeJob({ ...target(), job });
        console.info(
          `queue: ${Object.keys(secrets).length} secret shapes × ${places.length} places, none shown`,
        );
      }, 60_000);

      it("a stored model that fails its checksum is deleted by the worker and stored again by the next submit", async () => {
        const stored = () =>
          `lagrange:lagrange-tag:model:${JSON.parse(cli(["HGET", "lagrange:lagrange-tag:corrupt-1:meta", "spec"])).modelSha256}`;
        await submit("corrupt-1");
        const key = stored();
        // Submit compares what is stored, not merely that something is.
        cli(["SETRANGE", key, "64", "CORRUPT"]);
        expect(await submit("corrupt-2")).toMatchObject({ modelUploaded: true });
        expect(cli(["GETRANGE", key, "64", "70"])).not.toBe("CORRUPT");
        // Corrupted after every submit: the worker finds out.
        cli(["SETRANGE", key, "64", "CORRUPT"]);
        await removeJob({ ...target(), job: "corrupt-2" });
        const worker = startBounded(["queue", "work"], {
          cwd: dir,
          env,
          memoryMb: 700,
          timeoutMs: 30_000,
        });
        const settled = async (job: string) => {
          for (let i = 0; i < 120; i++) {
            const status = await jobStatus({ ...target(), job });
            if (status.done + status.dead.length === status.shards) return status;
            await sleep(250);
          }
          throw new Error(`${job} never settled`);
        };
        const failed = await settled("corrupt-1");
        expect(failed.dead).toHaveLength(1);
        expect(failed.dead[0]!.attempts, "dead at the first try").toBe(1);
        expect(failed.dead[0]!.error).toMatch(
          /^model m\.model: the copy stored in Redis does not match its checksum \(sha256 [0-9a-f]{12}…\), so it was deleted; submitting the model again stores it anew$/,
        );
        expect(cli(["EXISTS", key]), "the bad copy").toBe("0");
        // The next submission of the same bytes stores them again, and its shards are tagged.
        expect(await submit("corrupt-3")).toMatchObject({ modelUploaded: true });
        expect(await settled("corrupt-3")).toMatchObject({ done: 1, dead: [] });
        worker.kill("SIGHUP");
        expectBounded(await worker.finished, 129);
        for (const job of ["corrupt-1", "corrupt-3"]) await removeJob({ ...target(), job });
      }, 60_000);
    });
  },
);
