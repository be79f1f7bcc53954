import {
  AbortError,
  checkpoints,
  seededRandom,
  shuffleInPlace,
  yieldToEventLoop,
} from "@lagrange/core";
import type { Encoder } from "../encoder.js";
import {
  checkPositiveInteger,
  HeldOutTracker,
  maxInstanceLength,
  now,
  startingWeights,
} from "./common.js";
import { reportIteration } from "./progress.js";
import type { StopReason, TrainerOptions, TrainResult } from "./types.js";

export interface PerceptronOptions extends TrainerOptions {
  /** Passes over the data (CRFsuite `max_iterations`, default 100). */
  readonly epochs?: number;
  /** Seed of the per-epoch shuffle (default 0). */
  readonly seed?: number;
  /** Visit instances in a fresh random order each epoch (default true). */
  readonly shuffle?: boolean;
  /**
   * Class weights per label id: a mistake's update at a token is scaled by the weight of its
   * gold label (a transition's by the mean of its two tokens'). Absent: CRFsuite's update.
   */
  readonly classWeights?: Float64Array;
}

const TRAINER = "trainAveragedPerceptron";

/**
 * Averaged structured perceptron (Collins 2002) as CRFsuite's `ap` trainer: on a mistake, add the
 * gold feature counts and subtract the predicted ones. The average over all steps is kept with the
 * lazy trick of Daumé (2006): besides w, accumulate c·update in `ws` at step c, so that the average
 * is w − ws/c and every update stays sparse. Progress reports token mistakes per epoch.
 */
/** Epochs when the caller sets none. */
export const PERCEPTRON_DEFAULT_EPOCHS = 100;

export async function trainAveragedPerceptron(
  encoder: Encoder,
  options: PerceptronOptions = {},
): Promise<TrainResult> {
  const started = now();
  const epochs = options.epochs ?? PERCEPTRON_DEFAULT_EPOCHS;
  checkPositiveInteger(TRAINER, "epochs", epochs);
  const w = startingWeights(TRAINER, encoder, options);
  const K = encoder.numWeights;
  const N = encoder.numInstances;
  const ws = new Float64Array(K);
  const average = Float64Array.from(w);
  const predicted = new Int32Array(maxInstanceLength(encoder));
  const classWeights = options.classWeights;
  if (classWeights !== undefined && classWeights.length !== encoder.numLabels) {
    throw new RangeError(
      `${TRAINER} options: classWeights has length ${classWeights.length}, expected ${encoder.numLabels}`,
    );
  }
  // A weight ≤ 0 would turn a mistake's update around (or off) without a word.
  const bad = classWeights?.findIndex((x) => !(x > 0 && Number.isFinite(x))) ?? -1;
  if (bad >= 0) {
    throw new RangeError(
      `${TRAINER} options: classWeights[${bad}] is ${classWeights![bad]}; expected a finite number > 0`,
    );
  }
  const scales = classWeights === undefined ? undefined : new Float64Array(predicted.length);
  const order = Int32Array.from({ length: N }, (_, i) => i);
  const random = seededRandom(options.seed ?? 0);
  const tracker = new HeldOutTracker(options.heldOut, K);
  const signal = options.signal;
  // Between sentences: throws once aborted, and lets the event loop turn every few milliseconds
  // (an epoch over a large corpus takes seconds, and a signal's handler must run meanwhile).
  const checkpoint = checkpoints(signal);
  let c = 1;
  let mistakes = 0;
  let epoch = 0;
  let stopReason: StopReason = "max-iterations";

  while (epoch < epochs) {
    epoch++;
    if (options.shuffle ?? true) shuffleInPlace(order, random);
    mistakes = 0;
    for (let k = 0; k < N; k++) {
      if (checkpoint.due()) await checkpoint.pause();
      const i = order[k]!;
      const n = encoder.instanceLength(i);
      const gold = encoder.goldLabels(i);
      encoder.decode(i, w, predicted);
      let wrong = 0;
      for (let t = 0; t < n; t++) if (predicted[t] !== gold[t]) wrong++;
      if (wrong > 0) {
        const path = predicted.subarray(0, n);
        if (scales !== undefined) for (let t = 0; t < n; t++) scales[t] = classWeights![gold[t]!]!;
        encoder.addFeatureCounts(i, gold, 1, w, scales);
        encoder.addFeatureCounts(i, path, -1, w, scales);
        encoder.addFeatureCounts(i, gold, c, ws, scales);
        encoder.addFeatureCounts(i, path, -c, ws, scales);
        mistakes += wrong;
      }
      c++;
    }
    for (let j = 0; j < K; j++) average[j] = w[j]! - ws[j]! / c;

    const stop = reportIteration(tracker, options.onProgress, epoch, mistakes, average, started);
    if (stop !== null) {
      stopReason = stop;
      break;
    }
    if (mistakes === 0) {
      stopReason = "no-mistakes";
      break;
    }
    await yieldToEventLoop();
    if (signal?.aborted) throw new AbortError();
  }
  const base = {
    weights: tracker.finalWeights(average),
    iterations: epoch,
    loss: mistakes,
    seconds: now() - started,
    stopReason,
  };
  return tracker.best === undefined ? base : { ...base, bestHeldOut: tracker.best };
}
