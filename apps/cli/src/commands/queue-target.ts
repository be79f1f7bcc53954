import {
  hasRedisPassword,
  type QueueTarget,
  queueTargetOf,
  RedisAccessError,
  redactCredentials,
} from "@lagrange/scale";
import { usageError } from "../exit-codes.js";
import { warn } from "../progress.js";

/** `--redis` and `--redis-password-file`, the same on every queue command. */
export interface RedisOption {
  readonly redis?: string;
  readonly redisPasswordFile?: string;
}

/**
 * Where the queue is: `--redis`, else `$LAGRANGE_REDIS_URL`, else the local default; the password
 * from `--redis-password-file` when given. A password in `--redis` itself is visible to every
 * user of the machine (`ps`): said once, with the ways that are not.
 */
export function redisTarget(options: RedisOption): QueueTarget {
  if (options.redis !== undefined && hasRedisPassword(options.redis)) {
    warn(
      "a password in --redis is visible to other users (ps); put the URL in $LAGRANGE_REDIS_URL or the password in --redis-password-file",
    );
  }
  const redis = options.redis ?? process.env.LAGRANGE_REDIS_URL;
  return queueTargetOf({
    ...(redis === undefined ? {} : { redis }),
    ...(options.redisPasswordFile === undefined ? {} : { passwordFile: options.redisPasswordFile }),
  });
}

/**
 * Runs a queue command: the library's argument errors (a bad URL or job name) are usage errors
 * here (exit 2), a missing password says where to give one, and no message — ours, ioredis's or
 * BullMQ's — ever shows the password.
 */
export async function queueCommand<T>(target: QueueTarget, run: () => Promise<T>): Promise<T> {
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
