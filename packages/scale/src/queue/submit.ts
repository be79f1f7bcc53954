import { createHash, randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, extname, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AbortError, LagrangeError, lagrangeErrorCode } from "@lagrange/core";
import { inputFileError, readInput, redactUrl } from "@lagrange/core/node";
import { Queue } from "bullmq";
import {
  accessFailure,
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  jobKeys,
  modelKeys,
  openRedis,
  type QueueTarget,
  redisFailure,
  shardJobId,
} from "./connection.js";
import { discardJob } from "./jobs.js";
import { fetchBounded, ModelRefusedError, readRegularFile } from "./model-access.js";
import { SHARD_FORMATS, type ShardFormat, shardCorpus } from "./shards.js";
import {
  DEFAULT_MAX_MODEL_BYTES,
  MAX_CONSTRAINTS_CHARS,
  MAX_SHARD_BYTES,
  type ModelSource,
  parseTagJobSpec,
  type ShardJobData,
  type TagJobSpec,
} from "./spec.js";
import { checkTagJobSpec, sha256Hex } from "./tag-shard.js";

export interface SubmitOptions extends QueueTarget {
  /** The job's name: what `work`, `status` and `collect` know it by. */
  readonly job: string;
  /** The corpus file (read here only; its shards travel in Redis). */
  readonly data: string;
  /** Default from the extension: `.conllu` is CoNLL-U, anything else CoNLL. */
  readonly format?: string;
  /**
   * The model file. By default its bytes are stored in Redis under their SHA-256 (once: jobs that
   * share a model share the copy), so that workers need no shared file system. With `modelDir`,
   * it is named by its path relative to that directory instead (not copied). An `http(s)://` URL
   * is recorded as it is (workers fetch it only if they allow URLs).
   */
  readonly model: string;
  /**
   * The directory the model lies in, as every worker is given it (`--model-dir`): the job records
   * the model's path relative to it, and workers read it from their own copy of the directory.
   */
  readonly modelDir?: string;
  /** Largest model accepted, in bytes (default 1 GiB; a model stored in Redis, at most 512 MiB). */
  readonly maxModelBytes?: number;
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
  /** Wait this long after each shard: makes a submission slow enough to interrupt in tests. */
  readonly pauseMs?: number;
}

export interface SubmitResult {
  readonly job: string;
  readonly shards: number;
  readonly sentences: number;
  /** Where workers get the model. */
  readonly modelSource: ModelSource;
  /** The model's bytes were stored in Redis by this submission (not already there). */
  readonly modelUploaded: boolean;
}

/**
 * Shards go to Redis in batches of at most this many shards or bytes of text, and the first shard
 * at once: workers started beside `submit` begin on the first shard while the rest are cut, and
 * the submitting process holds one batch, not the corpus.
 */
const BATCH_SHARDS = 64;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Redis takes no value above 512 MiB (`proto-max-bulk-len`). */
const MAX_STORED_MODEL_BYTES = 512 * 1024 * 1024;
/** A running submit renews its mark this often; a mark not renewed for the TTL was abandoned. */
const SUBMITTER_RENEW_MS = 3_000;
const SUBMITTER_TTL_MS = 15_000;
/**
 * After a failure or a signal, what is queued is removed for at most this long (the rest is left
 * stale, for workers to drop): a stopped command exits within half a second.
 */
const DISCARD_BUDGET_MS = 250;

/**
 * The job's name is claimed, with its spec, before any shard is queued, in one script: two
 * submits of one name cannot both win. The record says `submitting` until the last shard is in.
 */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'submission', ARGV[2], 'state', 'submitting', 'submittedAt', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
return 1`;

/** The last step: the record becomes `complete` with its counts — if it is still this submission's. */
const COMPLETE = `
if redis.call('HGET', KEYS[1], 'submission') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'complete', 'shards', ARGV[2], 'sentences', ARGV[3])
redis.call('DEL', KEYS[2])
return 1`;

/**
 * Stores a batch of shard texts — only while the job is still this submission's: a job removed
 * meanwhile (`remove --force`) gets nothing more.
 */
const STORE_SHARDS = `
if redis.call('HGET', KEYS[1], 'submission') ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1`;

/**
 * Records that a job uses a stored model, and says whether its bytes must be stored: they are
 * missing, or what is stored is not them (corrupted, or written by someone else) — compared by
 * content, not by existence, so that a bad copy is replaced rather than failing every job.
 */
const USE_MODEL = `
redis.call('SADD', KEYS[2], ARGV[1])
local stored = redis.call('GET', KEYS[1])
if stored and redis.sha1hex(stored) == ARGV[2] then return 0 end
return -1`;

/** The model's bytes and how workers are to find them. */
interface SubmittedModel {
  readonly bytes: Uint8Array;
  readonly source: ModelSource;
  readonly name: string;
}

async function modelOf(options: SubmitOptions): Promise<SubmittedModel> {
  const maxBytes = options.maxModelBytes ?? DEFAULT_MAX_MODEL_BYTES;
  const what = `--model ${redactUrl(options.model)}`;
  if (/^https?:\/\//.test(options.model)) {
    if (options.modelDir !== undefined) {
      throw new LagrangeError("usage", `${what}: a URL, and --model-dir names files`);
    }
    return {
      bytes: await fetchBounded(options.model, maxBytes, what, options.signal),
      source: "url",
      name: options.model,
    };
  }
  if (options.modelDir === undefined) {
    const cap = Math.min(maxBytes, MAX_STORED_MODEL_BYTES);
    const bytes = await readRegularFile(options.model, { maxBytes: cap, what }).catch((error) => {
      if (cap < maxBytes && error instanceof ModelRefusedError && error.reason === "too-large") {
        throw new LagrangeError(
          "usage",
          `${what}: above the 512 MiB that Redis stores in one value; put it in a directory every worker mounts and submit with --model-dir`,
        );
      }
      throw error;
    });
    return { bytes, source: "redis", name: basename(options.model) };
  }
  let root: string;
  let path: string;
  try {
    root = await realpath(options.modelDir);
    path = await realpath(options.model);
  } catch (error) {
    throw new LagrangeError(
      "usage",
      `${what}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file (or no such --model-dir)" : (error as Error).message}`,
    );
  }
  if (!path.startsWith(root + sep)) {
    throw new LagrangeError("usage", `${what}: not inside --model-dir ${options.modelDir}`);
  }
  return {
    bytes: await readRegularFile(path, { maxBytes, what }),
    source: "model-dir",
    name: relative(root, path).split(sep).join("/"),
  };
}

