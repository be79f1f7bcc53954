import { setTimeout as sleep } from "node:timers/promises";
import { AbortError, LagrangeError } from "@lagrange/core";
import { redactUrl } from "@lagrange/core/node";
import { type Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  accessFailure,
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  jobKeys,
  modelKeys,
  openRedis,
  type QueueTarget,
  redactCredentials,
  redisFailure,
  shardJobId,
} from "./connection.js";
import { parseTagJobSpec, printable, shardOfJobId } from "./spec.js";
import type { ShardStats } from "./worker.js";

export interface DeadShard {
  readonly index: number;
  /** The corpus line the shard starts on. */
  readonly firstLine: number;
  readonly attempts: number;
  /** The last try's error (malformed input names the corpus file and line). */
  readonly error: string;
}

/**
 * Where a job's submission stands: `complete` (every shard queued), `submitting` (its `submit`
 * is still running), or `abandoned` (its `submit` was killed before the end: the job can only be
 * removed).
 */
export type SubmissionState = "complete" | "submitting" | "abandoned";

export interface JobStatus {
  readonly job: string;
  readonly submission: SubmissionState;
  /** Shards of the job; until its submission is complete, those queued so far. */
  readonly shards: number;
  /** Sentences of the job (0 until its submission is complete). */
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
    readonly code: "dead-letters" | "incomplete" | "abandoned",
  ) {
    super(message);
  }
}

/**
 * Runs `run` against the queue once Redis has let us in (a refused password fails at once, see
 * `openRedis`). A refusal later on, or an aborted `signal`, ends it at once too, whatever Redis
 * command it is waiting for.
 */
async function withQueue<T>(
  target: QueueTarget,
  signal: AbortSignal | undefined,
  run: (queue: Queue, client: Redis) => Promise<T>,
): Promise<T> {
  const client = await openRedis(target, signal === undefined ? {} : { signal });
  const queue = new Queue(target.queue ?? DEFAULT_QUEUE_NAME, { connection: connectionOf(target) });
  let stop!: (error: unknown) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  let interrupted = false;
  queue.on("error", (error) => {
    // ioredis retries a lost connection; a command that cannot complete fails the caller. A
    // refusal (the password changed meanwhile) is final.
    const refused = accessFailure(target, error);
    if (refused !== undefined) stop(refused);
  });
  const onAbort = () => stop(new AbortError());
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([
      (async () => {
        signal?.throwIfAborted();
        return run(queue, client);
      })(),
      stopped,
    ]);
  } catch (error) {
    interrupted = true;
    throw redisFailure(target, error);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // Every reply is in (or no longer wanted): nothing to wait for, even from a Redis that is down.
    client.disconnect();
    if (interrupted) await queue.disconnect().catch(() => {});
    await queue.close().catch(() => {});
  }
}

/** A count field of a job's record: what `submit` wrote, or a bad-input error naming it. */
function countField(job: string, field: string, value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,12}$/.test(value)) {
    throw new LagrangeError("bad-input", `job ${job}: its record is malformed (${field})`);
  }
  return Number(value);
}

/** A shard's stats as a worker stored them, or a bad-input error naming the shard. */
function shardStats(job: string, index: string, raw: string): ShardStats {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const s = parsed as Record<string, unknown> | null | undefined;
  const valid =
    typeof s === "object" &&
    s !== null &&
    ["sentences", "tokens", "ms", "at"].every((k) => Number.isFinite(s[k])) &&
    typeof s.worker === "string";
  if (!valid) {
    throw new LagrangeError(
      "bad-input",
      `job ${job}: the record of shard ${printable(index.slice(0, 20))} is malformed`,
    );
  }
  return s as unknown as ShardStats;
}

/** Where the submission of a job whose record is `meta` stands. */
async function submissionOf(
  client: Redis,
  keys: ReturnType<typeof jobKeys>,
  meta: Record<string, string>,
): Promise<SubmissionState> {
  if (meta.state === "complete") return "complete";
  return (await client.exists(keys.submitter)) === 1 ? "submitting" : "abandoned";
}

