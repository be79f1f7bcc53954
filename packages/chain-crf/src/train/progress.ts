import { type HeldOutTracker, makeProgress, now } from "./common.js";
import type { TrainerOptions } from "./types.js";

/**
 * The end of an iteration or epoch: the held-out evaluation when due, the progress report, and
 * whether to stop now: "stopped" when `onProgress` returned false, "early-stopping" when the
 * held-out score ran out of patience, else null. `seconds` counts from `started`, evaluation
 * included.
 */
export function reportIteration(
  tracker: HeldOutTracker,
  onProgress: TrainerOptions["onProgress"],
  iteration: number,
  loss: number,
  weights: Float64Array,
  started: number,
  activeFeatures?: number,
): "stopped" | "early-stopping" | null {
  const heldOut = tracker.check(iteration, weights);
  const progress = makeProgress(iteration, loss, now() - started, heldOut, activeFeatures);
  if (onProgress?.(progress) === false) return "stopped";
  if (tracker.shouldStop) return "early-stopping";
  return null;
}
