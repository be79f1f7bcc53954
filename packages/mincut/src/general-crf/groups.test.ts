import { existsSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { documentGroups, isUrlToken, TWEET_STOPWORDS, tweetGroups } from "./groups.js";

const WNUT16_TRAIN = "/work/shared/datasets/wnut16/train";

function readTweets(path: string): string[][] {
  const tweets: string[][] = [];
  let current: string[] = [];
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    // WNUT-17 separates tweets with a line holding only a tab, so blank means whitespace-only.
    if (line.trim() === "") {
      if (current.length > 0) tweets.push(current);
      current = [];
      continue;
    }
    current.push(line.split("\t")[0]!);
  }
  if (current.length > 0) tweets.push(current);
  return tweets;
}

function expectPartition(groups: readonly Int32Array[], n: number, maxGroupSize: number): void {
  const seen = new Uint8Array(n);
  let previousFirst = -1;
  for (const group of groups) {
    expect(group.length).toBeGreaterThan(0);
    expect(group.length).toBeLessThanOrEqual(maxGroupSize);
    expect(group[0]!).toBeGreaterThan(previousFirst);
    previousFirst = group[0]!;
    for (let k = 0; k < group.length; k++) {
      if (k > 0) expect(group[k]!).toBeGreaterThan(group[k - 1]!);
      expect(seen[group[k]!]).toBe(0);
      seen[group[k]!] = 1;
    }
  }
  expect(seen.every((x) => x === 1)).toBe(true);
}

/** The definition, quadratically: word sets, all pairs, Kruskal with the size bound. */
function referenceGroups(
  sentences: readonly (readonly string[])[],
  minOverlap: number,
  maxGroupSize: number,
  words: "all" | "content",
): number[][] {
  const sets = sentences.map(
    (s) =>
      new Set(
        s
          .map((t) => t.toLowerCase())
          .filter((t) => /[\p{L}\p{N}]/u.test(t))
          .filter((t) => words === "all" || (!TWEET_STOPWORDS.has(t) && !isUrlToken(t))),
      ),
  );
  const pairs: [number, number, number][] = [];
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      let sim = 0;
      for (const w of sets[a]!) if (sets[b]!.has(w)) sim++;
      if (sim >= minOverlap) pairs.push([sim, a, b]);
    }
  }
  pairs.sort((x, y) => y[0] - x[0] || x[1] - y[1] || x[2] - y[2]);
  const label = sentences.map((_, i) => i);
  for (const [, a, b] of pairs) {
    const la = label[a]!;
    const lb = label[b]!;
    if (la === lb) continue;
    const size = label.filter((l) => l === la || l === lb).length;
    if (size > maxGroupSize) continue;
    for (let i = 0; i < label.length; i++) if (label[i] === lb) label[i] = la;
  }
  const byLabel = new Map<number, number[]>();
  label.forEach((l, i) => {
    const group = byLabel.get(l) ?? [];
    group.push(i);
    byLabel.set(l, group);
  });
  return [...byLabel.values()].sort((x, y) => x[0]! - y[0]!);
}

const vocabulary = [
  "the",
  "a",
  "to",
  "lol",
  "Paris",
  "paris",
  "Obama",
  "game",
  "tonight",
  "nyc",
  "x1",
  "x2",
  "x3",
  "x4",
  ".",
  "!",
  "#nba",
  "@bob",
  "http://t.co/abc",
];
const tweetArb = fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 12 });

