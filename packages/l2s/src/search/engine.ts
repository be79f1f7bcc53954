import { checkpoints, createRandom, type Random, shuffleInPlace } from "@lagrange/core";
import { HashedFeatures } from "../features/hashing.js";
import type { BaseLearnerOptions } from "../learner/base-learner.js";
import { addConditionFeatures, LearnedPolicy, writeInputFeatures } from "./policy.js";
import type { PredictRequest, RollIn, RollOut, Search, SearchTask } from "./types.js";
import { ROLL_INS, ROLL_OUTS } from "./types.js";

/** A task program misbehaved (not deterministic, a bad request): the message says how. */
export class SearchTaskError extends Error {
  override readonly name = "SearchTaskError";
}

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

type Mode = "predict" | "roll-in" | "roll-out";

/**
 * One growable pool of vectors, indexed by slot and reused from example to example, so the
 * steady state allocates nothing.
 */
class FeaturePool {
  private readonly items: HashedFeatures[] = [];
  used = 0;
  take(): HashedFeatures {
    if (this.used === this.items.length) this.items.push(new HashedFeatures());
    return this.items[this.used++]!.clear();
  }
  at(slot: number): HashedFeatures {
    return this.items[slot]!;
  }
}

class ScorePool {
  private readonly items: Float64Array[] = [];
  used = 0;
  constructor(private readonly width: number) {}
  take(): Float64Array {
    if (this.used === this.items.length) this.items.push(new Float64Array(this.width));
    const scores = this.items[this.used++]!;
    scores.fill(0);
    return scores;
  }
}

/**
 * Runs a task program under one of three regimes and is the `Search` it sees: prediction by the
 * learned policy; a roll-in that records every decision; a roll-out that replays a roll-in's prefix,
 * forces one deviation and completes by a roll-out policy.
 *
 * Two economies make the O(T²·A) roll-outs cheap (chang2016 §4's memoisation and forced paths):
 * decisions that declare `conditionOn` have their example-only features hashed and scored once per
 * tag, and their full score vectors memoised by the conditioned-on actions — across the roll-in and
 * every roll-out of the example, since the policy only changes between examples; and a decision
 * taken by a deterministic reference (or replayed from the prefix) never calls the features or the
 * learner at all.
 */
class SearchRunner<Example, Output> implements Search {
  mode: Mode = "predict";
  training = false;
  outputWanted = true;

  private step = 0;
  private lossSum = 0;
  private readonly tagActions = new Map<number, number>();

  // Per-example caches of decisions with conditionOn.
  /** Per learner: tag → slot of its hashed example-only features and their scores. */
  private readonly tagSlots: Map<number, number>[];
  private readonly tagFeatures = new FeaturePool();
  private readonly tagScores: ScorePool[];
  private readonly memo = new Map<string, Float64Array>();
  private readonly memoScores: ScorePool[];
  /**
   * Memoise conditioned score vectors: only worth its keys when learned roll-outs revisit a
   * decision; a prediction, a roll-in or a reference roll-out meets each one about once.
   */
  memoise = false;
  memoHits = 0;

  // Recorded roll-in.
  decisions = 0;
  decisionTags = new Int32Array(64);
  decisionLearner = new Int32Array(64);
  decisionAction = new Int32Array(64);
  /** Slot into `learnFeatures` when the decision is learned from, else −1. */
  decisionLearnSlot = new Int32Array(64);
  /** Offsets into `allowedFlat` / `oneStepFlat` (length decisions + 1). */
  decisionAllowedStart = new Int32Array(65);
  allowedFlat = new Int32Array(256);
  /** One-step cost of each allowed action (NaN: no reference information). */
  oneStepFlat = new Float64Array(256);
  readonly learnFeatures = new FeaturePool();

  // Roll-out control.
  private deviationStep = -1;
  private deviationAction = -1;
  private rollOutByReference = false;

  // Roll-in control.
  private rollInPolicy: RollIn = "learned";
  private referenceProbability = 0;
  private learnRate = 1;
  private random: Random = createRandom(1);
  private recordOneStep = false;

  private readonly allActions: Int32Array[];
  private readonly scratchScores: Float64Array[];
  private readonly scratch = new HashedFeatures();
  private readonly conditionActions = new Int32Array(16);

