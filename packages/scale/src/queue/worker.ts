import { hostname } from "node:os";
import { lagrangeErrorCode } from "@lagrange/core";
import { type Job, UnrecoverableError, WaitingError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import {
  accessFailure,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  jobKeys,
  openRedis,
  type QueueTarget,
  type RedisAccessError,
  redactCredentials,
} from "./connection.js";
import { readSpecModel } from "./model-access.js";
import {
  MAX_SHARD_BYTES,
  MAX_SPEC_BYTES,
  parseShardJobData,
  parseTagJobSpec,
  type ShardJobData,
  shardOfJobId,
  type TagJobSpec,
} from "./spec.js";
import { tagShard } from "./tag-shard.js";

/** A shard's record in the stats hash: what `status` sums for progress and throughput. */
export interface ShardStats {
  readonly sentences: number;
  readonly tokens: number;
  /** Tagging time in ms. */
  readonly ms: number;
  /** `host:pid` of the worker that stored the result. */
  readonly worker: string;
  /** When the result was stored (ms since the epoch). */
  readonly at: number;
}

export type WorkerEvent =
  | { readonly kind: "ready"; readonly worker: string }
  | {
      readonly kind: "started";
      readonly job: string;
      readonly shard: number;
      readonly attempt: number;
    }
  | ({ readonly kind: "done"; readonly job: string; readonly shard: number } & ShardStats)
  | {
      readonly kind: "failed";
      readonly job: string;
      readonly shard: number;
      readonly attempt: number;
      /** No try is left (or the error is one a retry cannot mend): the shard is dead-lettered. */
      readonly dead: boolean;
      readonly error: string;
    }
  /** A shard of a job that was removed (or submitted again): dropped, not tagged. */
  | { readonly kind: "skipped"; readonly job: string; readonly shard: number }
  /** A shard in hand when the worker was stopped, put back in the queue for another worker. */
  | { readonly kind: "returned"; readonly job: string; readonly shard: number }
  | { readonly kind: "connection"; readonly error: string }
  | { readonly kind: "stopping" };

export interface WorkerOptions extends QueueTarget {
  /** Shards in flight in this process (default 1). Tagging is CPU work on one thread: run a worker per core. */
  readonly concurrency?: number;
  /**
   * Aborting it stops the worker within a moment: it takes no more shards, puts the shards in
   * hand back in the queue (no try is used up; another worker takes them at once), and resolves.
   */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: WorkerEvent) => void;
  /** How long a shard's lock lasts without renewal before another worker may take it (BullMQ default 30 s). */
  readonly lockDurationMs?: number;
  /** How often this worker looks for shards whose worker died (BullMQ default 30 s). */
  readonly stalledIntervalMs?: number;
  /** A shard may be orphaned by a dead worker this many times before it is dead-lettered (default 3). */
  readonly maxStalledCount?: number;
  /** Wait this long after each sentence: makes a shard slow enough to kill a worker mid-shard in tests. */
  readonly pauseMs?: number;
  /**
   * The directory models of jobs submitted with a model directory are read from (a path relative
   * to it, symlinks resolved and kept inside). Without it such jobs are refused: models then come
   * from Redis only, stored there by `submit` and checked against their SHA-256.
   */
  readonly modelDir?: string;
  /** Fetch models of jobs that name an http(s) URL (off: a job could make every worker fetch any address). */
  readonly allowModelUrls?: boolean;
  /** Largest model this worker reads, in bytes (default 1 GiB). */
  readonly maxModelBytes?: number;
}

export interface WorkerSummary {
  readonly shards: number;
  readonly sentences: number;
  readonly tokens: number;
}

/**
 * Whether an error is the same on every try: malformed data, spec, constraints or model, an
 * unknown decoder, a model this worker may not read. Such a shard is dead-lettered at once.
 */
function isFinal(error: unknown): boolean {
  const code = lagrangeErrorCode(error);
  return code === "bad-input" || code === "usage" || code === "invalid-problem";
}

/** Stores a shard's result and stats in one step — only while the shard's submission is the job's. */
const STORE_RESULT = `
if redis.call('HGET', KEYS[1], 'submission') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
return 1`;

/** Specs kept in a worker (read from Redis again when needed again). */
const MAX_SPECS = 32;

