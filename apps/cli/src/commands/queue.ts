import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { AbortError } from "@lagrange/core";
import { inputFileError } from "@lagrange/core/node";
import {
  collectJob,
  DEFAULT_REDIS_URL,
  deadLetterReport,
  hasRedisPassword,
  type JobStatus,
  jobStatus,
  QueueJobError,
  type QueueTarget,
  RedisAccessError,
  redactCredentials,
  redactRedisUrl,
  removeJob,
  runQueueWorker,
  submitJob,
  type WorkerEvent,
} from "@lagrange/scale";
import { usageError } from "../exit-codes.js";
import { namedInputError, requireFile } from "../inputs.js";
import { interruptible, stopSignal } from "../interruption.js";
import { writeOutput } from "../output.js";
import { note, warn } from "../progress.js";

interface RedisOption {
  readonly redis?: string;
  readonly redisPasswordFile?: string;
}

/** A password file: its first line (a trailing newline is not part of the password). */
const MAX_PASSWORD_FILE_BYTES = 4096;

function readPasswordFile(path: string): string {
  let fd: number;
  try {
    // Without blocking: a FIFO with no writer must not hang the command.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    // Worded as for every file the command line names: "no such file", "cannot be read (…)".
    throw namedInputError("--redis-password-file", inputFileError(path, error));
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_PASSWORD_FILE_BYTES) {
      throw usageError(
        `--redis-password-file ${path}: expected a regular file of at most ${MAX_PASSWORD_FILE_BYTES} bytes`,
      );
    }
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, stat.size, 0);
    const password = buffer.subarray(0, read).toString("utf8").split(/\r?\n/)[0] ?? "";
    if (password === "") throw usageError(`--redis-password-file ${path}: empty`);
    return password;
  } finally {
    closeSync(fd);
  }
}

/**
 * Where the queue is: `--redis`, else `$LAGRANGE_REDIS_URL`, else the local default; the password
 * from `--redis-password-file` when given. A password in `--redis` itself is visible to every
 * user of the machine (`ps`): said once, with the ways that are not.
 */
function redisTarget(options: RedisOption): QueueTarget {
  const redis = options.redis ?? process.env.LAGRANGE_REDIS_URL ?? DEFAULT_REDIS_URL;
  if (options.redis !== undefined && hasRedisPassword(options.redis)) {
    warn(
      "a password in --redis is visible to other users (ps); put the URL in $LAGRANGE_REDIS_URL or the password in --redis-password-file",
    );
  }
  if (options.redisPasswordFile === undefined) return { redis };
  if (hasRedisPassword(redis)) {
    throw usageError(
      "--redis-password-file: the Redis URL has a password too; give the password once",
    );
  }
  return { redis, password: readPasswordFile(options.redisPasswordFile) };
}

/**
 * Runs a queue command: the library's argument errors (a bad URL or job name) are usage errors
 * here (exit 2), a missing password says where to give one, and no message — ours, ioredis's or
 * BullMQ's — ever shows the password.
 */
async function queueCommand<T>(target: QueueTarget, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TypeError) throw usageError(redactCredentials(error.message, target));
    if (error instanceof Error) error.message = redactCredentials(error.message, target);
    if (error instanceof RedisAccessError && error.refused === "no-password") {
      error.message +=
        ": give it in $LAGRANGE_REDIS_URL (redis://:PASSWORD@host:port) or with --redis-password-file";
    }
    throw error;
  }
}

