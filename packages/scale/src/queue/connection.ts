import { AbortError, LagrangeError } from "@lagrange/core";
import { redactSecrets, redactUrl } from "@lagrange/core/node";
import type { ConnectionOptions } from "bullmq";
import { Redis } from "ioredis";
import { JOB_NAME_PATTERN } from "./spec.js";

/** Where the queue lives when nothing says otherwise (`LAGRANGE_REDIS_URL` overrides it in the CLI). */
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The BullMQ queue every Lagrange job's shards go through; one queue serves many jobs. */
export const DEFAULT_QUEUE_NAME = "lagrange-tag";

const UNREACHABLE_RETRIES = 14;

/** Where to reach the queue: a Redis URL and the queue's name. */
export interface QueueTarget {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly redis: string;
  /**
   * The password, when it is not in the URL (read from a file, say, so that it never appears on
   * a command line); it replaces the URL's.
   */
  readonly password?: string;
  /** Default {@link DEFAULT_QUEUE_NAME}. */
  readonly queue?: string;
}

/**
 * Whether a Redis URL carries a password (`redis://:PW@host`, or `?password=PW` as ioredis reads
 * it). Asked of the parsed URL, not by comparing it with its redacted form. False for a string
 * that is not a URL (connecting to it fails, saying so).
 */
export function hasRedisPassword(url: string): boolean {
  try {
    return passwordOf(new URL(url)) !== undefined;
  } catch {
    return false;
  }
}

/** The password a parsed Redis URL gives, percent-decoded: its user information's, else `?password=`. */
function passwordOf(parsed: URL): string | undefined {
  if (parsed.password !== "") return decodedUserInfo(parsed.password);
  const query = parsed.searchParams.get("password");
  return query === null || query === "" ? undefined : query;
}

/**
 * `text` with every secret hidden (see `redactSecrets`): the credentials of any URL in it (as
 * ioredis and BullMQ quote them in their errors), and the password of `target` itself, however
 * it was given.
 */
export function redactCredentials(text: string, target?: QueueTarget): string {
  return redactSecrets(text, target === undefined ? [] : secretsOf(target));
}

function secretsOf(target: QueueTarget): string[] {
  const secrets: string[] = [];
  if (target.password !== undefined) secrets.push(target.password);
  try {
    const parsed = new URL(target.redis);
    const password = passwordOf(parsed);
    if (password !== undefined) secrets.push(parsed.password, password);
  } catch {
    // Not a URL: connectionOf says so (redacted).
  }
  return secrets;
}

/** A URL's user or password, percent-decoded where it can be (a stray `%` is taken as it is). */
function decodedUserInfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * ioredis options for a queue target: its URL, with its `password` (if given) over the URL's.
 * `maxRetriesPerRequest: null` is what BullMQ requires of a worker's connection, and it is what
 * lets every command wait across a Redis restart (ioredis reconnects forever and replays the
 * queued commands) rather than fail the shard in hand.
 */
export function connectionOf(
  target: Pick<QueueTarget, "redis" | "password">,
  options: { readonly patient?: boolean } = {},
): ConnectionOptions {
  const url = target.redis;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`--redis ${redactUrl(url)}: not a URL; expected redis://host:port`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new TypeError(`--redis ${redactUrl(url)}: expected a redis:// or rediss:// URL`);
  }
  const db = parsed.pathname.replace(/^\//, "");
  const password = target.password ?? passwordOf(parsed);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    ...(parsed.username === "" ? {} : { username: decodedUserInfo(parsed.username) }),
    ...(password === undefined ? {} : { password }),
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
  if (!JOB_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `--job ${JSON.stringify(name)}: expected letters, digits, '.', '_' or '-' (at most 128, starting with a letter or digit)`,
    );
  }
}

/** The Redis keys of one job, besides BullMQ's own (prefix `bull:<queue>:`). */
export function jobKeys(queue: string, job: string) {
  const base = `lagrange:${queue}:${job}`;
  return {
    /**
     * Hash: what was submitted — `spec` (JSON, see `parseTagJobSpec`), `submission` (a nonce
     * naming this submission of the name), `state` (`submitting` until the last shard is queued,
     * then `complete`), and once complete `shards` and `sentences`.
     */
    meta: `${base}:meta`,
    /**
     * String with a short time-to-live that a running `submit` keeps renewing: a job still
     * `submitting` without it was abandoned (its submit was killed).
     */
    submitter: `${base}:submitter`,
    /** Hash: shard index → the shard's input text. */
    shards: `${base}:shards`,
    /** Hash: shard index → the shard's tagged output; HSET of the same bytes makes a retry harmless. */
    results: `${base}:results`,
    /** Hash: shard index → JSON {@link ShardStats}. */
    stats: `${base}:stats`,
  };
}

/**
 * The Redis keys of a model stored by its checksum: its bytes, and the set of jobs that use it
 * (the last job removed takes the model with it).
 */
export function modelKeys(queue: string, sha256: string) {
  const base = `lagrange:${queue}:model:${sha256}`;
  return { bytes: base, jobs: `${base}:jobs` };
}

