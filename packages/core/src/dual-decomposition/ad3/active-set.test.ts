import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRandom, type Random } from "../../random.js";
import { ActiveSetSolver } from "./active-set.js";
import type { BinaryFactor } from "./binary-factor.js";

/** A factor given by an explicit list of configurations and their scores. */
function listedFactor(
  random: Random,
  maxSize = 6,
  maxConfigs = 12,
): {
  factor: BinaryFactor;
  configs: number[][];
  scores: number[];
} {
  const size = random.int(1, maxSize);
  const count = random.int(1, Math.min(maxConfigs, 2 ** size));
  const seen = new Set<string>();
  const configs: number[][] = [];
  const scores: number[] = [];
  while (configs.length < count) {
    const z = Array.from({ length: size }, () => (random.bool() ? 1 : 0));
    const key = z.join("");
    if (seen.has(key)) continue;
    seen.add(key);
    configs.push(z);
    scores.push(random.pick([0, 0, random.next() * 4 - 2]));
  }
  const factor: BinaryFactor = {
    name: "listed",
    size,
    map(adjustment, out) {
      let best = Number.NEGATIVE_INFINITY;
      configs.forEach((z, c) => {
        let value = scores[c]!;
        for (let j = 0; j < size; j++) value += adjustment[j]! * z[j]!;
        if (value > best) {
          best = value;
          for (let j = 0; j < size; j++) out[j] = z[j]!;
        }
      });
      return best;
    },
    score(z) {
      const key = Array.from(z).join("");
      const c = configs.findIndex((x) => x.join("") === key);
      return c < 0 ? Number.NEGATIVE_INFINITY : scores[c]!;
    },
  };
  return { factor, configs, scores };
}

/** Projects `calls` random points in turn and checks each against the optimality conditions. */
function checkWarmCalls(
  random: Random,
  listed: ReturnType<typeof listedFactor>,
  calls: number,
  maxSteps?: number,
): void {
  const { factor, configs, scores } = listed;
  const solver = new ActiveSetSolver(factor, undefined, undefined, undefined, maxSteps);
  const q = new Float64Array(factor.size);
  for (let call = 0; call < calls; call++) {
    const v = Float64Array.from({ length: factor.size }, () => random.next() * 3 - 1);
    const scale = random.pick([0.1, 1, 5]);
    solver.project(v, scale, q);
    // The KKT conditions of min ½‖q − v‖² − scale·s·μ over the simplex: no configuration
    // improves on the mixture's level scale·s·μ + q·(v − q).
    let level = scale * solver.relaxedScore();
    for (let j = 0; j < factor.size; j++) level += q[j]! * (v[j]! - q[j]!);
    configs.forEach((z, c) => {
      let value = scale * scores[c]!;
      for (let j = 0; j < factor.size; j++) value += z[j]! * (v[j]! - q[j]!);
      expect(value).toBeLessThanOrEqual(level + 1e-8);
    });
    for (let j = 0; j < factor.size; j++) {
      expect(q[j]).toBeGreaterThanOrEqual(-1e-12);
      expect(q[j]).toBeLessThanOrEqual(1 + 1e-12);
    }
  }
}

describe("active-set quadratic step (AD3's generic factor)", () => {
  it("meets the optimality conditions over every configuration, warm-started call after call", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        checkWarmCalls(random, listedFactor(random), 4);
      }),
      { numRuns: 400, seed: 29 },
    );
  });

  it("keeps its solution exact over many calls on larger factors", () => {
    // Dozens of insertions and removals per solver: the kept inverse must not drift, and
    // affinely dependent configurations (common among 40 of 10 variables) must still solve.
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        // (Steps enough to finish: the default stops at AD3's 10, as an ADMM iteration may.)
        checkWarmCalls(random, listedFactor(random, 10, 40), 30, 200);
      }),
      { numRuns: 150, seed: 41 },
    );
  });

  it("takes at most AD3's 10 steps a call by default (a MAP call each, after the first)", () => {
    // Every 0/1 vector of 12 variables, scored 0: the projection of a point inside the cube is
    // the point itself, a mixture of 13 configurations, more than 10 steps can gather.
    const size = 12;
    let calls = 0;
    const cube: BinaryFactor = {
      name: "cube",
      size,
      map(adjustment, out) {
        calls++;
        let value = 0;
        for (let j = 0; j < size; j++) {
          out[j] = adjustment[j]! > 0 ? 1 : 0;
          value += Math.max(0, adjustment[j]!);
        }
        return value;
      },
      score: () => 0,
    };
    const random = createRandom(41);
    const v = Float64Array.from({ length: size }, () => 0.05 + 0.9 * random.next());
    const q = new Float64Array(size);
    new ActiveSetSolver(cube).project(v, 1, q);
    expect(calls).toBe(11);
    calls = 0;
    new ActiveSetSolver(cube, undefined, undefined, undefined, 200).project(v, 1, q);
    expect(calls).toBeGreaterThan(11);
    for (let j = 0; j < size; j++) expect(q[j]).toBeCloseTo(v[j]!, 9);
  });

  it("a factor with one configuration projects onto it", () => {
    const factor: BinaryFactor = {
      name: "one",
      size: 3,
      map(adjustment, out) {
        out.set([1, 0, 1]);
        return 2 + adjustment[0]! + adjustment[2]!;
      },
      score: () => 2,
    };
    const q = new Float64Array(3);
    new ActiveSetSolver(factor).project(Float64Array.of(5, 5, -5), 1, q);
    expect(Array.from(q)).toEqual([1, 0, 1]);
  });
});
