import {
  type FactorGraph,
  factorScore,
  scoreAssignment,
  validateFactorGraph,
} from "@lagrange/core/factor-graph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TWEET_STOPWORDS } from "./groups.js";
import {
  CONSISTENCY_FEATURES,
  type ConsistencyFactor,
  consistencyFeature,
  consistencyFeatureCounts,
  consistencyFeatureNames,
  consistencyPatterns,
  findConsistencyFactors,
  labelSubsequences,
} from "./patterns.js";

const plain = (factors: readonly ConsistencyFactor[]): number[][] =>
  factors.map((f) => [f.first, f.second, f.length, f.kind]);

describe("findConsistencyFactors", () => {
  it("links identical words and phrases across the sentences of a group", () => {
    // sentence 0: "I love New York ." / sentence 1: "new york is the best"
    const tokens = ["I", "love", "New", "York", ".", "new", "york", "is", "the", "best"];
    const factors = findConsistencyFactors(tokens, Int32Array.of(0, 5));
    expect(plain(factors)).toEqual([
      [2, 5, 1, 0],
      [2, 5, 2, 1],
      [3, 6, 1, 0],
    ]);
  });

  it("keeps phrases inside sentences and lets only their inner tokens be stopwords", () => {
    const tokens = ["Bank", "of", "America", "Bank", "of", "America", "x", "Bank"];
    const starts = Int32Array.of(0, 3, 7);
    const got = plain(findConsistencyFactors(tokens, starts));
    expect(got).toContainEqual([0, 3, 3, 2]);
    // "of" alone and "Bank of" (ends in a stopword) never link.
    expect(got.some(([a, , len]) => tokens[a!] === "of" || len === 2)).toBe(false);
    expect(got).toEqual([
      [0, 3, 1, 0],
      [0, 3, 3, 2],
      [0, 7, 1, 0],
      [2, 5, 1, 0],
      [3, 7, 1, 0],
    ]);
    // "New" | "York" as two sentences is no occurrence of "New York".
    const split = ["New", "York", "New", "York"];
    expect(plain(findConsistencyFactors(split, Int32Array.of(0, 1, 2)))).toEqual([
      [0, 2, 1, 0],
      [1, 3, 1, 0],
    ]);
    expect(plain(findConsistencyFactors(split, Int32Array.of(0, 2)))).toContainEqual([0, 2, 2, 1]);
  });

  it("does not link overlapping occurrences of a phrase", () => {
    const got = plain(findConsistencyFactors(["go", "go", "go"], new Int32Array(0)));
    expect(got).toEqual([
      [0, 1, 1, 0],
      [0, 2, 1, 0],
      [1, 2, 1, 0],
      // "go go" at 0 and 1 overlap; "go go go" occurs once.
    ]);
  });

  it("skips URLs, punctuation and stopwords, and can be case-sensitive", () => {
    const tokens = ["http://t.co/a", "!!", "the", "Paris", "http://t.co/a", "!!", "the", "paris"];
    expect(plain(findConsistencyFactors(tokens, Int32Array.of(0, 4)))).toEqual([[3, 7, 1, 0]]);
    expect(findConsistencyFactors(tokens, Int32Array.of(0, 4), { caseSensitive: true })).toEqual(
      [],
    );
    expect(
      findConsistencyFactors(["the", "the"], Int32Array.of(0), { stopwords: new Set() }),
    ).toHaveLength(1);
  });

  it("links all pairs among the first maxOccurrences occurrences only", () => {
    const tokens = Array.from({ length: 12 }, () => "Kobe");
    const starts = Int32Array.from({ length: 12 }, (_, i) => i);
    const factors = findConsistencyFactors(tokens, starts);
    expect(factors).toHaveLength(45);
    expect(Math.max(...factors.map((f) => f.second))).toBe(9);
    expect(findConsistencyFactors(tokens, starts, { maxOccurrences: 3 })).toHaveLength(3);
  });

  it("matches a brute-force definition on random groups", () => {
    const vocabulary = ["K", "k", "a", "b", "the", "of", ".", "c"];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...vocabulary), { maxLength: 6 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 4 }),
        (sentences, maxLength) => {
          const tokens = sentences.flat();
          const starts: number[] = [];
          const sentenceOf: number[] = [];
          sentences.forEach((s, k) => {
            starts.push(sentenceOf.length);
            for (let i = 0; i < s.length; i++) sentenceOf.push(k);
          });
          const ok = (t: string) => /[a-z]/i.test(t) && !TWEET_STOPWORDS.has(t);
          const expected: number[][] = [];
          for (let i = 0; i < tokens.length; i++) {
            for (let j = i + 1; j < tokens.length; j++) {
              for (let len = 1; len <= maxLength && j - i >= len; len++) {
                if (i + len > tokens.length || j + len > tokens.length) break;
                if (sentenceOf[i + len - 1] !== sentenceOf[i]) break;
                if (sentenceOf[j + len - 1] !== sentenceOf[j]) break;
                const p = tokens.slice(i, i + len).map((t) => t.toLowerCase());
                const q = tokens.slice(j, j + len).map((t) => t.toLowerCase());
                if (p.join(" ") !== q.join(" ")) continue;
                if (!ok(p[0]!) || !ok(p[len - 1]!)) continue;
                expected.push([i, j, len, Math.min(len - 1, 2)]);
              }
            }
          }
          const got = findConsistencyFactors(tokens, Int32Array.from(starts), {
            maxLength,
            maxOccurrences: 100,
          });
          expect(plain(got)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects sentence starts that do not start at 0", () => {
    expect(() => findConsistencyFactors(["a", "b"], Int32Array.of(1))).toThrow(/sentenceStarts/);
  });
});