export interface QueueSubmitOptions extends RedisOption {
  readonly data: string;
  readonly model: string;
  readonly modelDir?: string;
  readonly maxModelMb: number;
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
  const target = redisTarget(options);
  // Slows the submission down, for the tests that interrupt it midway.
  const pause = Number(process.env.LAGRANGE_QUEUE_SUBMIT_PAUSE_MS ?? "");
  const result = await interruptible((signal) =>
    queueCommand(target, () =>
      submitJob({
        ...(pause > 0 ? { pauseMs: pause } : {}),
        ...target,
        job: options.job,
        data: options.data,
        model: options.model,
        ...(options.modelDir === undefined ? {} : { modelDir: options.modelDir }),
        maxModelBytes: options.maxModelMb * 1024 * 1024,
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
  const model =
    result.modelSource === "redis"
      ? `the model ${result.modelUploaded ? "stored" : "already"} in Redis`
      : result.modelSource === "model-dir"
        ? "the model in the workers' --model-dir"
        : "the model at its URL (workers need --allow-model-urls)";
  note(
    `submitted job ${result.job}: ${result.sentences} sentences in ${result.shards} shard(s) to ${redactRedisUrl(target.redis)}, ${model}`,
  );
}

export interface QueueWorkOptions extends RedisOption {
  readonly concurrency: number;
  readonly lock?: number;
  readonly stalledInterval?: number;
  readonly modelDir?: string;
  readonly allowModelUrls?: boolean;
  readonly maxModelMb: number;
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
    case "skipped":
      return `shard ${event.job}/${event.shard}: skipped (its job was removed)`;
    case "returned":
      return `shard ${event.job}/${event.shard}: put back in the queue for another worker`;
    case "connection":
      return `worker: Redis connection: ${event.error} (retrying)`;
    case "stopping":
      return "worker: stopping; the shard(s) in hand go back to the queue";
  }
}

/**
 * `lagrange queue work`: until a signal (SIGTERM, Ctrl-C, SIGHUP), which puts the shards in hand
 * back in the queue (another worker takes them at once, no try used up) and exits within a
 * moment with the signal's code (143, 130, 129), as every command does. `LAGRANGE_QUEUE_PAUSE_MS`
 * slows each sentence down, for the fault tests that kill a worker mid-shard.
 */
export async function queueWork(options: QueueWorkOptions): Promise<void> {
  if (
    options.modelDir !== undefined &&
    !statSync(options.modelDir, { throwIfNoEntry: false })?.isDirectory()
  ) {
    throw usageError(`--model-dir ${options.modelDir}: no such directory`);
  }
  const pause = Number(process.env.LAGRANGE_QUEUE_PAUSE_MS ?? "");
  let lastConnectionError = "";
  const target = redisTarget(options);
  const summary = await interruptible((signal) =>
    queueCommand(target, () =>
      runQueueWorker({
        ...target,
        concurrency: options.concurrency,
        ...(options.modelDir === undefined ? {} : { modelDir: options.modelDir }),
        ...(options.allowModelUrls === true ? { allowModelUrls: true } : {}),
        maxModelBytes: options.maxModelMb * 1024 * 1024,
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
          note(redactCredentials(eventLine(event), target));
        },
      }),
    ),
  );
  note(
    `worker stopped: ${summary.shards} shard(s), ${summary.sentences} sentences, ${summary.tokens} tokens`,
  );
  // The signal's exit code, as for every command (main says which signal).
  if (stopSignal() !== undefined) throw new AbortError("stopped");
}

export interface QueueCollectOptions extends RedisOption {
  readonly job: string;
  readonly out: string;
  readonly wait: boolean;
  readonly partial?: boolean;
}

export async function queueCollect(options: QueueCollectOptions): Promise<void> {
  const target = redisTarget(options);
  const status = await interruptible((signal) =>
    queueCommand(target, async () => {
      const common = { ...target, job: options.job, wait: options.wait, signal };
      // Written as the shards come in; a dead shard without --partial discards the file.
      try {
        return await writeOutput(
          options.out,
          { option: "--out", inputs: [], signal },
          async (output) => {
            const collected = await collectJob({
              ...common,
              ...(options.partial === true ? { partial: true } : {}),
              write: (chunk) => output.write(chunk),
            });
            if (collected.dead.length > 0 && options.partial !== true) {
              throw new QueueJobError("dead shards", collected, "dead-letters");
            }
            return collected;
          },
        );
      } catch (error) {
        if (error instanceof QueueJobError && error.code === "dead-letters") return error.status;
        if (error instanceof QueueJobError && error.code === "abandoned") {
          error.message = error.message.replace(
            /remove the job and submit it again$/,
            `\`lagrange queue remove ${options.job}\` clears it (then submit it again)`,
          );
        }
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
  const pending = `${status.active} active, ${status.waiting} waiting, ${status.failed} failed (to retry), ${status.dead.length} dead`;
  const progress = `${status.done} done, ${pending}`;
  const output = `${status.doneTokens} tokens${rate} (${status.workers} worker(s))`;
  let head: string;
  switch (status.submission) {
    case "complete":
      head = `job ${status.job}: ${status.done}/${status.shards} shard(s) done, ${pending}; ${status.doneSentences}/${status.sentences} sentences, ${output}`;
      break;
    case "submitting":
      head = `job ${status.job}: still being submitted, ${status.shards} shard(s) queued so far: ${progress}; ${status.doneSentences} sentences, ${output}`;
      break;
    case "abandoned":
      head = `job ${status.job}: INCOMPLETE — its submit stopped after ${status.shards} shard(s) were queued, so it can never be collected; \`lagrange queue remove ${status.job}\` clears it (${progress})`;
      break;
  }
  return status.dead.length === 0 ? head : `${head}\n${deadLetterReport(status)}`;
}

export async function queueStatus(options: QueueStatusOptions): Promise<void> {
  const target = redisTarget(options);
  const status = await interruptible((signal) =>
    queueCommand(target, () => jobStatus({ ...target, job: options.job, signal })),
  );
  if (options.json === true) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else process.stdout.write(`${statusLines(status)}\n`);
}

export interface QueueRemoveOptions extends RedisOption {
  readonly job?: string;
  readonly force?: boolean;
}

/** `lagrange queue remove JOB`: the job's shards, results, corpus, record (and model, if no other job uses it). */
export async function queueRemove(
  jobArgument: string | undefined,
  options: QueueRemoveOptions,
): Promise<void> {
  const job = jobArgument ?? options.job;
  if (job === undefined) throw usageError("queue remove: name the job (lagrange queue remove JOB)");
  if (jobArgument !== undefined && options.job !== undefined && jobArgument !== options.job) {
    throw usageError(`queue remove: two jobs named (${jobArgument} and --job ${options.job})`);
  }
  const target = redisTarget(options);
  const removed = await interruptible((signal) =>
    queueCommand(target, () =>
      removeJob({ ...target, job, signal, ...(options.force === true ? { force: true } : {}) }),
    ),
  );
  note(
    `removed job ${job}: ${removed.shards} queued shard(s)${removed.inHand > 0 ? `; ${removed.inHand} shard(s) that workers hold finish and their results are dropped` : ""}`,
  );
}