  constructor(
    readonly task: SearchTask<Example, Output>,
    readonly policy: LearnedPolicy,
  ) {
    const spaces = task.actionSpaces;
    this.allActions = spaces.map((s) => Int32Array.from({ length: s.actions }, (_, a) => a));
    this.scratchScores = spaces.map((s) => new Float64Array(s.actions));
    this.tagScores = spaces.map((s) => new ScorePool(s.actions));
    this.tagSlots = spaces.map(() => new Map<number, number>());
    this.memoScores = spaces.map((s) => new ScorePool(s.actions));
  }

  /** Forget the previous example's caches (the policy may have changed since). */
  beginExample(): void {
    for (const slots of this.tagSlots) slots.clear();
    this.tagFeatures.used = 0;
    for (const pool of this.tagScores) pool.used = 0;
    this.memo.clear();
    for (const pool of this.memoScores) pool.used = 0;
    this.learnFeatures.used = 0;
    this.decisions = 0;
  }

  /** Prediction by the learned policy; the output. */
  predictRun(example: Example): Output {
    this.mode = "predict";
    this.training = false;
    this.outputWanted = true;
    return this.execute(example);
  }

  /** A recorded roll-in; its loss. */
  rollInRun(
    example: Example,
    policy: RollIn,
    referenceProbability: number,
    learnRate: number,
    recordOneStep: boolean,
    random: Random,
  ): number {
    this.mode = "roll-in";
    this.training = true;
    this.outputWanted = false;
    this.rollInPolicy = policy;
    this.referenceProbability = referenceProbability;
    this.learnRate = learnRate;
    this.recordOneStep = recordOneStep;
    this.random = random;
    this.decisions = 0;
    this.decisionAllowedStart[0] = 0;
    this.execute(example);
    return this.lossSum;
  }

  /** The loss of the roll-in's prefix, `action` at decision `step`, then the roll-out policy. */
  rollOutRun(example: Example, step: number, action: number, byReference: boolean): number {
    this.mode = "roll-out";
    this.training = true;
    this.outputWanted = false;
    this.deviationStep = step;
    this.deviationAction = action;
    this.rollOutByReference = byReference;
    this.execute(example);
    return this.lossSum;
  }

  private execute(example: Example): Output {
    this.step = 0;
    this.lossSum = 0;
    this.tagActions.clear();
    return this.task.run(example, this);
  }

  loss(value: number): void {
    if (!Number.isFinite(value)) {
      throw new SearchTaskError(`${this.task.name}: loss(${value}): expected a finite number`);
    }
    this.lossSum += value;
  }

  predict(request: PredictRequest): number {
    if (!Number.isInteger(request.tag) || request.tag < 0) {
      throw new SearchTaskError(
        `${this.task.name}: predict: tag ${request.tag}: expected an integer ≥ 0, unique within the run`,
      );
    }
    const step = this.step++;
    const learner = this.policy.learnerOf(request);
    const allowed = this.allowedOf(request, learner);
    let action: number;
    switch (this.mode) {
      case "predict":
        action = this.learnedAction(request, learner, allowed);
        break;
      case "roll-in": {
        const byReference =
          this.rollInPolicy === "reference" ||
          (this.rollInPolicy === "mixture" && this.random.next() < this.referenceProbability);
        const reference = byReference ? referenceAction(request, allowed) : -1;
        action = reference >= 0 ? reference : this.learnedAction(request, learner, allowed);
        this.record(step, request, learner, allowed, action);
        break;
      }
      case "roll-out":
        if (step < this.deviationStep) {
          if (this.decisionTags[step] !== request.tag) {
            throw new SearchTaskError(
              `${this.task.name}: decision ${step} has tag ${request.tag} but had tag ${this.decisionTags[step]} in the roll-in; a task must make the same decisions when given the same actions`,
            );
          }
          action = this.decisionAction[step]!;
        } else if (step === this.deviationStep) {
          action = this.deviationAction;
        } else {
          const reference = this.rollOutByReference ? referenceAction(request, allowed) : -1;
          action = reference >= 0 ? reference : this.learnedAction(request, learner, allowed);
        }
        break;
    }
    this.tagActions.set(request.tag, action);
    return action;
  }

