import type { Sentence } from "@lagrange/datasets";
import type { TaggedBatch, TaggingSpec, TagRequest } from "@lagrange/recipes";
import type { LineBatchResult, LineBatchSpec } from "../stream/line-batch.js";
import type { LineBatch } from "../stream/records.js";

/** A tag request as plain data, what crosses to a worker (a signal or a callback does not). */
export type PlainTagRequest = Omit<TagRequest, "signal" | "onProgress">;

/** What each worker receives once, as workerData: the tagger is never sent again per batch. */
export interface TagWorkerData {
  /** The worker's own module (tag-worker.ts / .js), imported by the bootstrap. */
  readonly entry: string;
  readonly registerTsx: boolean;
  /** The tagger's spec, the model's bytes in place of its path: each worker opens it once. */
  readonly tagging: TaggingSpec & { readonly model: Uint8Array };
  /** How every batch of lines is read and written (a pool that is sent lines). */
  readonly lines: LineBatchSpec | undefined;
}

/** Lines to read, tag and write (a stream), or sentences already read (a whole file of any format). */
export type TagWorkerRequest =
  | { readonly id: number; readonly batch: LineBatch; readonly stripGold: boolean }
  | {
      readonly id: number;
      readonly sentences: readonly Sentence[];
      readonly request: PlainTagRequest | undefined;
    };

export type TagWorkerReply =
  | { readonly type: "ready" }
  | {
      readonly type: "result";
      readonly id: number;
      readonly result: LineBatchResult | TaggedBatch;
    }
  | {
      readonly type: "error";
      /** -1: failed while starting. */
      readonly id: number;
      readonly message: string;
      readonly code: string | undefined;
    };
