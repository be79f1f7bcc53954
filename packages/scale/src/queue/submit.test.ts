/**
 * submit → work → collect on a real redis-server (Debian's, found on the machine; skipped, saying
 * so, without it): the counts a job reports are the corpus's records, whatever its format.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelToBytes } from "@lagrange/chain-crf";
import {
  formatConll,
  formatInlineTags,
  generateCitationSentences,
  type Sentence,
} from "@lagrange/datasets";
import { openCorpus } from "@lagrange/datasets/node";
import { trainOnCorpus } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectJob, jobStatus } from "./jobs.js";
import { submitJob } from "./submit.js";
import { runQueueWorker } from "./worker.js";

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

/** Generated citations with their top-level fields only: the flat labels Cora's format holds. */
function flatCitations(count: number, seed: number): Sentence[] {
  return generateCitationSentences(count, { seed }).map((s) => {
    const labels = (s.labels ?? []).map((label) => label.split("/")[0]!);
    return { ...s, labels, columns: [s.tokens, labels] };
  });
}

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

describe.skipIf(REDIS_SERVER === undefined)(
  `a queued job's counts${REDIS_SERVER === undefined ? " (skipped: no redis-server on this machine; apt-get install redis-server)" : ""}`,
  () => {
    let dir: string;
    let redis: ChildProcess;
    let target: { redis: string };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lagrange-submit-"));
      const port = await freePort();
      redis = spawn(
        REDIS_SERVER!,
        ["--port", `${port}`, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
      await new Promise<void>((resolve, reject) => {
        let log = "";
        redis.stdout!.on("data", (chunk: Buffer) => {
          log += chunk.toString();
          if (/Ready to accept connections/.test(log)) resolve();
        });
        redis.once("exit", () => reject(new Error(`redis-server exited: ${log}`)));
      });
      target = { redis: `redis://127.0.0.1:${port}` };
      const train = join(dir, "train.conll");
      writeFileSync(train, formatConll(flatCitations(60, 1)));
      const { model } = await trainOnCorpus(await openCorpus(train), {
        preset: "citation",
        algorithm: "lbfgs",
        maxIterations: 5,
      });
      writeFileSync(join(dir, "m.model"), modelToBytes(model));
    }, 120_000);

    afterAll(() => {
      redis?.kill("SIGKILL");
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it("counts a Cora-style record (a <NEWREFERENCE> line and its text) once: submit, shards, status", async () => {
      const data = join(dir, "cora.txt");
      const records = flatCitations(9, 2);
      writeFileSync(data, formatInlineTags(records, { recordSeparator: "<NEWREFERENCE>" }));
      const submitted = await submitJob({
        ...target,
        job: "cora",
        data,
        format: "inline",
        model: join(dir, "m.model"),
        shardSize: 4,
      });
      expect([submitted.sentences, submitted.shards]).toEqual([9, 3]);
      const stop = new AbortController();
      const shardSizes: number[] = [];
      const working = runQueueWorker({
        ...target,
        signal: stop.signal,
        onEvent: (event) => {
          if (event.kind === "done") shardSizes[event.shard] = event.sentences;
        },
      });
      let output = "";
      const collected = await collectJob({
        ...target,
        job: "cora",
        pollMs: 50,
        write: async (chunk) => {
          output += chunk;
        },
      });
      stop.abort();
      await working;
      expect(shardSizes).toEqual([4, 4, 1]);
      expect([collected.doneSentences, collected.sentences]).toEqual([9, 9]);
      const status = await jobStatus({ ...target, job: "cora" });
      expect([status.done, status.shards, status.doneSentences, status.sentences]).toEqual([
        3, 3, 9, 9,
      ]);
      // One tagged block per record.
      expect(output.split("\n\n").filter((block) => block.trim() !== "")).toHaveLength(9);
    }, 60_000);
  },
);