/** The constraints file's text, refused when it is more than a job carries. */
async function readConstraints(path: string, signal: AbortSignal | undefined): Promise<string> {
  // The one input reader: a FIFO or a pipe is read to its end without blocking signals, and a
  // file too large for a job is refused before it is held (4 bytes at most per character).
  const constraints = new TextDecoder().decode(
    await readInput(path, {
      kind: "constraints",
      maxBytes: 4 * MAX_CONSTRAINTS_CHARS,
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      throw lagrangeErrorCode(error) === "bad-input" ? error : inputFileError(path, error);
    }),
  );
  if (constraints.length > MAX_CONSTRAINTS_CHARS) {
    throw new LagrangeError(
      "usage",
      `--constraints ${path}: more than the ${MAX_CONSTRAINTS_CHARS} characters a job carries`,
    );
  }
  return constraints;
}

/**
 * The job's tagging spec, checked as every worker will check it (model loads, decoder known,
 * constraints valid, the spec itself), and its JSON text.
 */
async function specOf(
  options: SubmitOptions,
  format: ShardFormat,
  model: SubmittedModel,
): Promise<{ spec: TagJobSpec; specText: string }> {
  const constraints =
    options.constraints === undefined
      ? undefined
      : await readConstraints(options.constraints, options.signal);
  const spec: TagJobSpec = {
    modelSource: model.source,
    model: model.name,
    modelSha256: sha256Hex(model.bytes),
    modelBytes: model.bytes.length,
    data: options.data,
    format,
    ...(options.decoder === undefined ? {} : { decoder: options.decoder }),
    ...(constraints === undefined
      ? {}
      : { constraints: { source: options.constraints as string, text: constraints } }),
    ...(options.unlabeled === true ? { unlabeled: true } : {}),
  };
  await checkTagJobSpec(spec, model.bytes);
  const specText = JSON.stringify(spec);
  try {
    // What every worker will check: refused here rather than dead-lettered there.
    parseTagJobSpec(specText, options.job);
  } catch (error) {
    throw new LagrangeError("usage", (error as Error).message);
  }
  return { spec, specText };
}