/**
 * How long a stopped worker waits for its shards in hand to go back to the queue before it stops
 * waiting (on a Redis that is down, say): a stopped command exits within half a second.
 */
const STOP_GRACE_MS = 300;

/**
 * Processes shards until `signal` aborts: at-least-once (a shard whose worker dies is taken again
 * once its lock lapses), with results stored idempotently under (job, shard) — a shard tagged twice
 * writes the same bytes to the same field. Malformed input fails at once with no retry (another
 * try would read the same text); other errors are retried with back-off.
 *
 * Nothing read from Redis is trusted: a shard's data and its job's spec are checked field by field
 * (see `parseTagJobSpec`), and models come only from where this worker allows (`modelDir`,
 * `allowModelUrls`; Redis by checksum always), regular files under a size cap. A refused password
 * rejects at once with a `RedisAccessError` (also when Redis refuses it later on).
 */
export async function runQueueWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const queueName = options.queue ?? DEFAULT_QUEUE_NAME;
  const me = `${hostname()}:${process.pid}`;
  const emit = options.onEvent ?? (() => {});
  const report = (error: Error) =>
    emit({ kind: "connection", error: redactCredentials(error.message, options) });
  // A shard's error is stored in Redis (its dead letter) and printed by whoever asks: a model URL's
  // token or a password quoted by ioredis must not travel with it.
  const hidden = (error: unknown): Error => {
    const shown = error instanceof Error ? error : new Error(String(error));
    shown.message = redactCredentials(shown.message, options);
    return shown;
  };
  // Waits for Redis as long as it takes (or a signal); a refused password ends it at once.
  const client: Redis = await openRedis(options, {
    patient: true,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onRetry: report,
  });
  /** Specs by job and submission: a job removed and submitted again under its name is another. */
  const specs = new Map<string, TagJobSpec>();
  let shards = 0;
  let sentences = 0;
  let tokens = 0;
  const abort = new AbortController();
  let refused: RedisAccessError | undefined;
  const readModel = (spec: TagJobSpec) =>
    readSpecModel(spec, {
      client,
      queue: queueName,
      signal: abort.signal,
      ...(options.modelDir === undefined ? {} : { modelDir: options.modelDir }),
      ...(options.allowModelUrls === true ? { allowUrls: true } : {}),
      ...(options.maxModelBytes === undefined ? {} : { maxBytes: options.maxModelBytes }),
    });

  const specOf = async (data: ShardJobData): Promise<TagJobSpec | undefined> => {
    const key = `${data.job}/${data.submission}`;
    const cached = specs.get(key);
    if (cached !== undefined) return cached;
    const keys = jobKeys(queueName, data.job);
    const [submission, size] = (await client
      .multi()
      .hget(keys.meta, "submission")
      .hstrlen(keys.meta, "spec")
      .exec()
      .then((replies) => replies?.map(([, value]) => value))) ?? [null, 0];
    // Removed, or removed and submitted again: this shard is no one's.
    if (submission !== data.submission) return undefined;
    if (Number(size) > MAX_SPEC_BYTES) {
      throw new UnrecoverableError(`job ${data.job}: its spec is ${size} bytes, above the cap`);
    }
    const raw = await client.hget(keys.meta, "spec");
    if (raw === null) return undefined;
    const spec = parseTagJobSpec(raw, data.job);
    // A few jobs at a time: the oldest spec (constraints and all) is forgotten first.
    if (specs.size >= MAX_SPECS) specs.delete(specs.keys().next().value as string);
    specs.set(key, spec);
    return spec;
  };

  const processShard = async (job: Job<ShardJobData>, token: string | undefined): Promise<void> => {
    let data: ShardJobData;
    try {
      data = parseShardJobData(job.data, job.id ?? "");
    } catch (error) {
      throw hidden(new UnrecoverableError((error as Error).message));
    }
    const { job: name, index, firstLine } = data;
    const keys = jobKeys(queueName, name);
    emit({ kind: "started", job: name, shard: index, attempt: job.attemptsMade + 1 });
    try {
      const spec = await specOf(data);
      if (spec === undefined) {
        emit({ kind: "skipped", job: name, shard: index });
        return;
      }
      const size = await client.hstrlen(keys.shards, String(index));
      if (size > MAX_SHARD_BYTES) {
        throw new UnrecoverableError(
          `job ${name}: shard ${index} is ${size} bytes, above the cap of ${MAX_SHARD_BYTES}`,
        );
      }
      const text = await client.hget(keys.shards, String(index));
      if (text === null) {
        emit({ kind: "skipped", job: name, shard: index });
        return;
      }
      const started = performance.now();
      const output = await tagShard(
        spec,
        { text, firstLine },
        {
          readModel,
          signal: abort.signal,
          ...(options.pauseMs === undefined ? {} : { pauseMs: options.pauseMs }),
        },
      );
      const stats: ShardStats = {
        sentences: output.sentences,
        tokens: output.tokens,
        ms: Math.round(performance.now() - started),
        worker: me,
        at: Date.now(),
      };
      // One script: a result never lands without its stats, nor in a job that was removed
      // meanwhile. HSET is idempotent, so a retry of a shard that was stored but not acknowledged
      // (a crash, a Redis restart) changes nothing.
      const stored = await client.eval(
        STORE_RESULT,
        3,
        keys.meta,
        keys.results,
        keys.stats,
        data.submission,
        String(index),
        output.text,
        JSON.stringify(stats),
      );
      if (Number(stored) !== 1) {
        emit({ kind: "skipped", job: name, shard: index });
        return;
      }
      shards++;
      sentences += output.sentences;
      tokens += output.tokens;
      emit({ kind: "done", job: name, shard: index, ...stats });
    } catch (error) {
      if (abort.signal.aborted && token !== undefined) {
        // Stopped mid-shard: the shard goes back to the queue, no try used up, for another worker.
        await job.moveToWait(token);
        emit({ kind: "returned", job: name, shard: index });
        throw new WaitingError();
      }
      if (error instanceof UnrecoverableError) throw hidden(error);
      // Malformed data, spec, constraints or model, an unknown decoder, a model refused: the same
      // on every try.
      if (isFinal(error)) throw hidden(new UnrecoverableError((error as Error).message));
      throw hidden(error);
    }
  };

  const worker = new Worker<ShardJobData>(queueName, processShard, {
    connection: connectionOf(options, { patient: true }),
    concurrency: options.concurrency ?? 1,
    autorun: false,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 3,
    // A shard's job is removed once its result is stored; the result hash is the record.
    removeOnComplete: { count: 0 },
  });
  worker.on("failed", (job, error) => {
    if (job === undefined) return;
    const attempts = job.opts.attempts ?? 1;
    // Named by its id: its data may be what failed.
    const named = shardOfJobId(job.id);
    emit({
      kind: "failed",
      job: named?.job ?? "?",
      shard: named?.index ?? -1,
      attempt: job.attemptsMade,
      dead: error instanceof UnrecoverableError || job.attemptsMade >= attempts,
      error: redactCredentials(error.message, options),
    });
  });

  let closed!: () => void;
  // run() may never settle when the worker is closed while Redis is down: closing ends the wait.
  const whenClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    emit({ kind: "stopping" });
    // The shards in hand stop at their next checkpoint and go back to the queue; close() waits
    // for that, a moment at most, then gives up waiting (on a Redis that is down, say).
    abort.abort();
    const grace = setTimeout(() => {
      worker
        .close(true)
        .catch(() => {})
        .finally(closed);
    }, STOP_GRACE_MS);
    worker
      .close()
      .catch(() => {})
      .finally(() => {
        clearTimeout(grace);
        closed();
      });
  };
  // A lost connection is reported, never thrown: ioredis reconnects and BullMQ resumes. A
  // refusal (the password changed since) is final: the worker stops and says why.
  worker.on("error", (error) => {
    const refusal = accessFailure(options, error);
    if (refusal !== undefined) {
      refused ??= refusal;
      stop();
      return;
    }
    report(error);
  });
  worker.on("ready", () => emit({ kind: "ready", worker: me }));

  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await Promise.race([worker.run(), whenClosed]);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await Promise.race([
      worker.close(true).catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 100).unref()),
    ]);
    client.disconnect();
  }
  if (refused !== undefined) throw refused;
  return { shards, sentences, tokens };
}