  private allowedOf(request: PredictRequest, learner: number): ArrayLike<number> {
    const allowed = request.allowed;
    const actions = this.allActions[learner]!.length;
    // Costs are parallel to `allowed`, or indexed by action without it: one per entry, always.
    this.checkCosts(request, "allowedCosts", request.allowedCosts, actions);
    this.checkCosts(request, "referenceCosts", request.referenceCosts, actions);
    if (allowed === undefined) return this.allActions[learner]!;
    if (allowed.length === 0) {
      throw new SearchTaskError(
        `${this.task.name}: predict (tag ${request.tag}): no allowed action; expected at least one`,
      );
    }
    for (let j = 0; j < allowed.length; j++) {
      const a = allowed[j]!;
      if (!Number.isInteger(a) || a < 0 || a >= actions) {
        throw new SearchTaskError(
          `${this.task.name}: predict (tag ${request.tag}): allowed action ${a}: expected an integer in 0…${actions - 1}`,
        );
      }
    }
    return allowed;
  }

  private checkCosts(
    request: PredictRequest,
    field: string,
    costs: ArrayLike<number> | undefined,
    actions: number,
  ): void {
    if (costs === undefined) return;
    const allowed = request.allowed;
    const expected = allowed === undefined ? actions : allowed.length;
    if (costs.length === expected) return;
    throw new SearchTaskError(
      `${this.task.name}: predict (tag ${request.tag}): ${costs.length} ${field} for ${expected} ${allowed === undefined ? "actions" : "allowed actions"}; expected one each`,
    );
  }

  /** The learned policy's choice: least predicted cost plus known cost among the allowed. */
  private learnedAction(
    request: PredictRequest,
    learner: number,
    allowed: ArrayLike<number>,
  ): number {
    const scores = this.scoresOf(request, learner);
    const known = request.allowedCosts;
    const indexedByAction = request.allowed === undefined;
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let j = 0; j < allowed.length; j++) {
      const a = allowed[j]!;
      const extra = known === undefined ? 0 : known[indexedByAction ? a : j]!;
      const cost = scores[a]! + extra;
      if (cost < bestCost || best < 0) {
        bestCost = cost;
        best = a;
      }
    }
    return best;
  }

  /** Predicted costs of every action of the learner (a view valid until the next call). */
  private scoresOf(request: PredictRequest, learner: number): Float64Array {
    const regressor = this.policy.learners[learner]!;
    const conditionOn = request.conditionOn;
    if (conditionOn === undefined) {
      const scores = this.scratchScores[learner]!;
      scores.fill(0);
      regressor.addScores(writeInputFeatures(request, this.scratch), scores);
      return scores;
    }
    const count = this.conditionedActions(conditionOn);
    const key = this.memoise ? memoKey(request.tag, learner, this.conditionActions, count) : "";
    if (this.memoise) {
      const memoised = this.memo.get(key);
      if (memoised !== undefined) {
        this.memoHits++;
        return memoised;
      }
    }
    const slot = this.tagSlot(request, learner);
    const scores = this.memoise ? this.memoScores[learner]!.take() : this.scratchScores[learner]!;
    scores.set(this.tagScoreSlots[slot]!);
    this.scratch.clear();
    addConditionFeatures(this.conditionActions, count, this.scratch);
    regressor.addScores(this.scratch, scores);
    if (this.memoise) this.memo.set(key, scores);
    return scores;
  }

  private conditionedActions(conditionOn: readonly number[]): number {
    if (conditionOn.length > this.conditionActions.length) {
      throw new SearchTaskError(
        `${this.task.name}: conditionOn lists ${conditionOn.length} tags; expected at most ${this.conditionActions.length}`,
      );
    }
    for (let j = 0; j < conditionOn.length; j++) {
      this.conditionActions[j] = this.tagActions.get(conditionOn[j]!) ?? -1;
    }
    return conditionOn.length;
  }

  // Slots of tags: the example-only features hashed once and their scores.
  private readonly tagScoreSlots: Float64Array[] = [];
  private tagSlot(request: PredictRequest, learner: number): number {
    const known = this.tagSlots[learner]!.get(request.tag);
    if (known !== undefined) return known;
    const slot = this.tagFeatures.used;
    const features = this.tagFeatures.take();
    writeInputFeatures(request, features);
    const scores = this.tagScores[learner]!.take();
    this.policy.learners[learner]!.addScores(features, scores);
    this.tagScoreSlots[slot] = scores;
    this.tagSlots[learner]!.set(request.tag, slot);
    return slot;
  }

  private record(
    step: number,
    request: PredictRequest,
    learner: number,
    allowed: ArrayLike<number>,
    action: number,
  ): void {
    if (step >= this.decisionTags.length) this.growDecisions(step + 1);
    this.decisionTags[step] = request.tag;
    this.decisionLearner[step] = learner;
    this.decisionAction[step] = action;
    this.decisions = step + 1;
    const start = this.decisionAllowedStart[step]!;
    const end = start + allowed.length;
    if (end > this.allowedFlat.length) this.growAllowed(end);
    for (let j = 0; j < allowed.length; j++) this.allowedFlat[start + j] = allowed[j]!;
    this.decisionAllowedStart[step + 1] = end;
    const learnHere =
      allowed.length > 1 && (this.learnRate >= 1 || this.random.next() < this.learnRate);
    if (!learnHere) {
      this.decisionLearnSlot[step] = -1;
      return;
    }
    if (this.recordOneStep) this.writeOneStepCosts(request, allowed, start);
    // The example's features: what the policy saw here, conditioned-on actions included.
    this.decisionLearnSlot[step] = this.learnFeatures.used;
    const features = this.learnFeatures.take();
    if (request.conditionOn === undefined) {
      writeInputFeatures(request, features);
    } else {
      const slot = this.tagSlot(request, learner);
      features.copyFrom(this.tagFeatures.at(slot));
      const count = this.conditionedActions(request.conditionOn);
      addConditionFeatures(this.conditionActions, count, features);
    }
  }

  private writeOneStepCosts(
    request: PredictRequest,
    allowed: ArrayLike<number>,
    start: number,
  ): void {
    const indexedByAction = request.allowed === undefined;
    const known = request.allowedCosts;
    const referenceCosts = request.referenceCosts;
    const reference = request.reference;
    for (let j = 0; j < allowed.length; j++) {
      const a = allowed[j]!;
      const at = indexedByAction ? a : j;
      let cost: number;
      if (referenceCosts !== undefined) cost = referenceCosts[at]!;
      else if (reference !== undefined) cost = isReference(reference, a) ? 0 : 1;
      else cost = Number.NaN;
      if (known !== undefined) cost += known[at]!;
      this.oneStepFlat[start + j] = cost;
    }
  }

  private growDecisions(need: number): void {
    const size = Math.max(need, this.decisionTags.length * 2);
    const grow = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.decisionTags = grow(this.decisionTags);
    this.decisionLearner = grow(this.decisionLearner);
    this.decisionAction = grow(this.decisionAction);
    this.decisionLearnSlot = grow(this.decisionLearnSlot);
    const starts = new Int32Array(size + 1);
    starts.set(this.decisionAllowedStart);
    this.decisionAllowedStart = starts;
  }

  private growAllowed(need: number): void {
    const size = Math.max(need, this.allowedFlat.length * 2);
    const allowed = new Int32Array(size);
    allowed.set(this.allowedFlat);
    this.allowedFlat = allowed;
    const costs = new Float64Array(size);
    costs.set(this.oneStepFlat);
    this.oneStepFlat = costs;
  }
}

