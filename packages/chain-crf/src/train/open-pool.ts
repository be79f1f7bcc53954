import type { Encoder } from "../encoder.ts";
import type { ObjectivePool, ObjectivePoolOptions } from "./pool.ts";

/**
 * Starts worker threads that compute Σ_i loss_i(w) and its gradient for `encoder` (restored in each
 * worker from `options.descriptor` by `options.encoderModule`'s export). Node only. close() it.
 */
export async function openObjectivePool(
  encoder: Encoder,
  options: ObjectivePoolOptions,
): Promise<ObjectivePool> {
  const pool = await import("./pool.ts");
  return pool.ObjectivePool.open(encoder, options);
}
