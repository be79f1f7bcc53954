import { LagrangeError } from "@lagrange/core";
import type { ConnectionOptions } from "bullmq";

/** Where the queue lives when nothing says otherwise (`LAGRANGE_REDIS_URL` overrides it in the CLI). */
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The BullMQ queue every Lagrange job's shards go through; one queue serves many jobs. */
export const DEFAULT_QUEUE_NAME = "lagrange-tag";

const UNREACHABLE_RETRIES = 14;

/** Where to reach the queue: a Redis URL and the queue's name. */
export interface QueueTarget {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly redis: string;
  /** Default {@link DEFAULT_QUEUE_NAME}. */
  readonly queue?: string;
}

/**
 * ioredis options from a Redis URL. `maxRetriesPerRequest: null` is what BullMQ requires of a
 * worker's connection, and it is what lets every command wait across a Redis restart (ioredis
 * reconnects forever and replays the queued commands) rather than fail the shard in hand.
 */
export function connectionOf(
  url: string,
  options: { readonly patient?: boolean } = {},
): ConnectionOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`--redis ${url}: not a URL; expected redis://host:port`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new TypeError(`--redis ${url}: expected a redis:// or rediss:// URL`);
  }
  const db = parsed.pathname.replace(/^\//, "");
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    ...(parsed.username === "" ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === "" ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(db === "" ? {} : { db: Number(db) }),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    ...(options.patient === true
      ? {
          maxRetriesPerRequest: null,
          // A restarted Redis is retried every second at most, forever: a worker outlives the outage.
          retryStrategy: (times: number) => Math.min(times * 100, 1000),
        }
      : {
          // A command (submit, status, collect) gives up after about 10 s rather than hang on a
          // Redis that is not there; collect's waiting loop rides out shorter restarts.
          maxRetriesPerRequest: UNREACHABLE_RETRIES,
          retryStrategy: (times: number) =>
            times > UNREACHABLE_RETRIES ? null : Math.min(times * 100, 1000),
        }),
  };
}

/** Job names become Redis keys and BullMQ job ids: a plain word keeps both unambiguous. */
export function checkJobName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) {
    throw new TypeError(
      `--job ${JSON.stringify(name)}: expected letters, digits, '.', '_' or '-' (at most 128, starting with a letter or digit)`,
    );
  }
}

/** The Redis keys of one job, besides BullMQ's own (prefix `bull:<queue>:`). */
export function jobKeys(queue: string, job: string) {
  const base = `lagrange:${queue}:${job}`;
  return {
    /** Hash: what was submitted (model, decoder, constraints text, shard count, …). */
    meta: `${base}:meta`,
    /** Hash: shard index → the shard's input text. */
    shards: `${base}:shards`,
    /** Hash: shard index → the shard's tagged output; HSET of the same bytes makes a retry harmless. */
    results: `${base}:results`,
    /** Hash: shard index → JSON {@link ShardStats}. */
    stats: `${base}:stats`,
  };
}

/** BullMQ's id of a shard's job: submitting the same job again adds nothing twice. */
export function shardJobId(job: string, index: number): string {
  return `${job}/${index}`;
}

/**
 * A Redis that cannot be reached, said in the user's terms (code `unavailable`); any other error
 * is returned as it is.
 */
export function redisFailure(url: string, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : "";
  if (
    name === "MaxRetriesPerRequestError" ||
    /Connection is closed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|max retries/i.test(
      message,
    )
  ) {
    return new LagrangeError("unavailable", `cannot reach Redis at ${url}: ${message}`, {
      cause: error,
    });
  }
  return error;
}
