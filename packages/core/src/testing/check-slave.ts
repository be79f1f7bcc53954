import { createRandom } from "../random.js";
import type { Slave } from "../solver.js";
import { forEachLabelling, MAX_ENUMERATED } from "./brute-force.js";

export interface CheckSlaveOptions {
  /** Random adjustments tried (default 50). */
  readonly trials?: number;
  readonly seed?: number;
  /** Adjustments are uniform in [−scale, scale) (default 2); the first trial is all zeros. */
  readonly scale?: number;
  /** Absolute slack on values (default 1e-9 · max(1, |value|)). */
  readonly tolerance?: number;
}

/** Thrown by {@link checkSlave}: what the slave got wrong, with the adjustment that shows it. */
export class SlaveCheckError extends Error {
  override readonly name = "SlaveCheckError";
}

/**
 * Checks a slave against enumeration of all its labellings: for the zero adjustment and `trials`
 * random ones, `maximize` must return n labels in 0..L−1 whose adjusted score is the returned
 * value, and that value must be the maximum over every labelling of score(y) + adjustment·y (−∞
 * exactly when every labelling scores −∞); `score` must never be NaN or +∞; and a repeated call
 * must give the same value (no state leaks from one call to the next). Throws a
 * {@link SlaveCheckError} naming the first failure; returns the number of calls checked.
 * For slaves small enough to enumerate (L^n ≤ MAX_ENUMERATED).
 */
export function checkSlave(
  slave: Slave,
  options: CheckSlaveOptions = {},
): { readonly calls: number } {
  const { n, L } = slave;
  const trials = options.trials ?? 50;
  const scale = options.scale ?? 2;
  const random = createRandom(options.seed ?? 1);
  if (L ** n > MAX_ENUMERATED) {
    throw new RangeError(
      `checkSlave: ${L}^${n} labellings is too many to enumerate (at most ${MAX_ENUMERATED})`,
    );
  }
  const fail = (what: string, adjustment: Float64Array): never => {
    throw new SlaveCheckError(
      `slave "${slave.name}" (n = ${n}, L = ${L}): ${what}; adjustment [${Array.from(adjustment, (x) => x.toFixed(3)).join(", ")}]`,
    );
  };
  const domains = new Int32Array(n).fill(L);
  const adjustment = new Float64Array(n * L);
  let calls = 0;
  for (let trial = 0; trial <= trials; trial++) {
    if (trial > 0)
      for (let j = 0; j < adjustment.length; j++) adjustment[j] = random.float(-scale, scale);
    let best = Number.NEGATIVE_INFINITY;
    forEachLabelling(domains, (y) => {
      const own = slave.score(y);
      if (Number.isNaN(own) || own === Number.POSITIVE_INFINITY) {
        fail(`score([${[...y].join(", ")}]) is ${own}; expected a finite number or −∞`, adjustment);
      }
      let value = own;
      for (let i = 0; i < n; i++) value += adjustment[i * L + y[i]!]!;
      if (value > best) best = value;
    });
    const slack = (v: number) => options.tolerance ?? 1e-9 * Math.max(1, Math.abs(v));
    for (let repeat = 0; repeat < 2; repeat++) {
      const result = slave.maximize(adjustment);
      calls++;
      const { labels, value } = result;
      if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
        fail(`maximize returned value ${value}`, adjustment);
      }
      if (best === Number.NEGATIVE_INFINITY) {
        if (value !== Number.NEGATIVE_INFINITY) {
          fail(`maximize returned ${value}, but every labelling scores −∞`, adjustment);
        }
        continue;
      }
      if (labels.length !== n)
        fail(`maximize returned ${labels.length} labels, expected ${n}`, adjustment);
      let adjusted = slave.score(labels);
      for (let i = 0; i < n; i++) {
        const y = labels[i]!;
        if (!(Number.isInteger(y) && y >= 0 && y < L)) {
          fail(`maximize returned label ${y} at position ${i}`, adjustment);
        }
        adjusted += adjustment[i * L + y]!;
      }
      if (Math.abs(adjusted - value) > slack(value)) {
        fail(
          `maximize returned value ${value}, but its labels [${[...labels].join(", ")}] score ${adjusted} with the adjustment`,
          adjustment,
        );
      }
      if (Math.abs(value - best) > slack(best)) {
        fail(
          `maximize returned ${value}, but the best labelling scores ${best} (${repeat === 0 ? "not exact" : "a repeated call differs: state leaks between calls"})`,
          adjustment,
        );
      }
    }
  }
  return { calls };
}
