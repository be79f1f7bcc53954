import { checkpoints, createRandom, shuffleInPlace } from "@lagrange/core";
import type { BaseLearnerOptions } from "../learner/base-learner.js";
import { LearnedPolicy } from "./policy.js";
import { SearchRunner } from "./search-runner.js";
import type { RollIn, RollOut, SearchTask } from "./types.js";
import { ROLL_INS, ROLL_OUTS } from "./types.js";

export interface SearchTrainingOptions {
  /** Who decides before the decision being learned (default `learned`, as LOLS). */
  readonly rollIn?: RollIn;
  /**
   * Who completes the output after a deviation (default `reference`). `none` needs no roll-out: a
   * deviation costs its `referenceCosts`, or 1 when it is not a `reference` action.
   */
  readonly rollOut?: RollOut;
  /**
   * α of the mixtures (VW's interpolation rate): the reference decides with probability
   * (1 − α)^t after t training examples — per decision in a mixed roll-in (DAgger), per roll-out in
   * a mixed roll-out (LOLS). Default 1e-5.
   */
  readonly interpolation?: number;
  /**
   * Passes over the examples (a positive integer), or a rate in (0, 1): one pass that learns from
   * each decision with that probability, the paper's subsampled positions. Default 1.
   */
  readonly passes?: number;
  /** Seeds the shuffles, the subsampling and the mixtures: a seed reproduces a run. Default 1. */
  readonly seed?: number;
  /** Shuffle the examples before every pass (default true). */
  readonly shuffle?: boolean;
  /** The base learner and its settings (hash bits, learning rate, …), for a fresh policy. */
  readonly learner?: BaseLearnerOptions;
  /** Continue training this policy instead of a fresh one. */
  readonly policy?: LearnedPolicy;
  /** Called every `progressEvery` examples (default 100) and after each pass; returning false stops training. */
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are the usual case
  readonly onProgress?: (progress: SearchProgress) => boolean | void;
  readonly progressEvery?: number;
  /** Aborting throws core's AbortError between examples. */
  readonly signal?: AbortSignal;
}

export interface SearchProgress {
  /** 1-based. */
  readonly pass: number;
  readonly passes: number;
  /** Examples done in this pass. */
  readonly examples: number;
  readonly totalExamples: number;
  /** Mean loss of the roll-ins so far in this pass (the policy's own loss under roll-in learned). */
  readonly meanRollInLoss: number;
  readonly seconds: number;
}

export interface SearchTrainingResult {
  readonly policy: LearnedPolicy;
  /** Whole passes done (a subsampled run counts as one). */
  readonly passes: number;
  readonly examplesSeen: number;
  /** Cost-sensitive examples given to the learner. */
  readonly learnedDecisions: number;
  /** Task runs that completed a deviation. */
  readonly rollOuts: number;
  /** Policy queries answered from the memo of conditioned-on predictions. */
  readonly memoHits: number;
  readonly seconds: number;
  readonly stopped: boolean;
}

/** Runs a task with a learned policy: prediction, the loss ignored. */
export class SearchPredictor<Example, Output> {
  private readonly runner: SearchRunner<Example, Output>;
  constructor(task: SearchTask<Example, Output>, policy: LearnedPolicy) {
    checkPolicyFits(task, policy);
    this.runner = new SearchRunner(task, policy);
  }
  predict(example: Example): Output {
    this.runner.beginExample();
    return this.runner.predictRun(example);
  }
}

function checkPolicyFits(task: SearchTask<unknown, unknown>, policy: LearnedPolicy): void {
  const spaces = task.actionSpaces;
  if (
    spaces.length !== policy.actionSpaces.length ||
    spaces.some((s, k) => s.actions !== policy.actionSpaces[k]!.actions)
  ) {
    const show = (list: readonly { name: string; actions: number }[]) =>
      list.map((s) => `${s.name}:${s.actions}`).join(", ");
    throw new RangeError(
      `task "${task.name}" has action spaces [${show(spaces)}] but the policy was trained for [${show(policy.actionSpaces)}]`,
    );
  }
}

/**
 * Learning to search: for every example, a roll-in records the decisions; at each learned decision
 * every allowed action is tried as a one-step deviation, completed by the roll-out policy (or costed
 * in one step), and the costs become one cost-sensitive example for the base learner. With
 * rollIn = reference and rollOut = none this is supervised imitation; learned × none is DAgger
 * with one-step costs; learned × reference AggreVaTe; learned × mixture LOLS; a mixed roll-in
 * with learned roll-out SEARN-like. The policy is updated after each example's roll-outs, so every
 * roll-out of an example sees one policy.
 */
