import { type LinearConstraint, linearConstraint } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import {
  formatPenaltyReport,
  learnPenalties,
  lossAugmented,
  type PenaltyExample,
  type PenaltyInstance,
  type PenaltyTemplate,
  penaltyReport,
} from "./penalty-learning.js";
import { softDD } from "./soft-dd.js";
import { randomInt, rng, viterbiSlave } from "./testing/random-problems.js";

// Labels: 0 = O, 1 = A (a one-token A segment), 2 = B.
const L = 3;

/** count(label) ≤ bound as a template. */
function countAtMost(label: number, bound: number, words: string): PenaltyTemplate {
  return {
    id: `count:${label}<=${bound}`,
    describe: () => words,
    instantiate({ n }: PenaltyInstance): LinearConstraint[] {
      return [
        linearConstraint({
          terms: Array.from({ length: n }, (_, i) => [i * L + label, 1] as const),
          rhs: bound,
          name: words,
        }),
      ];
    },
  };
}

/**
 * Gold: one A and one B per sentence. The CRF also likes a decoy A (weaker than the true one), so
 * "at most one A" is useful; "no B" never holds in the truth, so it is useless.
 */
function syntheticTask(seed: number, count: number): PenaltyExample[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const n = 6;
    const gold = new Int32Array(n);
    const a = randomInt(random, 0, n - 1);
    let b = randomInt(random, 0, n - 2);
    if (b >= a) b++;
    let decoy = randomInt(random, 0, n - 3);
    while (decoy === a || decoy === b) decoy = (decoy + 1) % n;
    gold[a] = 1;
    gold[b] = 2;
    const unary = new Float64Array(n * L);
    for (let i = 0; i < n; i++) unary[i * L] = 0.1 * random();
    unary[a * L + 1] = 2;
    unary[b * L + 2] = 0.8;
    unary[decoy * L + 1] = 1;
    const scores = { n, L, unary, transition: new Float64Array(L * L) };
    return { scores, gold };
  });
}

const useful = countAtMost(1, 1, "at most one A segment");
const useless = countAtMost(2, 0, "no B segment");

/** Sentences of a fresh sample decoded wrongly with the given penalties. */
function heldOutMistakes(penalties: ArrayLike<number>): number {
  let mistakes = 0;
  for (const example of syntheticTask(99, 30)) {
    const constraints = [useful, useless].flatMap((t, k) =>
      t.instantiate({ n: example.scores.n, L }).map((c) => ({ ...c, penalty: penalties[k]! })),
    );
    const solution = softDD().decode({ scores: example.scores, constraints });
    if (solution.labels.some((y, i) => y !== example.gold[i])) mistakes++;
  }
  return mistakes;
}

