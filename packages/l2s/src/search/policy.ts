import { type HashedFeatures, hashCombine } from "../features/hashing.js";
import {
  type BaseLearnerOptions,
  type CostSensitiveLearner,
  createLearner,
} from "../learner/base-learner.js";
import type { ActionSpace, PredictRequest } from "./types.js";

/** Seeds of the features the library adds itself, apart from every task's hashes. */
export const BIAS_HASH = 0x5eed_b1a5;
const CONDITION_SEED = 0x0c0d_1710;
const MISSING_ACTION = 0x7fff_ffff;

/**
 * The learned policy: one cost-sensitive regressor per action space. It picks, among the allowed
 * actions, the one of least predicted cost (plus the request's known costs).
 */
export class LearnedPolicy {
  readonly learners: CostSensitiveLearner[];

  constructor(
    readonly actionSpaces: readonly ActionSpace[],
    learners: CostSensitiveLearner[] | BaseLearnerOptions = {},
  ) {
    if (actionSpaces.length === 0) throw new RangeError("a task needs at least one action space");
    for (const space of actionSpaces) {
      if (!Number.isInteger(space.actions) || space.actions < 1) {
        throw new RangeError(
          `action space "${space.name}": expected a positive integer number of actions, got ${space.actions}`,
        );
      }
    }
    if (Array.isArray(learners)) {
      if (learners.length !== actionSpaces.length) {
        throw new RangeError(
          `expected ${actionSpaces.length} learners (one per action space), got ${learners.length}`,
        );
      }
      learners.forEach((learner, k) => {
        if (learner.actions !== actionSpaces[k]!.actions) {
          throw new RangeError(
            `action space "${actionSpaces[k]!.name}" has ${actionSpaces[k]!.actions} actions; its learner has ${learner.actions}`,
          );
        }
      });
      this.learners = learners;
    } else {
      const options = learners;
      this.learners = actionSpaces.map((s) => createLearner(s.actions, options));
    }
  }

  learnerOf(request: PredictRequest): number {
    const k = request.learner ?? 0;
    if (!Number.isInteger(k) || k < 0 || k >= this.learners.length) {
      throw new RangeError(
        `predict: learner ${k} (tag ${request.tag}): expected an action space index 0…${this.learners.length - 1}`,
      );
    }
    return k;
  }
}

/**
 * Writes a request's own features plus the bias into `out` (cleared first). The conditioned-on
 * predictions are added separately ({@link addConditionFeatures}), so that the part that depends
 * only on the example can be hashed and scored once per tag.
 */
export function writeInputFeatures(request: PredictRequest, out: HashedFeatures): HashedFeatures {
  out.clear();
  request.features(out);
  out.addHash(BIAS_HASH);
  return out;
}

/**
 * The conditioned-on predictions as features: each one's action at its place in `conditionOn`, and
 * (with two or more) their joint tuple, as a first-order chain's transition and a second-order one.
 */
export function addConditionFeatures(
  conditionActions: ArrayLike<number>,
  count: number,
  out: HashedFeatures,
): void {
  let joint = CONDITION_SEED;
  for (let j = 0; j < count; j++) {
    const action = conditionActions[j]!;
    const value = action < 0 ? MISSING_ACTION : action;
    out.addHash(hashCombine(CONDITION_SEED + j + 1, value));
    joint = hashCombine(joint, value);
  }
  if (count >= 2) out.addHash(joint);
}
