import { statSync } from "node:fs";
import { AbortError } from "@lagrange/core";
import { redactCredentials, runQueueWorker, type WorkerEvent } from "@lagrange/scale";
import { usageError } from "../exit-codes.js";
import { interruptible, stopSignal } from "../interruption.js";
import { note } from "../progress.js";
import { queueCommand, type RedisOption, redisTarget } from "./queue-target.js";

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