async function readStatus(
  queue: Queue,
  client: Redis,
  target: QueueTarget,
  job: string,
): Promise<JobStatus> {
  const keys = jobKeys(target.queue ?? DEFAULT_QUEUE_NAME, job);
  const meta = await client.hgetall(keys.meta);
  if (meta.spec === undefined) {
    throw new LagrangeError("usage", `--job ${job}: no such job in ${redactUrl(target.redis)}`);
  }
  if (meta.submission === undefined) {
    throw new LagrangeError(
      "usage",
      `job ${job}: submitted by an earlier lagrange, whose shards this one does not tag; remove it and submit it again`,
    );
  }
  const submission = await submissionOf(client, keys, meta);
  const shards =
    submission === "complete"
      ? countField(job, "shards", meta.shards)
      : await client.hlen(keys.shards);
  const stats = await client.hgetall(keys.stats);
  let doneSentences = 0;
  let doneTokens = 0;
  let latest = 0;
  let earliest = Number.POSITIVE_INFINITY;
  const workers = new Set<string>();
  for (const [index, raw] of Object.entries(stats)) {
    const s = shardStats(job, index, raw);
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
  const pendingOfThisJob = (list: readonly (Job | undefined)[]) =>
    shardsOf(list, job, meta.submission).filter(
      // Done a moment ago: its result is in, its job not yet removed.
      ({ index }) => stats[String(index)] === undefined,
    );
  const active = pendingOfThisJob(activeJobs).length;
  // Failed at least once and waiting out the back-off before the next try.
  const failed = pendingOfThisJob(delayedJobs).length;
  // BullMQ moves a job to `failed` only when no try is left: a dead letter.
  const dead: DeadShard[] = pendingOfThisJob(failedJobs).map(({ found, index, firstLine }) => ({
    index,
    firstLine,
    attempts: found.attemptsMade,
    // Written by a worker (or by anyone who can write to Redis, or an earlier lagrange that
    // stored secrets in it): printed, so made harmless.
    error: printable(clipped(redactCredentials(found.failedReason ?? "unknown error", target))),
  }));
  dead.sort((a, b) => a.index - b.index);
  const done = Object.keys(stats).length;
  // Queued and never tried, or back in the queue after a retry's delay.
  const waiting = Math.max(0, shards - done - active - failed - dead.length);
  // From the first shard's start to the latest result: the queue's rate, not the idle time before workers came.
  const seconds = latest > earliest ? (latest - earliest) / 1000 : 0;
  return {
    job,
    submission,
    shards,
    sentences: submission === "complete" ? countField(job, "sentences", meta.sentences) : 0,
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

/**
 * The shards of one submission of `job` among BullMQ jobs, known by their ids (which no one can
 * rewrite in place, unlike their data: a shard whose data was tampered with is still counted, and
 * its dead letter shown).
 */
function shardsOf(
  list: readonly (Job | undefined)[],
  job: string,
  submission: string | undefined,
): { found: Job; index: number; firstLine: number }[] {
  const out: { found: Job; index: number; firstLine: number }[] = [];
  for (const found of list) {
    const named = shardOfJobId(found?.id);
    if (found === undefined || named?.job !== job || named.submission !== submission) continue;
    const firstLine = (found.data as { firstLine?: unknown } | undefined)?.firstLine;
    out.push({
      found,
      index: named.index,
      firstLine: Number.isSafeInteger(firstLine) ? (firstLine as number) : 0,
    });
  }
  return out;
}

/** A worker's error message, cut to what a line of a report shows. */
function clipped(text: string): string {
  return text.length <= 1000 ? text : `${text.slice(0, 1000)}…`;
}

/** Progress of a job: shards done, active, waiting, failed (to be retried), dead; throughput. */
export async function jobStatus(
  options: QueueTarget & { readonly job: string; readonly signal?: AbortSignal },
): Promise<JobStatus> {
  checkJobName(options.job);
  return withQueue(options, options.signal, (queue, client) =>
    readStatus(queue, client, options, options.job),
  );
}

/** Why a job cannot be waited for: its submission was abandoned; else undefined. */
function notCollectable(status: JobStatus): QueueJobError | undefined {
  if (status.submission !== "abandoned") return undefined;
  return new QueueJobError(
    `job ${status.job}: its submission did not finish (its submit stopped after ${status.shards} shard(s) were queued), so it can never be complete; remove the job and submit it again`,
    status,
    "abandoned",
  );
}

function notDoneYet(status: JobStatus): QueueJobError {
  return new QueueJobError(
    status.submission === "submitting"
      ? `job ${status.job}: still being submitted (${status.shards} shard(s) queued so far, ${status.done} done)`
      : `job ${status.job}: ${status.shards - status.done} of ${status.shards} shard(s) not done yet (${status.active} active, ${status.waiting} waiting, ${status.failed} failed and to be retried, ${status.dead.length} dead)`,
    status,
    "incomplete",
  );
}

/** Every shard of a completely submitted job is done or dead. */
function isSettled(status: JobStatus): boolean {
  return status.submission === "complete" && status.done + status.dead.length === status.shards;
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
  return withQueue(options, options.signal, async (queue, client) => {
    for (;;) {
      options.signal?.throwIfAborted();
      const status = await readStatus(queue, client, options, options.job);
      options.onProgress?.(status);
      if (isSettled(status)) return status;
      const abandoned = notCollectable(status);
      if (abandoned !== undefined) throw abandoned;
      if (options.wait === false) throw notDoneYet(status);
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
  return withQueue(options, options.signal, async (queue, client) => {
    let next = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const status = await readStatus(queue, client, options, options.job);
      options.onProgress?.(status);
      const settled = isSettled(status);
      const abandoned = notCollectable(status);
      if (abandoned !== undefined) throw abandoned;
      if (!settled && options.wait === false) throw notDoneYet(status);
      if (status.dead.length > 0 && options.partial !== true) return status;
      const dead = new Set(status.dead.map((d) => d.index));
      // Until submit has stored them all, the shard count is not known: write what is there.
      const last = status.submission === "complete" ? status.shards : Number.POSITIVE_INFINITY;
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

export interface RemoveOptions extends QueueTarget {
  readonly job: string;
  /**
   * Remove the job even while workers tag some of its shards (their results are dropped) or
   * while its `submit` still runs (which then fails).
   */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
}

export interface RemoveResult {
  readonly job: string;
  /** Queued shards removed from the queue (waiting, retrying or dead). */
  readonly shards: number;
  /** Shards that workers held (with `force`): they finish, and their results are dropped. */
  readonly inHand: number;
}

/**
 * Deletes a job: its record, corpus, results and stats, its shards' BullMQ jobs, and its model
 * when no other job uses it. Its name is free again at once. Refused while workers tag some of
 * its shards, or while its `submit` runs, unless `force`.
 */
export async function removeJob(options: RemoveOptions): Promise<RemoveResult> {
  checkJobName(options.job);
  return withQueue(options, options.signal, async (queue, client) => {
    const queueName = options.queue ?? DEFAULT_QUEUE_NAME;
    const keys = jobKeys(queueName, options.job);
    const meta = await client.hgetall(keys.meta);
    const leftovers = await client.exists(keys.shards, keys.results, keys.stats, keys.submitter);
    if (Object.keys(meta).length === 0 && leftovers === 0) {
      throw new LagrangeError(
        "usage",
        `--job ${options.job}: no such job in ${redactUrl(options.redis)}`,
      );
    }
    if (options.force !== true) {
      if ((await submissionOf(client, keys, meta)) === "submitting") {
        const by = printable(((await client.get(keys.submitter)) ?? "a submit").slice(0, 200));
        throw new LagrangeError(
          "usage",
          `job ${options.job}: still being submitted (by ${by}); stop that submit (it then removes what it queued), or remove with --force`,
        );
      }
      const active = shardsOf(await queue.getActive(), options.job, meta.submission).length;
      if (active > 0) {
        throw new LagrangeError(
          "usage",
          `job ${options.job}: ${active} shard(s) are being tagged by workers now; wait for them (or stop the workers), or remove with --force (their results are dropped)`,
        );
      }
    }
    const count = Math.max(
      meta.state === "complete" ? countField(options.job, "shards", meta.shards) : 0,
      await client.hlen(keys.shards),
    );
    const removed = await discardJob(queue, client, {
      queue: queueName,
      job: options.job,
      submission: meta.submission,
      modelSha256: storedModelOf(meta.spec),
      shards: count,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return { job: options.job, ...removed };
  });
}

/** The checksum of a spec's model stored in Redis, if the spec can be read at all. */
function storedModelOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const spec = parseTagJobSpec(raw, "");
    return spec.modelSource === "redis" ? spec.modelSha256 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes a job's keys, only while they still belong to `submission` (a name removed and
 * submitted again is someone else's). One script: no one ever sees half a record.
 */
const DELETE_JOB = `
local submission = redis.call('HGET', KEYS[1], 'submission')
if submission and submission ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1`;

/** Forgets that a job uses a stored model; the last job to go takes the model with it. */
const RELEASE_MODEL = `
redis.call('SREM', KEYS[2], ARGV[1])
if redis.call('SCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
return 1`;

/** BullMQ removals sent at once (one round trip's worth: thousands of shards go in a moment). */
const REMOVAL_BATCH = 512;

/**
 * Deletes a job's data, then its shards' BullMQ jobs. The record goes first: from then on a
 * shard still queued is stale — a worker that takes it finds no such submission and drops it —
 * so stopping before the end (`signal`, `deadlineMs`) leaves nothing anyone sees as the job.
 * Used by `removeJob`, and by a submit that fails or is stopped.
 */
export async function discardJob(
  queue: Queue,
  client: Redis,
  job: {
    readonly queue: string;
    readonly job: string;
    readonly submission: string | undefined;
    readonly modelSha256: string | undefined;
    readonly shards: number;
    readonly signal?: AbortSignal;
    /** Stop removing BullMQ jobs at this time (`performance.now()`); the rest are stale. */
    readonly deadlineMs?: number;
  },
): Promise<{ shards: number; inHand: number }> {
  const keys = jobKeys(job.queue, job.job);
  const deleted = await client.eval(
    DELETE_JOB,
    5,
    keys.meta,
    keys.shards,
    keys.results,
    keys.stats,
    keys.submitter,
    job.submission ?? "",
  );
  // A new job of the same name (deleted is 0) may use the same model: it is left alone.
  if (job.modelSha256 !== undefined && Number(deleted) === 1) {
    const model = modelKeys(job.queue, job.modelSha256);
    await client.eval(RELEASE_MODEL, 2, model.bytes, model.jobs, job.job);
  }
  let removed = 0;
  let inHand = 0;
  for (let from = 0; from < job.shards; from += REMOVAL_BATCH) {
    if (job.deadlineMs !== undefined && performance.now() > job.deadlineMs) break;
    job.signal?.throwIfAborted();
    const ids: string[] = [];
    for (let i = from; i < Math.min(job.shards, from + REMOVAL_BATCH); i++) {
      // A job of an earlier lagrange named its shards without a submission.
      ids.push(
        job.submission === undefined ? `${job.job}/${i}` : shardJobId(job.job, job.submission, i),
      );
    }
    const results = await Promise.all(
      ids.map((id) =>
        queue.remove(id).then(
          (code) => (code === 1 ? "removed" : "absent"),
          // Locked: a worker holds it; it finds the job gone when it stores, and drops the result.
          () => "in hand",
        ),
      ),
    );
    removed += results.filter((r) => r === "removed").length;
    inHand += results.filter((r) => r === "in hand").length;
  }
  return { shards: removed, inHand };
}