function memoKey(tag: number, learner: number, actions: Int32Array, count: number): string {
  let key = `${tag}/${learner}`;
  for (let j = 0; j < count; j++) key += `,${actions[j]}`;
  return key;
}

function isReference(reference: number | ArrayLike<number>, action: number): boolean {
  return typeof reference === "number" ? reference === action : includes(reference, action);
}

/**
 * The reference policy's action: the allowed action of least `referenceCosts`, else the first
 * `reference` action that is allowed; −1 when the request gives no usable reference (the learned
 * policy decides then).
 */
function referenceAction(request: PredictRequest, allowed: ArrayLike<number>): number {
  const costs = request.referenceCosts;
  const indexedByAction = request.allowed === undefined;
  if (costs !== undefined) {
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let j = 0; j < allowed.length; j++) {
      const c = costs[indexedByAction ? allowed[j]! : j]!;
      if (c < bestCost) {
        bestCost = c;
        best = allowed[j]!;
      }
    }
    return best;
  }
  const reference = request.reference;
  if (reference === undefined) return -1;
  if (typeof reference === "number") return includes(allowed, reference) ? reference : -1;
  for (let j = 0; j < reference.length; j++) {
    if (includes(allowed, reference[j]!)) return reference[j]!;
  }
  return -1;
}

function includes(list: ArrayLike<number>, value: number): boolean {
  for (let j = 0; j < list.length; j++) if (list[j] === value) return true;
  return false;
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
