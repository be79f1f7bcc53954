// @lagrange/scale: tagging whole corpora — streaming, all cores, many machines.

// Streaming tagging and its worker pool (issue 15, parts 1–2).
export type { PlainTagRequest } from "./pool/messages.js";
export type { TagPool, TagPoolOptions } from "./pool/tag-pool.js";
export { openTagPool } from "./pool/tag-pool.js";
// The job queue (BullMQ on Redis): submit, work, status, collect.
export * from "./queue/index.js";
export {
  confidenceColumns,
  confidenceFields,
  conllRecord,
  ndjsonRecord,
} from "./stream/format.js";
export type { ReadRecordsOptions, StreamFormat, StreamRecord } from "./stream/records.js";
export { readRecords, STREAM_FORMATS } from "./stream/records.js";
export type {
  SkippedRecord,
  TagSink,
  TagStreamOptions,
  TagStreamProgress,
  TagStreamResult,
} from "./stream/tag-stream.js";
export { decodingOfStats, MAX_SKIPPED_KEPT, tagStream } from "./stream/tag-stream.js";
