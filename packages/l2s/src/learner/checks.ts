/** The arguments every base learner's `addScores` and `update` check, with the same messages. */

/**
 * A hashed weight table's action count and size: each feature's actions occupy consecutive slots,
 * so more actions than slots would make two actions of one feature share a weight and never be
 * told apart.
 */
export function checkTableShape(where: string, actions: number, bits: number): void {
  if (!Number.isInteger(actions) || actions < 1) {
    throw new RangeError(`${where}: actions must be an integer ≥ 1, got ${actions}`);
  }
  if (!Number.isInteger(bits) || bits < 1 || bits > 30) {
    throw new RangeError(`${where}: bits must be an integer in 1..30, got ${bits}`);
  }
  if (actions > 2 ** bits) {
    throw new RangeError(
      `${where}: actions (${actions}) must not exceed the table's 2^bits = ${2 ** bits} slots`,
    );
  }
}

export function checkScoreBuffer(actions: number, out: Float64Array): void {
  if (out.length < actions) {
    throw new RangeError(
      `addScores: out must hold ≥ ${actions} scores (one per action), got ${out.length}`,
    );
  }
}

export function checkExample(
  learnerActions: number,
  actions: ArrayLike<number>,
  costs: ArrayLike<number>,
  count: number,
  importance: number,
): void {
  if (!Number.isInteger(count) || count < 0 || count > actions.length || count > costs.length) {
    throw new RangeError(
      `update: count must be an integer in 0..min(actions.length, costs.length) = ` +
        `${Math.min(actions.length, costs.length)}, got ${count}`,
    );
  }
  if (!(Number.isFinite(importance) && importance >= 0)) {
    throw new RangeError(`update: importance must be a finite number ≥ 0, got ${importance}`);
  }
  for (let i = 0; i < count; i++) {
    const a = actions[i]!;
    if (!Number.isInteger(a) || a < 0 || a >= learnerActions) {
      throw new RangeError(
        `update: actions[${i}] must be an integer in 0..${learnerActions - 1}, got ${a}`,
      );
    }
    if (!Number.isFinite(costs[i]!)) {
      throw new RangeError(`update: costs[${i}] must be finite, got ${costs[i]}`);
    }
  }
}