describe("tweetGroups", () => {
  it("links tweets sharing more than 4 word types, as the paper does, and not 4", () => {
    const groups = tweetGroups([
      ["a1", "a2", "a3", "a4", "a5", "z"],
      ["A1", "a2", "a3", "a4", "a5", "y"],
      ["a1", "a2", "a3", "a4", "q", "r"],
    ]);
    // Tweet 2 shares 4 with each; case is ignored when counting.
    expect(groups.map((g) => [...g])).toEqual([[0, 1], [2]]);
  });

  it("counts a repeated word once and ignores punctuation", () => {
    const groups = tweetGroups([
      ["w", "w", "w", "w", "w", "!", "!", ".", "?", ","],
      ["w", "!", ".", "?", ",", "w"],
    ]);
    expect(groups.length).toBe(2);
    expect(tweetGroups([["w", "w"], ["w"]], { minOverlap: 1 }).length).toBe(1);
  });

  it("takes the stronger link first when the size bound forces a choice", () => {
    const s = ["s1", "s2", "s3", "s4", "s5"];
    const groups = tweetGroups(
      [
        [...s, "t1"],
        [...s, "t1", "t2"],
        [...s, "t2", "t3"],
      ],
      { maxGroupSize: 2 },
    );
    // 0–1 share 6, 1–2 share 6, 0–2 share 5: the tie 0–1 / 1–2 goes to the smaller index.
    expect(groups.map((g) => [...g])).toEqual([[0, 1], [2]]);
  });

  it("drops stopwords and URLs in the content view", () => {
    const shared = ["the", "and", "lol", "http://t.co/x", "rt"];
    const tweets = [
      [...shared, "cat"],
      [...shared, "dog"],
    ];
    expect(tweetGroups(tweets).length).toBe(1);
    expect(tweetGroups(tweets, { words: "content" }).length).toBe(2);
  });

  it("equals quadratic Kruskal with the size bound on random tweets", () => {
    fc.assert(
      fc.property(
        fc.array(tweetArb, { minLength: 0, maxLength: 14 }),
        fc.integer({ min: 1, max: 4 }),
        fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constant(Number.POSITIVE_INFINITY)),
        fc.constantFrom("all" as const, "content" as const),
        (tweets, minOverlap, maxGroupSize, words) => {
          const groups = tweetGroups(tweets, { minOverlap, maxGroupSize, words });
          expectPartition(groups, tweets.length, maxGroupSize);
          expect(groups.map((g) => [...g])).toEqual(
            referenceGroups(tweets, minOverlap, maxGroupSize, words),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects bad options", () => {
    expect(() => tweetGroups([], { minOverlap: 0 })).toThrow(/minOverlap/);
    expect(() => tweetGroups([], { maxGroupSize: 0 })).toThrow(/maxGroupSize/);
  });
});

describe("documentGroups", () => {
  it("groups runs of equal ids", () => {
    expect(documentGroups([0, 0, 1, 1, 1, 2, 0]).map((g) => [...g])).toEqual([
      [0, 1],
      [2, 3, 4],
      [5],
      [6],
    ]);
    expect(documentGroups([])).toEqual([]);
    expect(documentGroups(Int32Array.of(7)).map((g) => [...g])).toEqual([[0]]);
  });
});

describe.skipIf(!existsSync(WNUT16_TRAIN))("tweetGroups on WNUT-16 train", () => {
  it("bounds groups at 50: 137 non-singleton groups holding 1291 of 2394 tweets", () => {
    const tweets = readTweets(WNUT16_TRAIN);
    expect(tweets.length).toBe(2394);
    const groups = tweetGroups(tweets);
    expectPartition(groups, tweets.length, 50);
    const nonSingleton = groups.filter((g) => g.length > 1);
    expect(nonSingleton.length).toBe(137);
    expect(nonSingleton.reduce((sum, g) => sum + g.length, 0)).toBe(1291);
    expect(Math.max(...groups.map((g) => g.length))).toBe(50);
  });

  it("chains 1521 tweets into one group without the bound, which is why it exists", () => {
    const groups = tweetGroups(readTweets(WNUT16_TRAIN), {
      maxGroupSize: Number.POSITIVE_INFINITY,
    });
    expect(Math.max(...groups.map((g) => g.length))).toBe(1521);
  });

  it("content words give 110 small groups holding 273 tweets", () => {
    const groups = tweetGroups(readTweets(WNUT16_TRAIN), { words: "content" });
    const nonSingleton = groups.filter((g) => g.length > 1);
    expect(nonSingleton.length).toBe(110);
    expect(nonSingleton.reduce((sum, g) => sum + g.length, 0)).toBe(273);
    expect(Math.max(...groups.map((g) => g.length))).toBe(16);
  });
});
