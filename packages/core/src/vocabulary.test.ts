import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChainScores, scoreLabelling, validateChainScores } from "./chain.js";
import {
  constraintActivity,
  constraintPenalty,
  constraintViolation,
  equalityConstraints,
  linearConstraint,
  validateConstraint,
} from "./constraints.js";
import { ProblemValidationError } from "./errors.js";
import { LabelSet } from "./labels.js";
import { createRandom } from "./random.js";
import { defineSlave } from "./solver.js";
import { randomChainScores } from "./testing/index.js";

describe("LabelSet", () => {
  it("intern adds, lookup never does, names come back from ids", () => {
    const labels = LabelSet.from(["O", "B-author", "I-author"]);
    expect(labels.intern("B-title")).toBe(3);
    expect(labels.intern("O")).toBe(0);
    expect(labels.lookup("I-title")).toBe(-1);
    expect(labels.size).toBe(4);
    expect(labels.decode(labels.encode(["O", "B-title"]))).toEqual(["O", "B-title"]);
    expect(() => labels.encode(["nope"])).toThrow(/unknown label "nope" at position 0/);
    expect(Array.from(labels.tryEncode(["B-title", "O"]) ?? [])).toEqual([
      labels.lookup("B-title"),
      labels.lookup("O"),
    ]);
    expect(labels.tryEncode(["O", "nope"])).toBeUndefined();
    labels.freeze();
    expect(() => labels.intern("new")).toThrow(/frozen/);
    expect(() => labels.name(9)).toThrow(RangeError);
    expect(labels.toJSON()).toEqual(["O", "B-author", "I-author", "B-title"]);
  });
});

describe("chain scores", () => {
  it("scoreLabelling adds start, unary, transitions and end; −∞ on a forbidden move", () => {
    const scores: ChainScores = {
      n: 3,
      L: 2,
      unary: Float64Array.of(1, 2, 3, 4, 5, 6),
      transition: Float64Array.of(0.1, 0.2, 0.3, 0.4, 1, 2, 3, 4), // position-specific
      start: Float64Array.of(10, 20),
      end: Float64Array.of(100, 200),
      allowed: Uint8Array.of(1, 1, 0, 1),
    };
    validateChainScores(scores);
    expect(scoreLabelling(scores, [0, 1, 1])).toBeCloseTo(10 + 1 + 4 + 6 + 0.2 + 4 + 200, 12);
    expect(scoreLabelling(scores, [1, 0, 0])).toBe(Number.NEGATIVE_INFINITY);
    expect(() => scoreLabelling(scores, [0, 2, 0])).toThrow(/labels\[1\]/);
  });

  it("validation names the bad field", () => {
    const ok = randomChainScores(1, { n: 3, L: 2 });
    const bad = (patch: Partial<ChainScores>) => () => validateChainScores({ ...ok, ...patch });
    expect(bad({ n: 0 })).toThrow(/chain\.n/);
    expect(bad({ unary: new Float64Array(5) })).toThrow(/chain\.unary: expected length n·L = 6/);
    expect(bad({ transition: new Float64Array(3) })).toThrow(/chain\.transition/);
    expect(bad({ start: new Float64Array(3) })).toThrow(/chain\.start/);
    expect(bad({ allowed: new Uint8Array(2) })).toThrow(/chain\.allowed/);
    expect(bad({ unary: Float64Array.of(0, 0, Number.NaN, 0, 0, 0) })).toThrow(/chain\.unary\[2\]/);
  });
});

describe("linear constraints", () => {
  it("activity and violation match a direct count over the indicator vector", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const random = createRandom(seed);
        const n = random.int(1, 5);
        const L = random.int(1, 3);
        const terms = Array.from(
          { length: random.int(0, 6) },
          () => [random.int(0, n * L - 1), random.int(-2, 2)] as const,
        );
        const rhs = random.int(-2, 2);
        const c = linearConstraint({ terms, rhs });
        validateConstraint(c, n, L);
        const y = Array.from({ length: n }, () => random.int(0, L - 1));
        const indicator = new Float64Array(n * L);
        y.forEach((t, i) => {
          indicator[i * L + t] = 1;
        });
        let direct = 0;
        for (const [index, coefficient] of terms) direct += coefficient * indicator[index]!;
        expect(constraintActivity(c, y, L)).toBe(direct);
        expect(constraintViolation(c, y, L)).toBe(Math.max(0, direct - rhs));
        const soft = linearConstraint({ terms, rhs, penalty: 1.5 });
        expect(constraintPenalty([soft], y, L)).toBe(1.5 * Math.max(0, direct - rhs));
        expect(constraintPenalty([c], y, L)).toBe(direct > rhs ? Number.POSITIVE_INFINITY : 0);
      }),
      { numRuns: 300, seed: 41 },
    );
  });

  it("equalities are two inequalities; bad constraints are clear errors", () => {
    const [upper, lower] = equalityConstraints({
      terms: [
        [0, 1],
        [2, 1],
      ],
      rhs: 1,
      name: "one",
    });
    expect(upper.name).toBe("one (≤)");
    expect([...lower.coefficients]).toEqual([-1, -1]);
    expect(lower.rhs).toBe(-1);
    expect(() => validateConstraint(linearConstraint({ terms: [[9, 1]], rhs: 0 }), 2, 2)).toThrow(
      ProblemValidationError,
    );
    expect(() =>
      validateConstraint(linearConstraint({ terms: [[0, 1]], rhs: 0, penalty: -1 }), 2, 2),
    ).toThrow(/penalty/);
  });
});

describe("defineSlave", () => {
  it("fills the name and rejects sizes that are not positive integers", () => {
    const spec = {
      n: 2,
      L: 2,
      maximize: () => ({ labels: new Int32Array(2), value: 0 }),
      score: () => 0,
    };
    expect(defineSlave(spec).name).toBe("custom");
    expect(() => defineSlave({ ...spec, n: 0 })).toThrow(
      /slave "custom"\.n: expected an integer ≥ 1/,
    );
    expect(() => defineSlave({ ...spec, name: "x", L: 1.5 })).toThrow(/slave "x"\.L/);
  });
});