describe("labelSubsequences", () => {
  it("lists every label at length 1 and the distinct gold windows, sorted, above", () => {
    const subs = labelSubsequences([[0, 1, 2, 0], Int32Array.of(2, 0), [1]], 3, 3);
    expect(subs).toHaveLength(4);
    expect([...subs[0]!]).toEqual([]);
    expect([...subs[1]!]).toEqual([0, 1, 2]);
    expect([...subs[2]!]).toEqual([0, 1, 1, 2, 2, 0]);
    expect([...subs[3]!]).toEqual([0, 1, 2, 1, 2, 0]);
    expect(() => labelSubsequences([[3]], 2, 3)).toThrow(/labelled\[0\]\[0\]/);
  });
});

describe("consistency features", () => {
  it("names six features, word/phrase2/phrase3+ × entity/outside", () => {
    const names = consistencyFeatureNames();
    expect(names).toHaveLength(CONSISTENCY_FEATURES);
    expect(names[consistencyFeature(0, false)]).toBe("word/entity");
    expect(names[consistencyFeature(0, true)]).toBe("word/outside");
    expect(names[consistencyFeature(1, false)]).toBe("phrase2/entity");
    expect(names[consistencyFeature(2, true)]).toBe("phrase3+/outside");
  });

  it("builds (s, s) patterns over both phrases and leaves out zero weights", () => {
    const subs = labelSubsequences([[0, 1, 0, 0]], 2, 3);
    const factors: ConsistencyFactor[] = [
      { first: 0, second: 2, length: 2, kind: 1 },
      { first: 1, second: 4, length: 1, kind: 0 },
    ];
    const weights = new Float64Array(CONSISTENCY_FEATURES);
    weights[consistencyFeature(1, false)] = 2;
    weights[consistencyFeature(1, true)] = 0.5;
    const [phrase, ...rest] = consistencyPatterns(factors, subs, weights, 0);
    expect(rest).toEqual([]); // word weights are 0: the word factor has no pattern left
    expect([...phrase!.variables]).toEqual([0, 1, 2, 3]);
    // Windows (0,0), (0,1), (1,0), each repeated.
    expect([...phrase!.patterns]).toEqual([0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0]);
    expect([...phrase!.scores]).toEqual([0.5, 2, 2]);
    expect(phrase!.defaultScore).toBe(0);
  });

  it("counts are the score of unit-weight patterns, for every feature and random labellings", () => {
    const L = 4;
    const outside = 0;
    const vocabulary = ["Kobe", "kobe", "Bryant", "of", "LA", "."];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 16 }).chain((tokens) =>
          fc.record({
            tokens: fc.constant(tokens),
            labels: fc.array(fc.integer({ min: 0, max: L - 1 }), {
              minLength: tokens.length,
              maxLength: tokens.length,
            }),
            gold: fc.array(fc.array(fc.integer({ min: 0, max: L - 1 }), { maxLength: 6 }), {
              maxLength: 4,
            }),
            cut: fc.integer({ min: 0, max: tokens.length }),
          }),
        ),
        fc.integer({ min: 1, max: 4 }),
        ({ tokens, labels, gold, cut }, maxLength) => {
          // Labellings biased towards agreement so that features fire, and the gold data
          // includes them sometimes so that the subsequence filter both passes and rejects.
          const starts = cut === 0 ? Int32Array.of(0) : Int32Array.of(0, cut);
          const factors = findConsistencyFactors(tokens, starts, { maxLength });
          const subs = labelSubsequences([...gold, labels], maxLength, L);
          const counts = new Float64Array(CONSISTENCY_FEATURES);
          consistencyFeatureCounts(factors, subs, labels, outside, counts);
          const domainSizes = new Int32Array(tokens.length).fill(L);
          const total = new Float64Array(CONSISTENCY_FEATURES);
          for (let f = 0; f < CONSISTENCY_FEATURES; f++) {
            const unit = new Float64Array(CONSISTENCY_FEATURES);
            unit[f] = 1;
            const graph: FactorGraph = {
              domainSizes,
              factors: consistencyPatterns(factors, subs, unit, outside),
            };
            validateFactorGraph(graph);
            expect(scoreAssignment(graph, labels)).toBe(counts[f]);
            for (const factor of graph.factors) {
              total[f] = total[f]! + factorScore(factor, labels, domainSizes);
            }
          }
          expect([...total]).toEqual([...counts]);
          // Each factor fires at most once, so the counts never exceed the factors of a family.
          for (let kind = 0; kind < 3; kind++) {
            const n = factors.filter((x) => x.kind === kind).length;
            expect(
              counts[consistencyFeature(kind, false)]! + counts[consistencyFeature(kind, true)]!,
            ).toBeLessThanOrEqual(n);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("fires only when both phrases carry the same, known subsequence", () => {
    const factors = [{ first: 0, second: 2, length: 2, kind: 1 }];
    const subs = labelSubsequences([[1, 2]], 2, 3);
    const count = (labels: number[]) => {
      const out = new Float64Array(CONSISTENCY_FEATURES);
      consistencyFeatureCounts(factors, subs, labels, 0, out);
      return [...out];
    };
    expect(count([1, 2, 1, 2])).toEqual([0, 0, 1, 0, 0, 0]);
    expect(count([1, 2, 1, 1])).toEqual([0, 0, 0, 0, 0, 0]);
    expect(count([0, 0, 0, 0])).toEqual([0, 0, 0, 0, 0, 0]); // (0, 0) never seen in gold
  });
});
