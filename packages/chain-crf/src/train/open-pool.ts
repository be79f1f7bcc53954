import type { Encoder } from "../encoder.js";
import type { ObjectivePool, ObjectivePoolOptions } from "./pool.js";

/**
 * Starts worker threads that compute Σ_i loss_i(w) and its gradient for `encoder` (restored in each
 * worker from `options.descriptor` by `options.encoderModule`'s export). Node only. close() it.
 */
export async function openObjectivePool(
  encoder: Encoder,
  options: ObjectivePoolOptions,
): Promise<ObjectivePool> {
  const { ObjectivePool } = await import("#platform");
  return ObjectivePool.open(encoder, options);
}
