import { describe, expect, it } from "vitest";
import {
  randomChain,
  randomConstraints,
  randomInt,
  rng,
  viterbiSlave,
} from "./__fixtures__/random-problems.ts";
import { decodeAll, summarizeSolutions } from "./batch.ts";
import { type ConstrainedProblem, softDD } from "./soft-dd.ts";

function* problems(count: number): Generator<ConstrainedProblem> {
  const random = rng(77);
  for (let k = 0; k < count; k++) {
    const n = randomInt(random, 2, 8);
    const L = randomInt(random, 2, 5);
    yield {
      slave: viterbiSlave(randomChain(random, n, L)),
      constraints: randomConstraints(random, n, L, randomInt(random, 0, 4), 0),
    };
  }
}

describe("decodeAll", () => {
  it("aggregates per-example statistics consistently with the solutions", () => {
    const seen: number[] = [];
    const { solutions, summary } = decodeAll(problems(60), softDD(), {
      maxIterations: 50,
      onExample: (i) => seen.push(i),
    });
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(summary.examples).toBe(60);
    const iterations = solutions.reduce((s, x) => s + x.iterations, 0);
    expect(summary.meanIterations).toBeCloseTo(iterations / 60, 12);
    expect(summary.certifiedRate).toBeCloseTo(
      solutions.filter((s) => s.stats.certified).length / 60,
      12,
    );
    expect(summary.maxIterations).toBe(Math.max(...solutions.map((s) => s.iterations)));
    const violatedFirst = solutions.filter((s) => s.stats.initiallyViolated > 0);
    expect(summary.initiallyViolatedRate).toBeCloseTo(violatedFirst.length / 60, 12);
    // An example whose unconstrained labelling satisfies everything needs exactly one iteration.
    for (const s of solutions) if (s.stats.initiallyViolated === 0) expect(s.iterations).toBe(1);
    expect(summary.totalTimeMs).toBeGreaterThan(0);
    expect(summarizeSolutions(solutions).meanIterations).toBe(summary.meanIterations);
    expect(summarizeSolutions([]).certifiedRate).toBe(0);
  });
});
