// Many machines: a corpus cut into shards on a BullMQ queue, tagged by any number of workers.
export {
  checkJobName,
  connectionOf,
  DEFAULT_QUEUE_NAME,
  DEFAULT_REDIS_URL,
  type QueueTarget,
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
  removeJob,
} from "./jobs.js";
export { SHARD_FORMATS, type Shard, type ShardFormat, shardCorpus } from "./shards.js";
export { type SubmitOptions, type SubmitResult, submitJob } from "./submit.js";
export {
  ModelChangedError,
  type ShardInput,
  type ShardOutput,
  type TaggingSpec,
  tagShard,
} from "./tag-shard.js";
export {
  runQueueWorker,
  type ShardJobData,
  type ShardStats,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerSummary,
} from "./worker.js";
