import { setTimeout as sleep } from "node:timers/promises";
import { LagrangeError } from "@lagrange/core";
import { type Job, Queue, type RedisClient } from "bullmq";
import {
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  jobKeys,
  type QueueTarget,
  redisFailure,
  shardJobId,
} from "./connection.js";
import type { ShardJobData, ShardStats } from "./worker.js";

export interface DeadShard {
  readonly index: number;
  /** The corpus line the shard starts on. */
  readonly firstLine: number;
  readonly attempts: number;
  /** The last try's error (malformed input names the corpus file and line). */
  readonly error: string;
}

export interface JobStatus {
  readonly job: string;
  readonly shards: number;
  readonly sentences: number;
  /** Results stored. */
  readonly done: number;
  /** Being tagged now. */
  readonly active: number;
  /** Queued, never tried. */
  readonly waiting: number;
  /** Failed at least once, waiting for a retry. */
  readonly failed: number;
  /** Failed every try: dead-lettered, with their errors. */
  readonly dead: readonly DeadShard[];
  readonly doneSentences: number;
  readonly doneTokens: number;
  /** Tokens per second, from the first shard's start to the latest result (all workers together). */
  readonly tokensPerSecond: number;
  /** Distinct workers that stored results. */
  readonly workers: number;
}

/**
 * A job that cannot be collected whole: shards dead-lettered, or (without waiting) not done yet.
 * `code` tells them apart for callers that map failures to outcomes (exit codes).
 */
export class QueueJobError extends Error {
  override readonly name = "QueueJobError";
  constructor(
    message: string,
    readonly status: JobStatus,
    readonly code: "dead-letters" | "incomplete",
  ) {
    super(message);
  }
}

async function withQueue<T>(
  target: QueueTarget,
  run: (queue: Queue, client: RedisClient) => Promise<T>,
): Promise<T> {
  const queue = new Queue(target.queue ?? DEFAULT_QUEUE_NAME, {
    connection: connectionOf(target.redis),
  });
  queue.on("error", () => {
    // ioredis retries; a command that cannot complete fails the caller instead.
  });
  try {
    return await run(queue, await queue.getBackend().client);
  } catch (error) {
    throw redisFailure(target.redis, error);
  } finally {
    await queue.close().catch(() => {});
  }
}

async function readStatus(
  queue: Queue,
  client: RedisClient,
  target: QueueTarget,
  job: string,
): Promise<JobStatus> {
  const keys = jobKeys(target.queue ?? DEFAULT_QUEUE_NAME, job);
  const meta = await client.hgetall(keys.meta);
  if (meta.spec === undefined) {
    throw new LagrangeError("usage", `--job ${job}: no such job in ${target.redis}`);
  }
  const shards = Number(meta.shards ?? 0);
  const stats = await client.hgetall(keys.stats);
  let doneSentences = 0;
  let doneTokens = 0;
  let latest = 0;
  let earliest = Number.POSITIVE_INFINITY;
  const workers = new Set<string>();
  for (const raw of Object.values(stats)) {
    const s = JSON.parse(raw) as ShardStats;
    doneSentences += s.sentences;
    doneTokens += s.tokens;
    latest = Math.max(latest, s.at);
    earliest = Math.min(earliest, s.at - s.ms);
    workers.add(s.worker);
  }
  // Only the shards without a result are looked up, and through the queue's active, delayed and
  // failed sets (small: at most one shard per worker, the retries, the dead letters) rather than
  // one lookup per pending shard: collect polls this while a million-sentence job runs.
  const [activeJobs, delayedJobs, failedJobs] = await Promise.all([
    queue.getActive(),
    queue.getDelayed(),
    queue.getFailed(),
  ]);
  const pendingOfThisJob = (list: readonly (Job | undefined)[]): Job<ShardJobData>[] =>
    list.filter(
      (found): found is Job<ShardJobData> =>
        found !== undefined &&
        found.name === job &&
        // Done a moment ago: its result is in, its job not yet removed.
        stats[String((found.data as ShardJobData).index)] === undefined,
    );
  const active = pendingOfThisJob(activeJobs).length;
  // Failed at least once and waiting out the back-off before the next try.
  const failed = pendingOfThisJob(delayedJobs).length;
  // BullMQ moves a job to `failed` only when no try is left: a dead letter.
  const dead: DeadShard[] = pendingOfThisJob(failedJobs).map((found) => ({
    index: found.data.index,
    firstLine: found.data.firstLine,
    attempts: found.attemptsMade,
    error: found.failedReason ?? "unknown error",
  }));
  dead.sort((a, b) => a.index - b.index);
  const done = Object.keys(stats).length;
  // Queued and never tried, or back in the queue after a retry's delay.
  const waiting = Math.max(0, shards - done - active - failed - dead.length);
  // From the first shard's start to the latest result: the queue's rate, not the idle time before workers came.
  const seconds = latest > earliest ? (latest - earliest) / 1000 : 0;
  return {
    job,
    shards,
    sentences: Number(meta.sentences ?? 0),
    done,
    active,
    waiting,
    failed,
    dead,
    doneSentences,
    doneTokens,
    tokensPerSecond: seconds > 0 ? doneTokens / seconds : 0,
    workers: workers.size,
  };
}

