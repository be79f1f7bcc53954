import { redactUrl } from "@lagrange/core/node";
import { submitJob } from "@lagrange/scale";
import { requireFile } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { note } from "../progress.js";
import { queueCommand, type RedisOption, redisTarget } from "./queue-target.js";

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
    `submitted job ${result.job}: ${result.sentences} sentences in ${result.shards} shard(s) to ${redactUrl(target.redis)}, ${model}`,
  );
}
