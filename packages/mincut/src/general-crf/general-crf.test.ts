import {
  type ChainScores,
  chainDecoder,
  type DecodeProblem,
  type Decoder,
  exactDecoding,
  scoreLabelling,
} from "@lagrange/core";
import { forEachLabelling } from "@lagrange/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { naiveDDDecoder, twoSlaveDecoder } from "../decoders/decoders.js";
import {
  type GroupInstance,
  groupInstance,
  groupProblem,
  sentenceLabels,
  trainConsistencyWeights,
} from "./general-crf.js";
import { consistencyFeature, labelSubsequences } from "./patterns.js";

// Labels: 0 = O, 1 = B-PER. The name "Zed" is sure in one tweet (unary 3) and unsure in the other
// (unary −0.5): only the consistency between the two occurrences can fix the second.
const L = 2;
function tweet(unsure: boolean): ChainScores {
  return {
    n: 3,
    L,
    unary: Float64Array.of(0, -1, 0, unsure ? -0.5 : 3, 0, -1),
    transition: Float64Array.of(0, 0, 0, -2),
  };
}

function group(): GroupInstance {
  return groupInstance(
    [tweet(false), tweet(true)],
    [
      ["met", "Zed", "today"],
      ["saw", "Zed", "again"],
    ],
    {},
    [Int32Array.of(0, 1, 0), Int32Array.of(0, 1, 0)],
  );
}

describe("general CRF: consistency weights by averaged perceptron through any decoder", () => {
  const subsequences = labelSubsequences([Int32Array.of(0, 1, 0)], 3, L);
  const base = { L, outsideLabel: 0, subsequences, factorOptions: {} };

  it.each([
    ["two-slave", () => twoSlaveDecoder()],
    ["naive-dd", () => naiveDDDecoder()],
  ])(
    "learns a positive word/entity weight that fixes the unsure occurrence (%s)",
    async (_, make) => {
      const instances = Array.from({ length: 4 }, group);
      const decoder = make();
      const before = decoder.decode(
        groupProblem(instances[0]!, { ...base, weights: new Float64Array(6) }),
      );
      expect(Array.from(before.labels)).toEqual([0, 1, 0, 0, 0, 0]);
      const result = await trainConsistencyWeights(instances, base, decoder, {
        epochs: 5,
        learningRate: 0.5,
      });
      const wordEntity = result.weights[consistencyFeature(0, false)]!;
      expect(wordEntity).toBeGreaterThan(0);
      for (const w of result.weights) expect(w).toBeGreaterThanOrEqual(0);
      const after = decoder.decode(
        groupProblem(instances[0]!, { ...base, weights: result.weights }),
      );
      expect(after.certified).toBe(true);
      expect(sentenceLabels(instances[0]!, after.labels).map((y) => Array.from(y))).toEqual([
        [0, 1, 0],
        [0, 1, 0],
      ]);
      expect(result.mistakes[0]).toBeGreaterThan(0);
      expect(result.mistakes.at(-1)).toBe(0);
    },
  );

  it("needs gold labels, and a decoder without patterns (Viterbi) learns nothing", async () => {
    const unlabelled = groupInstance(
      [tweet(false), tweet(true)],
      [
        ["met", "Zed", "today"],
        ["saw", "Zed", "again"],
      ],
    );
    await expect(
      trainConsistencyWeights([unlabelled], base, twoSlaveDecoder(), { epochs: 1 }),
    ).rejects.toThrow(/gold/);
    const viterbi = chainDecoder();
    const wrapped = {
      name: "viterbi",
      decode: (p: Parameters<typeof viterbi.decode>[0]) => viterbi.decode({ scores: p.scores }),
    };
    const r = await trainConsistencyWeights([group()], base, wrapped, { epochs: 3 });
    // Viterbi ignores the patterns, so every epoch makes the same mistake and the weight grows.
    expect(r.mistakes).toEqual([1, 1, 1]);
  });
});

/** The exact optimum of a chain plus pattern factors, by enumeration (tiny problems only). */
function bruteForceDecoder(): Decoder {
  const score = (problem: DecodeProblem, y: Int32Array): number => {
    let total = scoreLabelling(problem.scores, y);
    for (const f of problem.patterns ?? []) {
      const k = f.variables.length;
      let value = f.defaultScore;
      for (let p = 0; p < f.scores.length; p++) {
        let match = true;
        for (let j = 0; j < k && match; j++) match = y[f.variables[j]!] === f.patterns[p * k + j];
        if (match) {
          value = f.scores[p]!;
          break;
        }
      }
      total += value;
    }
    return total;
  };
  return {
    name: "brute-force",
    decode(problem) {
      let best = Number.NEGATIVE_INFINITY;
      let labels = new Int32Array(problem.scores.n);
      forEachLabelling(new Int32Array(problem.scores.n).fill(problem.scores.L), (y) => {
        const s = score(problem, y);
        if (s > best) {
          best = s;
          labels = Int32Array.from(y);
        }
      });
      return exactDecoding(labels, best);
    },
  };
}

/**
 * A group of 2–3 sentences over a few names (each said at least twice, gold B-PER = 1) and unique
 * filler words (gold O = 0). The chain is right by a margin everywhere except at "unsure"
 * occurrences of a name, where O leads by less than 1; every name has a sure occurrence. Weights
 * that reward entity agreement enough make every gold the unique best labelling: separable.
 */
