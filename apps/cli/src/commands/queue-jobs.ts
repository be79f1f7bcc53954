import {
  collectJob,
  deadLetterReport,
  type JobStatus,
  jobStatus,
  QueueJobError,
  removeJob,
} from "@lagrange/scale";
import { usageError } from "../exit-codes.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";
import { note } from "../progress.js";
import { queueCommand, type RedisOption, redisTarget } from "./queue-target.js";

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
        return await writeOutput(options.out, { option: "--out", signal }, async (output) => {
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