/** Progress of a job: shards done, active, waiting, failed (to be retried), dead; throughput. */
export async function jobStatus(
  options: QueueTarget & { readonly job: string },
): Promise<JobStatus> {
  checkJobName(options.job);
  return withQueue(options, (queue, client) => readStatus(queue, client, options, options.job));
}

export interface CollectOptions extends QueueTarget {
  readonly job: string;
  /** Wait for unfinished shards (default true); false fails at once when some are not done. */
  readonly wait?: boolean;
  /** Write the shards that are done even when some are dead (the command still fails, naming them). */
  readonly partial?: boolean;
  /** How often to look while waiting (default 250 ms for collect, 500 ms for awaitJob). */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (status: JobStatus) => void;
}

/** Waits until every shard is done or dead (or, with `wait: false`, looks once). */
export async function awaitJob(options: CollectOptions): Promise<JobStatus> {
  checkJobName(options.job);
  return withQueue(options, async (queue, client) => {
    for (;;) {
      options.signal?.throwIfAborted();
      const status = await readStatus(queue, client, options, options.job);
      options.onProgress?.(status);
      const settled = status.shards > 0 && status.done + status.dead.length === status.shards;
      if (settled) return status;
      if (options.wait === false) {
        throw new QueueJobError(
          `job ${options.job}: ${status.shards - status.done} of ${status.shards} shard(s) not done yet (${status.active} active, ${status.waiting} waiting, ${status.failed} failed and to be retried, ${status.dead.length} dead)`,
          status,
          "incomplete",
        );
      }
      await sleep(
        options.pollMs ?? 500,
        undefined,
        options.signal ? { signal: options.signal } : {},
      );
    }
  });
}

/**
 * Writes a job's output in shard order through `write` (the caller makes the file atomic) while
 * the job runs: each shard as soon as it and every shard before it are in, so that the output is
 * nearly written when the last shard is done, and memory holds one shard. Returns when every
 * shard is written or dead. A dead shard stops the collection (the caller discards what was
 * written and fails) unless `partial`: then it is left out and the rest written. With
 * `wait: false`, a job not settled at the first look fails with {@link QueueJobError}.
 */
export async function collectJob(
  options: CollectOptions & { readonly write: (chunk: string) => Promise<void> },
): Promise<JobStatus> {
  checkJobName(options.job);
  const keys = jobKeys(options.queue ?? DEFAULT_QUEUE_NAME, options.job);
  return withQueue(options, async (queue, client) => {
    let next = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const status = await readStatus(queue, client, options, options.job);
      options.onProgress?.(status);
      const settled = status.shards > 0 && status.done + status.dead.length === status.shards;
      if (!settled && options.wait === false) {
        throw new QueueJobError(
          `job ${options.job}: ${status.shards - status.done} of ${status.shards} shard(s) not done yet (${status.active} active, ${status.waiting} waiting, ${status.failed} failed and to be retried, ${status.dead.length} dead)`,
          status,
          "incomplete",
        );
      }
      if (status.dead.length > 0 && options.partial !== true) return status;
      const dead = new Set(status.dead.map((d) => d.index));
      // Until submit has stored them all, the shard count is not known: write what is there.
      const last = status.shards > 0 ? status.shards : Number.POSITIVE_INFINITY;
      while (next < last) {
        if (dead.has(next)) {
          next++;
          continue;
        }
        options.signal?.throwIfAborted();
        const text = await client.hget(keys.results, String(next));
        if (text === null) break;
        await options.write(text);
        next++;
      }
      if (settled && next === status.shards) return status;
      await sleep(
        options.pollMs ?? 250,
        undefined,
        options.signal ? { signal: options.signal } : {},
      );
    }
  });
}

/** One line per dead shard: index, first corpus line, tries, error. */
export function deadLetterReport(status: JobStatus): string {
  return status.dead
    .map(
      (d) =>
        `shard ${d.index} (from line ${d.firstLine}, ${d.attempts} tr${d.attempts === 1 ? "y" : "ies"}): ${d.error}`,
    )
    .join("\n");
}

/** Deletes a job: its shards' BullMQ jobs, texts, results and stats. */
export async function removeJob(options: QueueTarget & { readonly job: string }): Promise<number> {
  checkJobName(options.job);
  return withQueue(options, async (queue, client) => {
    const keys = jobKeys(options.queue ?? DEFAULT_QUEUE_NAME, options.job);
    const shards = Number((await client.hget(keys.meta, "shards")) ?? 0);
    for (let i = 0; i < shards; i++) await queue.remove(shardJobId(options.job, i));
    await client.del(keys.meta, keys.shards, keys.results, keys.stats);
    return shards;
  });
}
