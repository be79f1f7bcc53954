import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { LagrangeError } from "@lagrange/core";
import { Queue } from "bullmq";
import {
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  jobKeys,
  type QueueTarget,
  redisFailure,
  shardJobId,
} from "./connection.js";
import { SHARD_FORMATS, type ShardFormat, shardCorpus } from "./shards.js";
import { checkTaggingSpec, readModelBytes, sha256Hex, type TaggingSpec } from "./tag-shard.js";

export interface SubmitOptions extends QueueTarget {
  /** The job's name: what `work`, `status` and `collect` know it by. */
  readonly job: string;
  /** The corpus file (read here only; its shards travel in Redis). */
  readonly data: string;
  /** Default from the extension: `.conllu` is CoNLL-U, anything else CoNLL. */
  readonly format?: string;
  /** A path every worker can read, or a URL. */
  readonly model: string;
  readonly decoder?: string;
  /** A constraints file: its text is stored with the job. */
  readonly constraints?: string;
  readonly unlabeled?: boolean;
  /** Sentences per shard. */
  readonly shardSize: number;
  /** Tries per shard before it is dead-lettered (default 3). */
  readonly attempts?: number;
  /** First retry delay in ms, doubled at each further try (default 1000). */
  readonly backoffMs?: number;
  readonly signal?: AbortSignal;
}

export interface SubmitResult {
  readonly job: string;
  readonly shards: number;
  readonly sentences: number;
}

/**
 * Shards go to Redis in batches of at most this many shards or bytes of text, and the first shard
 * at once: workers started beside `submit` begin on the first shard while the rest are cut, and
 * the submitting process holds one batch, not the corpus.
 */
const BATCH_SHARDS = 64;
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Splits the corpus into shards of whole sentences and queues one BullMQ job per shard, its text
 * stored in Redis (so workers need the model alone on a shared path). A job name that exists is
 * refused: results are keyed by (job, shard), and a second corpus under the same name would mix.
 * The tagging spec is checked here first (model readable, decoder known, constraints valid), so
 * a mistake fails now rather than on every worker.
 */
export async function submitJob(options: SubmitOptions): Promise<SubmitResult> {
  checkJobName(options.job);
  if (!existsSync(options.data) || statSync(options.data).isDirectory()) {
    throw new LagrangeError("usage", `--data ${options.data}: no such file`);
  }
  const format = (options.format ??
    (extname(options.data).toLowerCase() === ".conllu" ? "conllu" : "conll")) as ShardFormat;
  if (!SHARD_FORMATS.includes(format)) {
    throw new LagrangeError(
      "usage",
      `--format ${options.format}: a queue shards ${SHARD_FORMATS.join(", ")} files`,
    );
  }
  let modelBytes: Uint8Array;
  try {
    modelBytes = await readModelBytes(options.model);
  } catch (error) {
    throw new LagrangeError("usage", `--model ${options.model}: ${(error as Error).message}`);
  }
  const spec: TaggingSpec = {
    model: options.model,
    modelSha256: sha256Hex(modelBytes),
    data: options.data,
    format,
    ...(options.decoder === undefined ? {} : { decoder: options.decoder }),
    ...(options.constraints === undefined
      ? {}
      : {
          constraints: await readFile(options.constraints, "utf8"),
          constraintsSource: options.constraints,
        }),
    ...(options.unlabeled === true ? { unlabeled: true } : {}),
  };
  await checkTaggingSpec(spec);
  const queueName = options.queue ?? DEFAULT_QUEUE_NAME;
  const keys = jobKeys(queueName, options.job);
  const queue = new Queue(queueName, { connection: connectionOf(options.redis) });
  queue.on("error", () => {
    // Reported by the command that fails; ioredis retries meanwhile.
  });
  try {
    const client = await queue.getBackend().client;
    // The name is claimed before any shard is queued, atomically: two submits of one name cannot both win.
    client.defineCommand("lagrangeClaim", {
      numberOfKeys: 1,
      lua: "return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])",
    });
    const claimed = Number(
      await client.runCommand("lagrangeClaim", [keys.meta, "spec", JSON.stringify(spec)]),
    );
    if (claimed === 0) {
      throw new LagrangeError(
        "usage",
        `--job ${options.job}: a job of that name exists (results are kept by job and shard); choose another name`,
      );
    }
    let shards = 0;
    let sentences = 0;
    let batch: { index: number; firstLine: number; text: string; sentences: number }[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await client.hset(
        keys.shards,
        Object.fromEntries(batch.map((s) => [String(s.index), s.text])),
      );
      await queue.addBulk(
        batch.map((s) => ({
          name: options.job,
          data: {
            job: options.job,
            index: s.index,
            firstLine: s.firstLine,
            sentences: s.sentences,
          },
          opts: {
            jobId: shardJobId(options.job, s.index),
            attempts: options.attempts ?? 3,
            backoff: { type: "exponential", delay: options.backoffMs ?? 1000 },
            // The result lives in the job's results hash; a failed job stays, as its dead letter.
            removeOnComplete: true,
            removeOnFail: false,
          },
        })),
      );
      batch = [];
      batchBytes = 0;
    };
    for await (const shard of shardCorpus(
      options.data,
      format,
      options.shardSize,
      options.signal,
    )) {
      batch.push(shard);
      batchBytes += shard.text.length;
      shards++;
      sentences += shard.sentences;
      if (shards === 1 || batch.length === BATCH_SHARDS || batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
    await client.hset(keys.meta, {
      shards: String(shards),
      sentences: String(sentences),
      submittedAt: String(Date.now()),
    });
    return { job: options.job, shards, sentences };
  } catch (error) {
    throw redisFailure(options.redis, error);
  } finally {
    await queue.close().catch(() => {});
  }
}