describe("learnPenalties", () => {
  for (const algorithm of ["perceptron", "averaged-perceptron"] as const) {
    it(`${algorithm}: keeps the useful constraint and drives the useless one to zero`, async () => {
      const examples = syntheticTask(17, 40);
      const learned = await learnPenalties(examples, [useful, useless], {
        algorithm,
        epochs: 4,
        initialPenalties: [2, 2],
        learningRate: 1, // large steps: truncation at zero must be reached, not approached
      });
      expect(learned.penalties[0]).toBeGreaterThanOrEqual(1); // outweighs the decoy's margin
      if (algorithm === "perceptron") expect(learned.penalties[1]).toBe(0);
      // The average still remembers the first steps at 2, 1, … but ends far below them.
      else expect(learned.penalties[1]).toBeLessThan(0.2);
      expect(learned.history.at(-1)!.mistakes).toBe(0);
      expect(learned.history.length).toBe(4);
      expect(heldOutMistakes(learned.penalties)).toBe(0);
    });
  }

  it("default rate: held-out decoding is fixed; a useless penalty ends at a harmless value", async () => {
    const learned = await learnPenalties(syntheticTask(17, 40), [useful, useless], {
      algorithm: "perceptron",
      epochs: 4,
      initialPenalties: [2, 2],
    });
    // Below the B segments' margin of 0.8 it no longer changes any prediction, so updates stop.
    expect(learned.penalties[1]).toBeLessThan(0.8);
    expect(heldOutMistakes(learned.penalties)).toBe(0);
  });

  it("ssvm: learns penalties that fix the decoys on held-out data", async () => {
    const examples = syntheticTask(17, 40);
    const learned = await learnPenalties(examples, [useful, useless], {
      algorithm: "ssvm",
      epochs: 6,
      learningRate: 0.5,
    });
    expect(learned.penalties[0]).toBeGreaterThan(learned.penalties[1]!);
    expect(heldOutMistakes(new Float64Array(2))).toBeGreaterThan(20); // the plain CRF fails
    expect(heldOutMistakes(learned.penalties)).toBe(0);
  });

  it("a document example: its sentence starts reach the templates, one penalty per document rule", async () => {
    // Two one-token "sentences" end to end; the rule ties them: both A or neither (|z0 − z1|).
    const seen: (Int32Array | undefined)[] = [];
    const sameType: PenaltyTemplate = {
      id: "same:A",
      describe: () => "the two sentences' tokens are both A or neither",
      instantiate(instance: PenaltyInstance): LinearConstraint[] {
        seen.push(instance.sentenceStarts);
        return [
          linearConstraint({
            terms: [
              [0 * L + 1, 1],
              [1 * L + 1, -1],
            ],
            rhs: 0,
          }),
          linearConstraint({
            terms: [
              [1 * L + 1, 1],
              [0 * L + 1, -1],
            ],
            rhs: 0,
          }),
        ];
      },
    };
    // Gold: A A. The chain prefers O in the second sentence, by less than the first's A margin.
    const unary = Float64Array.of(0, 2, 0, 0.3, 0, 0);
    const example: PenaltyExample = {
      scores: { n: 2, L, unary, transition: new Float64Array(L * L) },
      gold: Int32Array.of(1, 1),
      sentenceStarts: Int32Array.of(0, 1),
    };
    const learned = await learnPenalties([example], [sameType], {
      algorithm: "perceptron",
      epochs: 6,
      learningRate: 0.2,
    });
    expect(seen.length).toBeGreaterThan(0);
    for (const starts of seen) expect(Array.from(starts!)).toEqual([0, 1]);
    expect(learned.penalties[0]).toBeGreaterThan(0.3); // outweighs the O preference
    const fixed = softDD().decode({
      scores: example.scores,
      constraints: sameType
        .instantiate({ n: 2, L })
        .map((c) => ({ ...c, penalty: learned.penalties[0]! })),
    });
    expect(Array.from(fixed.labels)).toEqual([1, 1]);
  });

  it("templates that read only the length learn what per-example instantiation learns", async () => {
    // Length-only templates share their terms per length and keep templates at 0 in; a set with
    // one template that may read tokens instantiates per example and leaves them out.
    // Lengths 4–6, so that terms are shared per length; initial penalties at 0 and above.
    const examples = syntheticTask(5, 36).map((e, i) => {
      const n = 6 - (i % 3);
      const { L: l, unary, transition } = e.scores;
      return {
        scores: { n, L: l, unary: unary.slice(0, n * l), transition },
        gold: e.gold.slice(0, n),
      };
    });
    const byLength = [useful, useless].map((t) => ({ ...t, usesTokens: false }));
    for (const algorithm of ["perceptron", "averaged-perceptron", "ssvm"] as const) {
      for (const initialPenalties of [undefined, [0, 1.5]]) {
        const options = {
          algorithm,
          epochs: 3,
          learningRate: 0.5,
          ...(initialPenalties === undefined ? {} : { initialPenalties }),
        };
        const each = await learnPenalties(examples, [useful, useless], options);
        const shared = await learnPenalties(examples, byLength, options);
        const mixed = await learnPenalties(examples, [byLength[0]!, useless], options);
        for (const other of [shared, mixed]) {
          expect(Array.from(other.penalties)).toEqual(Array.from(each.penalties));
          expect(other.history).toEqual(each.history);
        }
      }
    }
  });

  it("from zero, raises only penalties the predictions violate more than the truth", async () => {
    const examples = syntheticTask(3, 30);
    const learned = await learnPenalties(examples, [useful, useless], {
      algorithm: "perceptron",
      epochs: 3,
    });
    // Rises in steps of 0.1 until the decoy (margin 1 over a small O score) is outweighed.
    expect(learned.penalties[0]).toBeGreaterThan(0.9);
    expect(learned.penalties[1]).toBe(0);
    expect(learned.history[0]!.mistakes).toBeGreaterThan(0);
    expect(learned.history.at(-1)!.mistakes).toBe(0);
  });

  it("stops when onEpoch returns false and validates its inputs", async () => {
    const examples = syntheticTask(5, 5);
    const epochs: number[] = [];
    await learnPenalties(examples, [useful], {
      epochs: 5,
      onEpoch: (s) => {
        epochs.push(s.epoch);
        return false;
      },
    });
    expect(epochs).toEqual([1]);
    await expect(learnPenalties(examples, [useful], { initialPenalties: [1, 2] })).rejects.toThrow(
      /initialPenalties/,
    );
    const bad = [{ ...examples[0]!, gold: new Int32Array(2) }];
    await expect(learnPenalties(bad, [useful])).rejects.toThrow(/examples\[0\]\.gold/);
  });

  it("yields to the event loop, so that an abort from a timer stops a long run", async () => {
    const examples = syntheticTask(11, 400);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    let epochs = 0;
    await expect(
      learnPenalties(examples, [useful, useless], {
        epochs: 10_000,
        onEpoch: () => {
          epochs++;
        },
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(epochs).toBeLessThan(10_000);
  });

  it("reports zero penalties and the top constraints in words", () => {
    const report = penaltyReport([useful, useless], [1.5, 0], {
      importance: new Map([[useful.id, Number.POSITIVE_INFINITY]]),
    });
    expect(report.zero.map((e) => e.description)).toEqual(["no B segment"]);
    expect(report.top.map((e) => e.description)).toEqual(["at most one A segment"]);
    const text = formatPenaltyReport(report);
    expect(text).toContain("1 of 2 constraints kept; 1 learned a penalty of 0");
    expect(text).toContain("at most one A segment (penalty 1.500, importance ∞)");
  });
});

describe("lossAugmented", () => {
  it("adds the Hamming loss to the slave's value and score", () => {
    const n = 3;
    const scores = { n, L, unary: new Float64Array(n * L), transition: new Float64Array(L * L) };
    const gold = Int32Array.from([0, 1, 2]);
    const slave = lossAugmented(viterbiSlave(scores), gold, 2);
    const result = slave.maximize(new Float64Array(n * L));
    expect(result.value).toBe(6); // every token wrong
    for (let i = 0; i < n; i++) expect(result.labels[i]).not.toBe(gold[i]);
    expect(slave.score(gold)).toBe(0);
  });
});