/**
 * BullMQ's id of a shard's job. The submission's nonce is part of it: a shard of a removed job
 * that a worker still holds can never be mistaken for the shard of a new job of the same name.
 */
export function shardJobId(job: string, submission: string, index: number): string {
  return `${job}/${submission}/${index}`;
}

/**
 * Redis refused us, and asking again cannot help: no password or a wrong one, an ACL user without
 * the permissions a queue needs, a TLS certificate that does not verify. A usage error (exit 2):
 * the command line, environment or password file must change. Never retried.
 */
export class RedisAccessError extends LagrangeError {
  override readonly name = "RedisAccessError";
  constructor(
    message: string,
    /** What was refused: the password is missing, wrong, the user lacks permissions, or TLS failed. */
    readonly refused: "no-password" | "wrong-password" | "no-permission" | "tls",
    options?: ErrorOptions,
  ) {
    super("usage", message, options);
  }
}

const TLS_FAILURES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);

/**
 * The {@link RedisAccessError} an error of ioredis or BullMQ amounts to, or undefined when it is
 * anything else (a connection that may come back).
 */
export function accessFailure(target: QueueTarget, error: unknown): RedisAccessError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const where = `Redis at ${redactUrl(target.redis)}`;
  const said = redactCredentials(message.replace(/^Ready check failed: /, ""), target).trim();
  const options = { cause: error };
  if (/\bWRONGPASS\b|\binvalid (username-)?password\b/i.test(message)) {
    return new RedisAccessError(
      `${where} refused the password (WRONGPASS)`,
      "wrong-password",
      options,
    );
  }
  if (/\bNOAUTH\b|\bERR AUTH\b/.test(message)) {
    return new RedisAccessError(
      `${where} requires a password (NOAUTH); none was given`,
      "no-password",
      options,
    );
  }
  if (/\bNOPERM\b/.test(message)) {
    return new RedisAccessError(
      `${where} refused a command to this user (${said}); the queue needs an ACL user allowed its commands and keys`,
      "no-permission",
      options,
    );
  }
  if (typeof code === "string" && TLS_FAILURES.has(code)) {
    return new RedisAccessError(`${where}: TLS failed (${code}: ${said})`, "tls", options);
  }
  return undefined;
}

/**
 * A Redis that refused us or cannot be reached, said in the user's terms (codes `usage` and
 * `unavailable`); any other error is returned as it is, with credentials hidden in its message.
 */
export function redisFailure(target: QueueTarget, error: unknown): unknown {
  if (error instanceof LagrangeError) return error;
  const refused = accessFailure(target, error);
  if (refused !== undefined) return refused;
  const message = redactCredentials(error instanceof Error ? error.message : String(error), target);
  const name = error instanceof Error ? error.name : "";
  if (
    name === "MaxRetriesPerRequestError" ||
    /Connection is closed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|max retries/i.test(
      message,
    )
  ) {
    return new LagrangeError(
      "unavailable",
      `cannot reach Redis at ${redactUrl(target.redis)}: ${message}`,
      { cause: error },
    );
  }
  if (/^WRONGTYPE\b/.test(message)) {
    // Someone wrote to a key of ours what lagrange never writes there.
    return new LagrangeError(
      "bad-input",
      `a key of the queue in Redis at ${redactUrl(target.redis)} holds something lagrange did not write there (${message})`,
      { cause: error },
    );
  }
  if (error instanceof Error && error.message !== message) error.message = message;
  return error;
}

/**
 * A connection to Redis, returned once Redis has let us in: a refusal (see {@link accessFailure})
 * is thrown at once, never retried. Until then it waits as the commands do — `patient` forever
 * (a worker waits for its Redis to come up), else about 10 s before `unavailable` — reporting
 * each failed try through `onRetry`. An aborted `signal` ends the wait with an AbortError. The
 * caller closes the connection (`quit`, or `disconnect` when it must not wait).
 */
export function openRedis(
  target: QueueTarget,
  options: {
    readonly patient?: boolean;
    readonly signal?: AbortSignal;
    readonly onRetry?: (error: Error) => void;
  } = {},
): Promise<Redis> {
  const client = new Redis({
    ...(connectionOf(target, options.patient === true ? { patient: true } : {}) as object),
    lazyConnect: true,
  });
  return new Promise<Redis>((resolve, reject) => {
    let lastError: Error | undefined;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener("abort", onAbort);
      if (error === undefined) return resolve(client);
      client.disconnect();
      reject(error);
    };
    const onAbort = () => finish(new AbortError("stopped while connecting to Redis"));
    // Listened to for good: ioredis prints an 'error' event nobody listens to.
    client.on("error", (error: Error) => {
      if (settled) return;
      const refused = accessFailure(target, error);
      if (refused !== undefined) return finish(refused);
      lastError = error;
      options.onRetry?.(error);
    });
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    client.once("ready", () => finish());
    client.once("end", () =>
      finish(redisFailure(target, lastError ?? new Error("Connection is closed."))),
    );
    client.connect().catch(() => {
      // Reported through the events above.
    });
  });
}
