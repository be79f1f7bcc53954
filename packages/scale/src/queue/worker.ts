import { hostname } from "node:os";
import { lagrangeErrorCode } from "@lagrange/core";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import { connectionOf, DEFAULT_QUEUE_NAME, jobKeys, type QueueTarget } from "./connection.js";
import { type TaggingSpec, tagShard } from "./tag-shard.js";

/** What a queued shard's BullMQ job carries (its text is in the job's shards hash). */
export interface ShardJobData {
  readonly job: string;
  readonly index: number;
  readonly firstLine: number;
  readonly sentences: number;
}

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
  | { readonly kind: "connection"; readonly error: string }
  | { readonly kind: "stopping" };

export interface WorkerOptions extends QueueTarget {
  /** Shards in flight in this process (default 1). Tagging is CPU work on one thread: run a worker per core. */
  readonly concurrency?: number;
  /** Aborting it stops taking shards, finishes the ones in hand, closes the worker, and resolves. */
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
}

export interface WorkerSummary {
  readonly shards: number;
  readonly sentences: number;
  readonly tokens: number;
}

/**
 * Processes shards until `signal` aborts: at-least-once (a shard whose worker dies is taken again
 * once its lock lapses), with results stored idempotently under (job, shard) — a shard tagged twice
 * writes the same bytes to the same field. Malformed input fails at once with no retry (another
 * try would read the same text); other errors are retried with back-off.
 */
export async function runQueueWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const queueName = options.queue ?? DEFAULT_QUEUE_NAME;
  const me = `${hostname()}:${process.pid}`;
  const emit = options.onEvent ?? (() => {});
  const specs = new Map<string, TaggingSpec>();
  let shards = 0;
  let sentences = 0;
  let tokens = 0;
  const abort = new AbortController();
  /** Shards being tagged or stored now. */
  let inHand = 0;

  const process_ = async (job: Job<ShardJobData>): Promise<void> => {
    inHand++;
    try {
      await processShard(job);
    } finally {
      inHand--;
    }
  };

  const processShard = async (job: Job<ShardJobData>): Promise<void> => {
    const { job: name, index, firstLine } = job.data;
    const keys = jobKeys(queueName, name);
    const client = await worker.getBackend().client;
    emit({ kind: "started", job: name, shard: index, attempt: job.attemptsMade + 1 });
    let spec = specs.get(name);
    if (spec === undefined) {
      const raw = await client.hget(keys.meta, "spec");
      if (raw === null) throw new UnrecoverableError(`job ${name}: no such job (removed?)`);
      spec = JSON.parse(raw) as TaggingSpec;
      specs.set(name, spec);
    }
    const text = await client.hget(keys.shards, String(index));
    if (text === null) throw new UnrecoverableError(`job ${name}: shard ${index} has no text`);
    const started = performance.now();
    let output: Awaited<ReturnType<typeof tagShard>>;
    try {
      output = await tagShard(
        spec,
        { text, firstLine },
        {
          signal: abort.signal,
          ...(options.pauseMs === undefined ? {} : { pauseMs: options.pauseMs }),
        },
      );
    } catch (error) {
      const code = lagrangeErrorCode(error);
      // Malformed data, constraints or model, or an unknown decoder: the same on every try.
      if (code === "bad-input" || code === "usage" || code === "invalid-problem") {
        throw new UnrecoverableError((error as Error).message);
      }
      throw error;
    }
    const stats: ShardStats = {
      sentences: output.sentences,
      tokens: output.tokens,
      ms: Math.round(performance.now() - started),
      worker: me,
      at: Date.now(),
    };
    // One MULTI: a result never lands without its stats. HSET is idempotent, so a retry of a
    // shard that was stored but not acknowledged (a crash, a Redis restart) changes nothing.
    const replies = await client
      .multi()
      .hset(keys.results, { [index]: output.text })
      .hset(keys.stats, { [index]: JSON.stringify(stats) })
      .exec();
    const failure = replies?.find(([error]) => error !== null)?.[0];
    if (replies === null || failure) throw failure ?? new Error("storing the result was aborted");
    shards++;
    sentences += output.sentences;
    tokens += output.tokens;
    emit({ kind: "done", job: name, shard: index, ...stats });
  };

  const worker = new Worker<ShardJobData>(queueName, process_, {
    connection: connectionOf(options.redis, { patient: true }),
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
    emit({
      kind: "failed",
      job: job.data.job,
      shard: job.data.index,
      attempt: job.attemptsMade,
      dead: error instanceof UnrecoverableError || job.attemptsMade >= attempts,
      error: error.message,
    });
  });
  // A lost connection is reported, never thrown: ioredis reconnects and BullMQ resumes.
  worker.on("error", (error) => emit({ kind: "connection", error: error.message }));
  worker.on("ready", () => emit({ kind: "ready", worker: me }));

  let closed!: () => void;
  // run() may never settle when the worker is closed while Redis is down: closing ends the wait.
  const whenClosed = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const stop = () => {
    emit({ kind: "stopping" });
    // close() waits for the shards in hand to finish and be acknowledged, then stops. With none in
    // hand there is nothing to wait for, and forcing does not wait on a Redis that is down either.
    worker
      .close(inHand === 0)
      .catch(() => {})
      .finally(closed);
  };
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await Promise.race([worker.run(), whenClosed]);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await worker.close(inHand === 0).catch(() => {});
  }
  return { shards, sentences, tokens };
}
