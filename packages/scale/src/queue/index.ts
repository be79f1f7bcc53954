// Many machines: a corpus cut into shards on a BullMQ queue, tagged by any number of workers.
export {
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  DEFAULT_REDIS_URL,
  hasRedisPassword,
  type QueueTarget,
  RedisAccessError,
  redactCredentials,
} from "./connection.js";
export {
  awaitJob,
  type CollectOptions,
  collectJob,
  type DeadShard,
  deadLetterReport,
  type JobStatus,
  jobStatus,
  QueueJobError,
  type RemoveOptions,
  type RemoveResult,
  removeJob,
  type SubmissionState,
} from "./jobs.js";
export { ModelChangedError, ModelRefusedError } from "./model-access.js";
export { SHARD_FORMATS, type Shard, type ShardFormat, shardCorpus } from "./shards.js";
export {
  DEFAULT_MAX_MODEL_BYTES,
  MalformedSpecError,
  type ModelSource,
  parseTagJobSpec,
  type ShardJobData,
  type TagJobSpec,
} from "./spec.js";
export { type SubmitOptions, type SubmitResult, submitJob } from "./submit.js";
export { type ModelReader, type ShardInput, type ShardOutput, tagShard } from "./tag-shard.js";
export { queueTargetOf, readRedisPasswordFile } from "./target.js";
export {
  runQueueWorker,
  type ShardStats,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerSummary,
} from "./worker.js";
