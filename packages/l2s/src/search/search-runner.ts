import { createRandom, type Random } from "@lagrange/core";
import { HashedFeatures } from "../features/hashing.js";
import { addConditionFeatures, type LearnedPolicy, writeInputFeatures } from "./policy.js";
import type { PredictRequest, RollIn, Search, SearchTask } from "./types.js";

/** A task program misbehaved (not deterministic, a bad request): the message says how. */
export class SearchTaskError extends Error {
  override readonly name = "SearchTaskError";
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
export class SearchRunner<Example, Output> implements Search {
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
