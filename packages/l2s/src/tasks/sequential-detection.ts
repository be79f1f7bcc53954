import type { Features, SearchTask } from "../search/types.js";

/** One element of a sequence to scan: its features and (for training) its class. */
export interface DetectionItem {
  readonly features: Features;
  /** 0 = nothing to detect; larger = rarer, more important. */
  readonly label?: number;
}

export interface SequentialDetectionOptions {
  /** Number of classes (actions 0 … classes − 1); the sequence's class is its largest item class. */
  readonly classes: number;
  /** What missing the sequence's class costs (predicting below it); over-predicting costs 1. */
  readonly falseNegativeLoss: number;
}

/**
 * chang2016's Algorithm 4 (sequential detection): decide, item by item, and keep the largest
 * prediction; the output is one class for the whole sequence, and the loss is asymmetric — a missed
 * detection costs `falseNegativeLoss`, a false alarm 1. The per-item decisions have no gold of their
 * own that the loss reads: roll-outs tell the learner what each one did to the final answer.
 * (The supplement's listing compares `max_label` it never sets; `max_value` is meant.)
 */
export function sequentialDetection(
  options: SequentialDetectionOptions,
): SearchTask<readonly DetectionItem[], number> {
  const { classes, falseNegativeLoss } = options;
  if (!Number.isInteger(classes) || classes < 2) {
    throw new RangeError(`classes ${classes}: expected an integer ≥ 2`);
  }
  if (!(falseNegativeLoss >= 0) || !Number.isFinite(falseNegativeLoss)) {
    throw new RangeError(`falseNegativeLoss ${falseNegativeLoss}: expected a finite number ≥ 0`);
  }
  return {
    name: "sequential-detection",
    actionSpaces: [{ name: "class", actions: classes }],
    run(items, search) {
      let maxLabel = 0;
      let labelled = true;
      for (const item of items) {
        if (item.label === undefined) labelled = false;
        else maxLabel = Math.max(maxLabel, item.label);
      }
      let maxPrediction = 0;
      items.forEach((item, i) => {
        const prediction = search.predict({
          features: item.features,
          ...(item.label === undefined ? {} : { reference: item.label }),
          tag: i,
        });
        maxPrediction = Math.max(maxPrediction, prediction);
      });
      if (labelled && search.training) {
        if (maxLabel > maxPrediction) search.loss(falseNegativeLoss);
        else if (maxLabel < maxPrediction) search.loss(1);
      }
      return maxPrediction;
    },
  };
}
