import {
  chainDecoder,
  constraintPenalty,
  type Decoder,
  exactDecoding,
  meetsRestriction,
  scoreLabelling,
} from "@lagrange/core";
import { FREE_LABEL, fixedLabelsRestriction, restrictScores } from "@lagrange/core/chain";
import { Deadline } from "@lagrange/core/dual-decomposition";
import {
  bruteForceKBest,
  bruteForceLogPartition,
  randomChainScores,
  randomConstraints,
} from "@lagrange/core/testing";
import {
  exactDefinition,
  exactIlpDecoder,
  prepareIlp,
  twoPhaseDefinition,
  twoPhaseIlpDecoder,
} from "@lagrange/ilp";
import { softDD } from "@lagrange/soft-dd";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { type NBestMethod, nbestOf } from "./nbest.js";
import { oracleChunkF1 } from "./nbest-oracle.js";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

const chains = fc
  .record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    n: fc.integer({ min: 1, max: 5 }),
    L: fc.integer({ min: 1, max: 4 }),
    positionSpecific: fc.boolean(),
    startEnd: fc.boolean(),
    forbiddenFraction: fc.constantFrom(0, 0.3),
    integer: fc.boolean(),
    k: fc.integer({ min: 1, max: 12 }),
    fixings: fc.array(fc.integer({ min: -6, max: 3 }), { minLength: 5, maxLength: 5 }),
    restrict: fc.boolean(),
  })
  .map(({ seed, k, fixings, restrict, ...options }) => {
    const scores = randomChainScores(seed, options);
    const fixed = fixings.slice(0, options.n).map((f) => (f < 0 ? FREE_LABEL : f % options.L));
    const restriction = restrict ? fixedLabelsRestriction(options.n, options.L, fixed) : undefined;
    return { scores, k, restriction, seed };
  });

/**
 * A list is the k best exactly when its scores are the brute force's, best first (ties may come in
 * any order), and its labellings are distinct, feasible, meet the restriction and carry their own
 * scores.
 */
function expectKBest(
  list: ReturnType<typeof nbestOf>,
  expected: readonly { score: number }[],
  score: (labels: Int32Array) => number,
  L: number,
  restriction: Uint8Array | undefined,
): void {
  expect(list.entries.map((e) => e.score).length).toBe(expected.length);
  const seen = new Set<string>();
  for (const [r, e] of list.entries.entries()) {
    expect(close(e.score, expected[r]!.score)).toBe(true);
    expect(close(score(e.labels), e.score)).toBe(true);
    if (restriction !== undefined) expect(meetsRestriction(restriction, L, e.labels)).toBe(true);
    seen.add(e.labels.join(","));
    expect(e.certified).toBe(true);
  }
  expect(seen.size).toBe(list.entries.length);
}

describe("n-best against brute-force enumeration on small random chains", () => {
  for (const [method, name] of [
    ["list-viterbi", "viterbi"],
    ["partition", "partition-viterbi"],
  ] as const satisfies readonly (readonly [NBestMethod, string])[]) {
    it(`${method}: the k best labellings (forced positions included), with p = exp(score − log Z) over the restricted labellings`, () => {
      const exact = chainDecoder();
      const decoder: Decoder = { name, decode: (p, o) => exact.decode(p, o) };
      fc.assert(
        fc.property(chains, ({ scores, k, restriction }) => {
          const list = nbestOf(decoder, { scores }, k, {
            method,
            ...(restriction === undefined ? {} : { restriction }),
          });
          const space = restriction === undefined ? scores : restrictScores(scores, restriction);
          expectKBest(
            list,
            bruteForceKBest(space, k),
            (y) => scoreLabelling(scores, y),
            scores.L,
            restriction,
          );
          const logZ = bruteForceLogPartition(space);
          for (const e of list.entries) {
            expect(e.probability).toBeCloseTo(Math.exp(e.score - logZ), 9);
          }
        }),
        { numRuns: 200 },
      );
    });
  }

  it("no-good cuts on the exact ILP: the k best under hard and soft constraints", async () => {
    await prepareIlp();
    const ilp = exactIlpDecoder();
    fc.assert(
      fc.property(chains, ({ scores, k, restriction, seed }) => {
        const constraints = randomConstraints(seed, scores.n, scores.L, { count: 2 });
        const list = nbestOf(ilp, { scores, constraints }, k, {
          capabilities: exactDefinition.capabilities,
          ...(restriction === undefined ? {} : { restriction }),
        });
        expect(list.method).toBe("no-good-cuts");
        const space = restriction === undefined ? scores : restrictScores(scores, restriction);
        expectKBest(
          list,
          bruteForceKBest(space, k, { constraints }),
          (y) => scoreLabelling(scores, y) - constraintPenalty(constraints, y, scores.L),
          scores.L,
          restriction,
        );
      }),
      { numRuns: 25 },
    );
  });
});

describe("Lawler–Murty over Soft-DD on small random constrained chains", () => {
  it("every entry it certifies is the brute force's entry of that rank", () => {
    const dd = softDD();
    let certified = 0;
    fc.assert(
      fc.property(chains, ({ scores, k, restriction, seed }) => {
        const constraints = randomConstraints(seed, scores.n, scores.L, { count: 2 });
        const list = nbestOf(dd, { scores, constraints }, k, {
          ...(restriction === undefined ? {} : { restriction }),
        });
        expect(list.method).toBe("partition");
        const space = restriction === undefined ? scores : restrictScores(scores, restriction);
        const brute = bruteForceKBest(space, k, { constraints });
        for (const [r, e] of list.entries.entries()) {
          const own =
            scoreLabelling(scores, e.labels) - constraintPenalty(constraints, e.labels, scores.L);
          expect(close(e.score, own)).toBe(true);
          if (!e.certified) continue;
          certified++;
          expect(close(e.score, brute[r]!.score)).toBe(true);
        }
        // Certification is a prefix: once an entry is not proven, none after it is.
        const first = list.entries.findIndex((e) => !e.certified);
        if (first >= 0) expect(list.entries.slice(first).every((e) => !e.certified)).toBe(true);
      }),
      { numRuns: 150 },
    );
    expect(certified).toBeGreaterThan(100);
  });
});