export async function trainSearch<Example, Output>(
  task: SearchTask<Example, Output>,
  examples: readonly Example[],
  options: SearchTrainingOptions = {},
): Promise<SearchTrainingResult> {
  const rollIn = options.rollIn ?? "learned";
  const rollOut = options.rollOut ?? "reference";
  if (!ROLL_INS.includes(rollIn)) {
    throw new RangeError(`rollIn "${rollIn}": expected one of ${ROLL_INS.join(", ")}`);
  }
  if (!ROLL_OUTS.includes(rollOut)) {
    throw new RangeError(`rollOut "${rollOut}": expected one of ${ROLL_OUTS.join(", ")}`);
  }
  const passesOption = options.passes ?? 1;
  const fractional = passesOption > 0 && passesOption < 1;
  if (!(fractional || (Number.isInteger(passesOption) && passesOption >= 1))) {
    throw new RangeError(
      `passes ${passesOption}: expected a positive integer, or a rate in (0, 1) for one subsampled pass`,
    );
  }
  const alpha = options.interpolation ?? 1e-5;
  if (!(alpha >= 0 && alpha <= 1)) {
    throw new RangeError(`interpolation ${alpha}: expected a probability in [0, 1]`);
  }
  const passes = fractional ? 1 : passesOption;
  const learnRate = fractional ? passesOption : 1;
  const policy = options.policy ?? new LearnedPolicy(task.actionSpaces, options.learner ?? {});
  checkPolicyFits(task, policy);
  const runner = new SearchRunner(task, policy);
  runner.memoise = rollOut === "learned" || rollOut === "mixture";
  const random = createRandom(options.seed ?? 1);
  const checkpoint = checkpoints(options.signal);
  const order = Int32Array.from({ length: examples.length }, (_, i) => i);
  const progressEvery = Math.max(1, options.progressEvery ?? 100);
  const started = performance.now();
  let costBuffer = new Float64Array(64);
  const pending: number[] = [];
  let examplesSeen = 0;
  let learnedDecisions = 0;
  let rollOuts = 0;
  let stopped = false;
  let passesDone = 0;

  for (let pass = 1; pass <= passes && !stopped; pass++) {
    if (options.shuffle ?? true) shuffleInPlace(order, random.next);
    let rollInLoss = 0;
    for (let k = 0; k < order.length; k++) {
      if (checkpoint.due()) await checkpoint.pause();
      const example = examples[order[k]!]!;
      const referenceProbability = (1 - alpha) ** examplesSeen;
      runner.beginExample();
      rollInLoss += runner.rollInRun(
        example,
        rollIn,
        referenceProbability,
        learnRate,
        rollOut === "none",
        random,
      );
      // Roll-outs first, updates after: every deviation of the example is costed under one policy.
      const decisions = runner.decisions;
      pending.length = 0;
      let costsUsed = 0;
      for (let step = 0; step < decisions; step++) {
        if (runner.decisionLearnSlot[step]! < 0) continue;
        const start = runner.decisionAllowedStart[step]!;
        const count = runner.decisionAllowedStart[step + 1]! - start;
        if (costsUsed + count > costBuffer.length) {
          const grown = new Float64Array(Math.max(costsUsed + count, costBuffer.length * 2));
          grown.set(costBuffer.subarray(0, costsUsed));
          costBuffer = grown;
        }
        if (rollOut === "none") {
          if (Number.isNaN(runner.oneStepFlat[start]!)) continue;
          for (let j = 0; j < count; j++)
            costBuffer[costsUsed + j] = runner.oneStepFlat[start + j]!;
        } else {
          for (let j = 0; j < count; j++) {
            const byReference =
              rollOut === "reference" ||
              (rollOut === "mixture" && random.next() < referenceProbability);
            costBuffer[costsUsed + j] = runner.rollOutRun(
              example,
              step,
              runner.allowedFlat[start + j]!,
              byReference,
            );
            rollOuts++;
          }
        }
        let least = Number.POSITIVE_INFINITY;
        for (let j = 0; j < count; j++) least = Math.min(least, costBuffer[costsUsed + j]!);
        for (let j = 0; j < count; j++) costBuffer[costsUsed + j]! -= least;
        pending.push(step, costsUsed);
        costsUsed += count;
      }
      for (let p = 0; p < pending.length; p += 2) {
        const step = pending[p]!;
        const offset = pending[p + 1]!;
        const start = runner.decisionAllowedStart[step]!;
        const count = runner.decisionAllowedStart[step + 1]! - start;
        policy.learners[runner.decisionLearner[step]!]!.update(
          runner.learnFeatures.at(runner.decisionLearnSlot[step]!),
          runner.allowedFlat.subarray(start, start + count),
          costBuffer.subarray(offset, offset + count),
          count,
        );
        learnedDecisions++;
      }
      examplesSeen++;
      if (options.onProgress !== undefined && (k + 1) % progressEvery === 0) {
        const goOn = options.onProgress({
          pass,
          passes,
          examples: k + 1,
          totalExamples: examples.length,
          meanRollInLoss: rollInLoss / (k + 1),
          seconds: (performance.now() - started) / 1000,
        });
        if (goOn === false) {
          stopped = true;
          break;
        }
      }
    }
    if (!stopped) {
      passesDone = pass;
      if (
        options.onProgress?.({
          pass,
          passes,
          examples: examples.length,
          totalExamples: examples.length,
          meanRollInLoss: examples.length === 0 ? 0 : rollInLoss / examples.length,
          seconds: (performance.now() - started) / 1000,
        }) === false
      ) {
        stopped = true;
      }
    }
  }
  // An averaging learner predicts with its averaged weights: the trained policy is that snapshot.
  const trained = policy.learners.some((l) => l.averages)
    ? new LearnedPolicy(
        policy.actionSpaces,
        policy.learners.map((l) => l.averaged()),
      )
    : policy;
  return {
    policy: trained,
    passes: passesDone,
    examplesSeen,
    learnedDecisions,
    rollOuts,
    memoHits: runner.memoHits,
    seconds: (performance.now() - started) / 1000,
    stopped,
  };
}
