import type { LineBatchResult, LineBatchSpec } from "../stream/line-batch.js";
import type { LineBatch } from "../stream/records.js";
import type { TaggingSetup } from "../stream/setup.js";

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

export type TagWorkerRequest = {
  readonly id: number;
  readonly batch: LineBatch;
  readonly stripGold: boolean;
};

export type TagWorkerReply =
  | { readonly type: "ready" }
  | { readonly type: "result"; readonly id: number; readonly result: LineBatchResult }
  | {
      readonly type: "error";
      /** -1: failed while starting. */
      readonly id: number;
      readonly message: string;
      readonly code: string | undefined;
    };