describe("certificates that are not of the score the list is ranked by", () => {
  it("two-phase (least rule cost within τ of each part's own Viterbi) certifies no entry", async () => {
    await prepareIlp();
    const decoder = twoPhaseIlpDecoder();
    fc.assert(
      fc.property(chains, ({ scores, k, restriction, seed }) => {
        const constraints = randomConstraints(seed, scores.n, scores.L, { count: 2 });
        const list = nbestOf(decoder, { scores, constraints }, k, {
          capabilities: twoPhaseDefinition.capabilities,
          ...(restriction === undefined ? {} : { restriction }),
        });
        expect(list.entries.some((e) => e.certified)).toBe(false);
        const distinct = new Set(list.entries.map((e) => e.labels.join(",")));
        expect(distinct.size).toBe(list.entries.length);
      }),
      { numRuns: 25 },
    );
  });

  it("a decoder certifying the worst labelling of each part: nothing stays proven", () => {
    // Lawler–Murty trusts certificates; one that lies shows as an entry outscoring an earlier one.
    const worst: Decoder = {
      name: "worst",
      decode: ({ scores }) => {
        const all = bruteForceKBest(scores, Number.MAX_SAFE_INTEGER);
        const last = all[all.length - 1];
        if (last === undefined) return exactDecoding(new Int32Array(scores.n), -Infinity);
        return exactDecoding(last.labels, last.score);
      },
    };
    let unsorted = 0;
    fc.assert(
      fc.property(chains, ({ scores, k }) => {
        const list = nbestOf(worst, { scores }, k, { method: "partition" });
        const sorted = list.entries.every(
          (e, r) => r === 0 || e.score <= list.entries[r - 1]!.score,
        );
        if (sorted) return;
        unsorted++;
        expect(list.entries.some((e) => e.certified)).toBe(false);
      }),
      { numRuns: 100 },
    );
    expect(unsorted).toBeGreaterThan(10);
  });
});

describe("oracle chunk F1", () => {
  it("takes, per sentence, the labelling with the most correct chunks less false ones", () => {
    const gold = [
      ["B-PER", "I-PER", "O"],
      ["B-LOC", "O", "B-ORG"],
    ];
    const lists = [
      [
        ["B-ORG", "I-ORG", "O"],
        ["B-PER", "I-PER", "O"],
      ],
      [["B-LOC", "O", "O"]],
    ];
    const [one, two] = oracleChunkF1(gold, lists, [1, 2]);
    // k = 1: ORG wrong, LOC right, ORG missed: 1 correct, 2 predicted, 3 gold.
    expect(one!.f1).toBeCloseTo((2 * 1) / (2 + 3), 12);
    expect(two!.f1).toBeCloseTo((2 * 2) / (2 + 3), 12);
    expect(two!.changed).toBe(1);
  });
});

describe("one deadline for the whole list (issue 42, class 5)", () => {
  /** Viterbi as a decoder that spends `ms` of the (fake) clock per call and records its deadline. */
  function slowViterbi(ms: number, seen: (Deadline | undefined)[]): Decoder {
    const viterbi = chainDecoder();
    return {
      name: "slow",
      decode(problem, options) {
        if (ms > 0) vi.advanceTimersByTime(ms);
        seen.push(options?.deadline);
        return viterbi.decode(problem, options);
      },
    };
  }

  it("every decode of a list shares the sentence's deadline, and the list stops at it", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      fc.assert(
        fc.property(
          chains,
          fc.constantFrom<NBestMethod>("no-good-cuts", "partition"),
          fc.integer({ min: 1, max: 60 }),
          ({ scores, restriction }, method, limit) => {
            const seen: (Deadline | undefined)[] = [];
            const started = performance.now();
            const list = nbestOf(slowViterbi(10, seen), { scores }, 50, {
              method,
              ...(restriction === undefined ? {} : { restriction }),
              decodeOptions: { timeLimitMs: limit },
            });
            const spent = performance.now() - started;
            // The first decode always runs; none starts after the limit.
            expect(spent).toBeLessThanOrEqual(Math.max(limit, 10) + 10);
            expect(new Set(seen).size).toBe(1);
            expect(seen[0]).toBeInstanceOf(Deadline);
            if (list.timedOut) expect(list.decodes).toBeLessThanOrEqual(Math.ceil(limit / 10) + 1);
          },
        ),
        { numRuns: 100, seed: 7 },
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it("a deadline the caller gives is kept, not restarted from the time limit", () => {
    const seen: (Deadline | undefined)[] = [];
    const deadline = Deadline.in(1e6);
    const scores = randomChainScores(3, { n: 4, L: 3 });
    const list = nbestOf(slowViterbi(0, seen), { scores }, 5, {
      method: "partition",
      decodeOptions: { deadline, timeLimitMs: 1 },
    });
    expect(list.entries.length).toBe(5);
    expect(list.timedOut).toBe(false);
    expect(seen.every((d) => d === deadline)).toBe(true);
  });
});
