/**
 * The programming model of learning to search (chang2016): a task is one ordinary function that
 * walks an example, calls {@link Search.predict} for every decision and {@link Search.loss} for what
 * its output costs. The same function runs for prediction and for training; the library decides,
 * call by call, whether a decision comes from the learned policy, the reference, a replayed prefix or
 * a forced deviation.
 */

/** Where a task writes a decision's features: hashed into the policy's sparse input. */
export interface FeatureSink {
  /** A named feature (hashed with {@link hashString}); value 1 unless given. */
  add(name: string, value?: number): void;
  /** A feature hashed already ({@link hashString}, {@link hashCombine}); value 1 unless given. */
  addHash(hash: number, value?: number): void;
}

/** A decision's features: written into the sink on demand, so a decision the policy never scores costs nothing. */
export type Features = (sink: FeatureSink) => void;

/** One decision: VW's `predict(ec, tag, oracle, condition_on, allowed, allowed_costs, learner_id)`. */
export interface PredictRequest {
  /**
   * The decision's features. With `conditionOn` they must depend on the example and `tag` alone (the
   * library adds features of the conditioned-on predictions itself): that is what lets it hash them
   * once per example and memoise the policy's choice by the conditioned-on predictions. Without
   * `conditionOn` they may depend on anything (a parser's stack) and are never memoised.
   */
  readonly features: Features;
  /**
   * The optimal action(s) from here (gold, or an oracle's): what the reference policy takes (the
   * first one) and what a one-step deviation is measured against when nothing rolls out. Training
   * only: ignored by prediction.
   */
  readonly reference?: number | ArrayLike<number>;
  /**
   * The reference's cost-to-go of each allowed action (parallel to `allowed`, or indexed by action
   * without it): a dynamic oracle's costs. Richer than `reference`: a roll-out of `none` takes these
   * as the deviations' costs, and the reference policy takes their argmin. Training only.
   */
  readonly referenceCosts?: ArrayLike<number>;
  /** The actions allowed here (default every action of the learner); the policy never leaves them. */
  readonly allowed?: ArrayLike<number>;
  /**
   * Costs known at decision time (parallel to `allowed`, or indexed by action without it): a soft
   * rule's penalty. Added to the learned policy's predicted costs wherever it decides (prediction,
   * roll-in, roll-out), and to one-step costs when nothing rolls out.
   */
  readonly allowedCosts?: ArrayLike<number>;
  /**
   * Tags of earlier decisions this one depends on: their actions become features and key the
   * memoised policy choices (see `features`).
   */
  readonly conditionOn?: readonly number[];
  /** The decision's id, unique within one run of the task on one example (≥ 0). */
  readonly tag: number;
  /** Which of the task's action spaces (default 0): a parser's transitions and its arc labels. */
  readonly learner?: number;
}

/** What a task sees of the library. */
export interface Search {
  /** The action taken at this decision. */
  predict(request: PredictRequest): number;
  /** Adds to the run's loss (may be called many times: the losses add up). Ignored by prediction. */
  loss(value: number): void;
  /** False in training runs whose output nobody reads (roll-outs): a task may skip building it. */
  readonly outputWanted: boolean;
  /** True while training (references are read); false at prediction time. */
  readonly training: boolean;
}

/** One action space of a task: a parser has its transitions and its arc labels. */
export interface ActionSpace {
  readonly name: string;
  /** Number of actions; they are 0 … actions − 1. */
  readonly actions: number;
}

/** A structured prediction task as one program (chang2016's TDOLR program). */
export interface SearchTask<Example, Output> {
  readonly name: string;
  /** The action spaces `PredictRequest.learner` indexes (most tasks have one). */
  readonly actionSpaces: readonly ActionSpace[];
  /** Runs the task on one example: the same code trains and predicts. */
  run(example: Example, search: Search): Output;
}

/** Who takes the decisions before the one being learned. */
export type RollIn = "reference" | "learned" | "mixture";
/** Who completes the output after the deviation (`none`: one-step costs against the reference). */
export type RollOut = "reference" | "learned" | "mixture" | "none";

export const ROLL_INS: readonly RollIn[] = ["reference", "learned", "mixture"];
export const ROLL_OUTS: readonly RollOut[] = ["reference", "learned", "mixture", "none"];
