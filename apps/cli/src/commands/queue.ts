import {
  collectJob,
  DEFAULT_REDIS_URL,
  deadLetterReport,
  type JobStatus,
  jobStatus,
  QueueJobError,
  runQueueWorker,
  submitJob,
  type WorkerEvent,
} from "@lagrange/scale";
import { usageError } from "../exit-codes.js";
import { requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";
import { note } from "../progress.js";

interface RedisOption {
  readonly redis?: string;
}

function redisUrl(options: RedisOption): string {
  return options.redis ?? process.env.LAGRANGE_REDIS_URL ?? DEFAULT_REDIS_URL;
}

/** The library's argument errors (a bad URL or job name) are usage errors here (exit 2). */
async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TypeError) throw usageError(error.message);
    throw error;
  }
}

export interface QueueSubmitOptions extends RedisOption {
  readonly data: string;
  readonly model: string;
  readonly job: string;
  readonly format?: string;
  readonly decoder?: string;
  readonly constraints?: string;
  readonly unlabeled?: boolean;
  readonly shardSize: number;
  readonly attempts: number;
  readonly backoff: number;
}

export async function queueSubmit(options: QueueSubmitOptions): Promise<void> {
  requireFile("--data", options.data);
  if (!/^https?:\/\//.test(options.model)) requireFile("--model", options.model);
  if (options.constraints !== undefined) requireFile("--constraints", options.constraints);
  const result = await interruptible((signal) =>
    asUsage(() =>
      submitJob({
        redis: redisUrl(options),
        job: options.job,
        data: options.data,
        model: options.model,
        ...(options.format === undefined ? {} : { format: options.format }),
        ...(options.decoder === undefined ? {} : { decoder: options.decoder }),
        ...(options.constraints === undefined ? {} : { constraints: options.constraints }),
        ...(options.unlabeled === true ? { unlabeled: true } : {}),
        shardSize: options.shardSize,
        attempts: options.attempts,
        backoffMs: options.backoff,
        signal,
      }),
    ),
  );
  note(
    `submitted job ${result.job}: ${result.sentences} sentences in ${result.shards} shard(s) to ${redisUrl(options)}`,
  );
}

export interface QueueWorkOptions extends RedisOption {
  readonly concurrency: number;
  readonly lock?: number;
  readonly stalledInterval?: number;
}

function eventLine(event: WorkerEvent): string {
  switch (event.kind) {
    case "ready":
      return `worker ${event.worker}: connected`;
    case "started":
      return `shard ${event.job}/${event.shard}: started (try ${event.attempt})`;
    case "done":
      return `shard ${event.job}/${event.shard}: done, ${event.sentences} sentences, ${event.tokens} tokens in ${(event.ms / 1000).toFixed(2)} s`;
    case "failed":
      return `shard ${event.job}/${event.shard}: failed (try ${event.attempt}${event.dead ? ", dead-lettered" : ", will retry"}): ${event.error}`;
    case "connection":
      return `worker: Redis connection: ${event.error} (retrying)`;
    case "stopping":
      return "worker: stopping after the shard(s) in hand";
  }
}

/**
 * `lagrange queue work`: until SIGTERM or Ctrl-C, which finish the shard in hand and exit 0 (the
 * signal is the way a worker is meant to stop, not a failure). `LAGRANGE_QUEUE_PAUSE_MS` slows
 * each sentence down, for the fault tests that kill a worker mid-shard.
 */
export async function queueWork(options: QueueWorkOptions): Promise<void> {
  const pause = Number(process.env.LAGRANGE_QUEUE_PAUSE_MS ?? "");
  let lastConnectionError = "";
  const summary = await interruptible((signal) =>
    asUsage(() =>
      runQueueWorker({
        redis: redisUrl(options),
        concurrency: options.concurrency,
        ...(options.lock === undefined ? {} : { lockDurationMs: options.lock }),
        ...(options.stalledInterval === undefined
          ? {}
          : { stalledIntervalMs: options.stalledInterval }),
        ...(pause > 0 ? { pauseMs: pause } : {}),
        signal,
        onEvent: (event) => {
          // One line per outage, not one per reconnection attempt.
          if (event.kind === "connection") {
            if (event.error === lastConnectionError) return;
            lastConnectionError = event.error;
          } else if (event.kind === "ready") lastConnectionError = "";
          note(eventLine(event));
        },
      }),
    ),
  );
  note(
    `worker stopped: ${summary.shards} shard(s), ${summary.sentences} sentences, ${summary.tokens} tokens`,
  );
}

export interface QueueCollectOptions extends RedisOption {
  readonly job: string;
  readonly out: string;
  readonly wait: boolean;
  readonly partial?: boolean;
}

export async function queueCollect(options: QueueCollectOptions): Promise<void> {
  const target = { redis: redisUrl(options), job: options.job };
  const status = await interruptible((signal) =>
    asUsage(async () => {
      const common = { ...target, wait: options.wait, signal };
      // Written as the shards come in; a dead shard without --partial discards the file.
      try {
        return await writeOutput(options.out, { option: "--out", inputs: [] }, async (output) => {
          const collected = await collectJob({
            ...common,
            ...(options.partial === true ? { partial: true } : {}),
            write: (chunk) => output.write(chunk),
          });
          if (collected.dead.length > 0 && options.partial !== true) {
            throw new QueueJobError("dead shards", collected, "dead-letters");
          }
          return collected;
        });
      } catch (error) {
        if (error instanceof QueueJobError && error.code === "dead-letters") return error.status;
        throw error;
      }
    }),
  );
  const written = status.dead.length === 0 || options.partial === true;
  if (status.dead.length > 0) {
    throw new QueueJobError(
      `job ${options.job}: ${status.dead.length} of ${status.shards} shard(s) failed every try${written ? `; the other ${status.done} written to ${options.out}` : "; nothing written (--partial writes the rest)"}:\n${deadLetterReport(status)}`,
      status,
      "dead-letters",
    );
  }
  note(
    `collected job ${options.job}: ${status.doneSentences} sentences, ${status.doneTokens} tokens from ${status.shards} shard(s); wrote ${options.out}`,
  );
}

export interface QueueStatusOptions extends RedisOption {
  readonly job: string;
  readonly json?: boolean;
}

function statusLines(status: JobStatus): string {
  const rate = status.tokensPerSecond > 0 ? `, ${Math.round(status.tokensPerSecond)} tokens/s` : "";
  const head = `job ${status.job}: ${status.done}/${status.shards} shard(s) done, ${status.active} active, ${status.waiting} waiting, ${status.failed} failed (to retry), ${status.dead.length} dead; ${status.doneSentences}/${status.sentences} sentences, ${status.doneTokens} tokens${rate} (${status.workers} worker(s))`;
  return status.dead.length === 0 ? head : `${head}\n${deadLetterReport(status)}`;
}

export async function queueStatus(options: QueueStatusOptions): Promise<void> {
  const status = await asUsage(() => jobStatus({ redis: redisUrl(options), job: options.job }));
  if (options.json === true) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else process.stdout.write(`${statusLines(status)}\n`);
}