/**
 * Splits the corpus into shards of whole sentences and queues one BullMQ job per shard, its text
 * stored in Redis. A job name that exists is refused: results are keyed by (job, shard), and a
 * second corpus under the same name would mix (`removeJob` frees a name). The tagging spec is
 * checked here first (model loads, decoder known, constraints valid, the spec as workers will
 * check it), so a mistake fails now rather than on every worker.
 *
 * Transactional as far as anyone can see: the job's record says `submitting` until the last
 * shard is queued, then `complete`; a submit that fails or is stopped (`signal`) removes what it
 * queued before it returns; a submit that is killed leaves a job that `jobStatus` reports as
 * `abandoned` (its mark expires) and that collecting refuses, until `removeJob` clears it.
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
  const model = await modelOf(options);
  const { spec, specText } = await specOf(options, format, model);
  const { modelSha256 } = spec;
  const client = await openRedis(
    options,
    options.signal === undefined ? {} : { signal: options.signal },
  );
  const queueName = options.queue ?? DEFAULT_QUEUE_NAME;
  const keys = jobKeys(queueName, options.job);
  const submission = randomBytes(6).toString("hex");
  const queue = new Queue(queueName, { connection: connectionOf(options) });
  let refused: Error | undefined;
  queue.on("error", (error) => {
    // Reported by the command that fails; ioredis retries meanwhile. A refusal is final.
    refused ??= accessFailure(options, error);
  });
  let claimed = false;
  let queued = 0;
  const removedMeanwhile = () =>
    new LagrangeError(
      "usage",
      `--job ${options.job}: the job was removed while it was being submitted`,
    );
  let renewal: ReturnType<typeof setInterval> | undefined;
  const stillGoing = () => {
    if (refused !== undefined) throw refused;
    if (options.signal?.aborted) throw new AbortError();
  };
  // A signal ends the submission at once, even while a Redis command is pending (Redis down).
  let stop!: (error: unknown) => void;
  const aborted = new Promise<never>((_, reject) => {
    stop = reject;
  });
  aborted.catch(() => {});
  const onAbort = () => stop(new AbortError());
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const submit = async (): Promise<SubmitResult> => {
    stillGoing();
    claimed =
      Number(
        await client.eval(
          CLAIM,
          2,
          keys.meta,
          keys.submitter,
          specText,
          submission,
          String(Date.now()),
          `${hostname()}:${process.pid}`,
          String(SUBMITTER_TTL_MS),
        ),
      ) === 1;
    if (!claimed) {
      throw new LagrangeError(
        "usage",
        `--job ${options.job}: a job of that name exists (results are kept by job and shard); choose another name, or remove that job first`,
      );
    }
    renewal = setInterval(() => {
      client.pexpire(keys.submitter, SUBMITTER_TTL_MS).catch(() => {});
    }, SUBMITTER_RENEW_MS);
    renewal.unref();
    let modelUploaded = false;
    if (model.source === "redis") {
      const stored = modelKeys(queueName, modelSha256);
      const sha1 = createHash("sha1").update(model.bytes).digest("hex");
      if (
        Number(await client.eval(USE_MODEL, 2, stored.bytes, stored.jobs, options.job, sha1)) < 0
      ) {
        stillGoing();
        // Over whatever is there: only these bytes belong under their checksum.
        await client.set(stored.bytes, Buffer.from(model.bytes));
        modelUploaded = true;
      }
    }
    let shards = 0;
    let sentences = 0;
    let batch: { index: number; firstLine: number; text: string; sentences: number }[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      stillGoing();
      const stored = await client.eval(
        STORE_SHARDS,
        2,
        keys.meta,
        keys.shards,
        submission,
        ...batch.flatMap((s) => [String(s.index), s.text]),
      );
      if (Number(stored) !== 1) throw removedMeanwhile();
      queued += batch.length;
      stillGoing();
      await queue.addBulk(
        batch.map((s) => ({
          name: options.job,
          data: {
            job: options.job,
            submission,
            index: s.index,
            firstLine: s.firstLine,
            sentences: s.sentences,
          } satisfies ShardJobData,
          opts: {
            jobId: shardJobId(options.job, submission, s.index),
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
      const bytes = Buffer.byteLength(shard.text);
      if (bytes > MAX_SHARD_BYTES) {
        throw new LagrangeError(
          "usage",
          `--data ${options.data}: the shard from line ${shard.firstLine} is ${Math.round(bytes / 1024 / 1024)} MiB, above the ${MAX_SHARD_BYTES / 1024 / 1024} MiB a shard may be; use a smaller --shard-size`,
        );
      }
      batch.push(shard);
      batchBytes += shard.text.length;
      shards++;
      sentences += shard.sentences;
      if (shards === 1 || batch.length === BATCH_SHARDS || batchBytes >= BATCH_BYTES) await flush();
      if (options.pauseMs !== undefined) {
        await sleep(options.pauseMs, undefined, options.signal ? { signal: options.signal } : {});
      }
    }
    await flush();
    stillGoing();
    const completed = Number(
      await client.eval(
        COMPLETE,
        2,
        keys.meta,
        keys.submitter,
        submission,
        String(shards),
        String(sentences),
      ),
    );
    if (completed !== 1) throw removedMeanwhile();
    return { job: options.job, shards, sentences, modelSource: model.source, modelUploaded };
  };
  let failed = false;
  const submitting = submit();
  try {
    return await Promise.race([submitting, aborted]);
  } catch (error) {
    failed = true;
    // A step in flight (the claim, say) ends within a round trip: then what it did is known.
    await Promise.race([submitting.catch(() => {}), sleep(100)]);
    if (claimed) {
      // Nothing of a failed or stopped submission stays visible: its record first, then as many of
      // its queued shards as a moment allows (any left are stale, and workers drop them). Redis
      // gone: the record stays `submitting` until its mark expires, then shows as abandoned.
      const discarded = discardJob(queue, client, {
        queue: queueName,
        job: options.job,
        submission,
        modelSha256: model.source === "redis" ? modelSha256 : undefined,
        shards: queued,
        deadlineMs: performance.now() + DISCARD_BUDGET_MS,
      });
      await Promise.race([discarded.catch(() => {}), sleep(DISCARD_BUDGET_MS + 50)]);
    }
    throw redisFailure(options, error);
  } finally {
    // Here, not before the discard: a claim that lands during the discard starts the renewal too.
    clearInterval(renewal);
    options.signal?.removeEventListener("abort", onAbort);
    // After a failure Redis may be what failed: do not wait on it to say goodbye.
    client.disconnect();
    if (failed) await queue.disconnect().catch(() => {});
    await queue.close().catch(() => {});
  }
}