const separableGroup = fc
  .record({
    lengths: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: 3 }),
    nameAt: fc.array(fc.integer({ min: -2, max: 1 }), { minLength: 12, maxLength: 12 }),
    margins: fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), {
      minLength: 12,
      maxLength: 12,
    }),
    unsure: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    lead: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
  })
  .map(({ lengths, nameAt, margins, unsure, lead }) => {
    const n = lengths.reduce((a, b) => a + b, 0);
    // Position p carries name nameAt[p] (0 or 1) or a filler word.
    const token = (p: number) => (nameAt[p]! >= 0 ? `name${nameAt[p]}` : `filler${p}`);
    const tokens = Array.from({ length: n }, (_, p) => token(p));
    const positions = new Map<string, number[]>();
    tokens.forEach((t, p) => {
      if (t.startsWith("name")) positions.set(t, [...(positions.get(t) ?? []), p]);
    });
    // A name said once is a filler; the first occurrence of each name is sure.
    for (const [, at] of positions) if (at.length < 2) for (const p of at) tokens[p] = `filler${p}`;
    const gold = Int32Array.from(tokens, (t) => (t.startsWith("name") ? 1 : 0));
    const firstOf = new Set([...positions.values()].map((at) => at[0]!));
    const unary = new Float64Array(n * 2);
    for (let p = 0; p < n; p++) {
      const g = gold[p]!;
      const wrong = g === 1 && unsure[p] === true && !firstOf.has(p);
      unary[p * 2 + (wrong ? 0 : g)] = wrong ? lead : margins[p]!;
    }
    const chains: ChainScores[] = [];
    const sentences: string[][] = [];
    const golds: Int32Array[] = [];
    let from = 0;
    for (const length of lengths) {
      chains.push({
        n: length,
        L,
        unary: unary.slice(from * 2, (from + length) * 2),
        transition: new Float64Array(4),
      });
      sentences.push(tokens.slice(from, from + length));
      golds.push(gold.slice(from, from + length));
      from += length;
    }
    return groupInstance(chains, sentences, {}, golds);
  });

describe("the perceptron's updates", () => {
  const subsequences = labelSubsequences([Int32Array.of(0, 1, 0)], 3, L);
  const base = { L, outsideLabel: 0, subsequences, factorOptions: {} };

  it("converges on separable groups: no mistake in the last epoch, the gold decoded", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(separableGroup, { minLength: 1, maxLength: 3 }), async (groups) => {
        const decoder = bruteForceDecoder();
        const result = await trainConsistencyWeights(groups, base, decoder, {
          epochs: 30,
          learningRate: 0.25,
        });
        expect(result.epochs.at(-1)!.mistakes).toBe(0);
        expect(result.epochs.at(-1)!.updates).toBe(0);
        // An exact decoder's mistakes always score at least the gold: nothing is skipped.
        for (const e of result.epochs) expect(e.skipped).toBe(0);
      }),
      { numRuns: 25 },
    );
  });

  it("makes no update from a decoding that scores below the gold (an uncertified relaxation's)", async () => {
    await fc.assert(
      fc.asyncProperty(
        separableGroup,
        fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 16, maxLength: 16 }),
        async (group, noise) => {
          // The chain alone gets every position right here: gold is the unique optimum at w = 0.
          const chain = { ...group.chain, unary: Float64Array.from(group.chain.unary) };
          for (let p = 0; p < chain.n; p++) {
            const g = group.gold![p]!;
            chain.unary[p * L + g] = 1;
            chain.unary[p * L + 1 - g] = 0;
          }
          const x: GroupInstance = { ...group, chain };
          // A decoder that stops uncertified with a labelling other than the gold.
          const failing: Decoder = {
            name: "failing",
            decode(problem) {
              const labels = Int32Array.from({ length: problem.scores.n }, (_, p) => noise[p] ?? 0);
              if (labels.every((y, p) => y === x.gold![p])) labels[0] = 1 - labels[0]!;
              return {
                ...exactDecoding(labels, scoreLabelling(problem.scores, labels)),
                status: "iteration-limit",
                certified: false,
                gap: 1,
              };
            },
          };
          const result = await trainConsistencyWeights([x], base, failing, {
            epochs: 3,
            learningRate: 0.5,
          });
          expect(Array.from(result.weights)).toEqual([0, 0, 0, 0, 0, 0]);
          for (const e of result.epochs) {
            expect(e.updates).toBe(0);
            expect(e.skipped).toBe(x.factors.length > 0 ? 1 : 0);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("reports the averaged weights after every epoch, the last being the result", async () => {
    const seen: number[][] = [];
    const result = await trainConsistencyWeights(
      Array.from({ length: 3 }, group),
      base,
      twoSlaveDecoder(),
      {
        epochs: 4,
        learningRate: 0.5,
        onEpoch: (_, averaged) => {
          seen.push(Array.from(averaged));
        },
      },
    );
    expect(seen).toHaveLength(4);
    expect(seen.at(-1)).toEqual(Array.from(result.weights));
    expect(result.epochs.map((e) => e.mistakes)).toEqual(result.mistakes);
    expect(result.epochs.reduce((sum, e) => sum + e.certified, 0)).toBe(result.certified);
  });
});
