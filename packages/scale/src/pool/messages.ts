import type { LineBatchResult, LineBatchSpec } from "../stream/line-batch.js";
import type { LineBatch } from "../stream/records.js";
import type { BatchResult, InputSentence, TaggingSetup } from "../stream/setup.js";

/** What each worker receives once, as workerData: the setup is never sent again per batch. */
export interface TagWorkerData {
  /** The worker's own module (tag-worker.ts / .js), imported by the bootstrap. */
  readonly entry: string;
  readonly registerTsx: boolean;
  /** The model as bytes or a path (never a loaded model: it does not cross threads). */
  readonly setup: TaggingSetup & { readonly model: Uint8Array | string };
  readonly explain: boolean;
  /** How every batch is read and written. */
  readonly spec: LineBatchSpec;
}

/** Lines to read, tag and write (a stream), or sentences already read (a whole file of any format). */
export type TagWorkerRequest =
  | { readonly id: number; readonly batch: LineBatch; readonly stripGold: boolean }
  | { readonly id: number; readonly sentences: readonly InputSentence[] };

export type TagWorkerReply =
  | { readonly type: "ready" }
  | {
      readonly type: "result";
      readonly id: number;
      readonly result: LineBatchResult | BatchResult;
    }
  | {
      readonly type: "error";
      /** -1: failed while starting. */
      readonly id: number;
      readonly message: string;
      readonly code: string | undefined;
    };
