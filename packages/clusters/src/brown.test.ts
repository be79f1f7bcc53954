import { checkpoints, isAbortError, lagrangeErrorCode } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { brownClusters, clusterCorpus } from "./brown.js";
import { bigramCorpus, DELIMITER_TOKEN, TokenStream } from "./corpus.js";
import { BrownEngine, TIE_TOLERANCE } from "./engine.js";
import { clusterMutualInformation } from "./information.js";

// ---------------------------------------------------------------------------------------------
// The reference: Brown clustering written from the definitions, every loss from scratch.
// ---------------------------------------------------------------------------------------------

interface Reference {
  /** Word types by rank (count descending, first occurrence first). */
  readonly words: string[];
  readonly counts: number[];
  /** Merges in order: [lower id, higher id]; merge k makes id N + k. */
  readonly merges: [number, number][];
  /** Bit string per word. */
  readonly paths: Map<string, string>;
  /** Depth-first order of the words (0 before 1), as the paths file lists them. */
  readonly order: string[];
}

/** Text counts: types by rank and a bigram counter over ranks (one token stream). */
function referenceCounts(
  sentences: readonly (readonly string[])[],
  minCount: number,
  tieOrder: readonly string[] = [],
) {
  const tokens = sentences.flat();
  const first = new Map<string, number>();
  const count = new Map<string, number>();
  tokens.forEach((t, i) => {
    if (!first.has(t)) first.set(t, i);
    count.set(t, (count.get(t) ?? 0) + 1);
  });
  const tieKey = (w: string) =>
    tieOrder.includes(w) ? tieOrder.indexOf(w) : tieOrder.length + first.get(w)!;
  const words = [...count.keys()]
    .filter((w) => w !== DELIMITER_TOKEN && count.get(w)! >= minCount)
    .sort((a, b) => count.get(b)! - count.get(a)! || tieKey(a) - tieKey(b));
  const rank = new Map(words.map((w, r) => [w, r]));
  const bigram = new Map<string, number>();
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = rank.get(tokens[i]!);
    const b = rank.get(tokens[i + 1]!);
    if (a === undefined || b === undefined) continue;
    bigram.set(`${a},${b}`, (bigram.get(`${a},${b}`) ?? 0) + 1);
  }
  return { T: tokens.length, words, counts: words.map((w) => count.get(w)!), bigram };
}

type Counts = ReturnType<typeof referenceCounts>;

/**
 * Mutual information (count·bits: wcluster's bits times T − 1) of a partition of the words
 * `0..present−1`, given as cluster index per word, from the raw bigram counts.
 */
function informationOf(counts: Counts, clusterOf: (word: number) => number, present: number) {
  const { T } = counts;
  const size = new Map<number, number>();
  for (let r = 0; r < present; r++) {
    const c = clusterOf(r);
    size.set(c, (size.get(c) ?? 0) + counts.counts[r]!);
  }
  const pairs = new Map<string, [number, number, number]>();
  for (const [key, n] of counts.bigram) {
    const [a, b] = key.split(",").map(Number) as [number, number];
    if (a >= present || b >= present) continue;
    const ca = clusterOf(a);
    const cb = clusterOf(b);
    const k = `${ca},${cb}`;
    const cell = pairs.get(k) ?? [ca, cb, 0];
    cell[2] += n;
    pairs.set(k, cell);
  }
  let info = 0;
  for (const [ca, cb, n] of pairs.values()) {
    info += n * Math.log2((n * T * T) / ((T - 1) * size.get(ca)! * size.get(cb)!));
  }
  return info;
}

/** The rule the engine documents: least loss; within tolerance, smallest (lower id, higher id). */
function choose(candidates: { loss: number; lo: number; hi: number }[]) {
  const min = Math.min(...candidates.map((c) => c.loss));
  const threshold = min + TIE_TOLERANCE * Math.max(1, Math.abs(min));
  return candidates
    .filter((c) => c.loss <= threshold)
    .sort((x, y) => x.lo - y.lo || x.hi - y.hi)[0]!;
}

function referenceBrown(
  sentences: readonly (readonly string[])[],
  C: number,
  minCount = 1,
  tieOrder: readonly string[] = [],
): Reference {
  const counts = referenceCounts(sentences, minCount, tieOrder);
  const N = counts.words.length;
  // Clusters: id → member words.
  const clusters = new Map<number, number[]>();
  const merges: [number, number][] = [];
  const mergeBest = (present: number) => {
    const ids = [...clusters.keys()];
    const member = new Map<number, number>();
    for (const [id, ws] of clusters) for (const w of ws) member.set(w, id);
    const before = informationOf(counts, (w) => member.get(w)!, present);
    const candidates: { loss: number; lo: number; hi: number }[] = [];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const lo = Math.min(ids[i]!, ids[j]!);
        const hi = Math.max(ids[i]!, ids[j]!);
        const after = informationOf(
          counts,
          (w) => (member.get(w) === hi ? lo : member.get(w)!),
          present,
        );
        candidates.push({ loss: before - after, lo, hi });
      }
    }
    const best = choose(candidates);
    const id = N + merges.length;
    clusters.set(id, [...clusters.get(best.lo)!, ...clusters.get(best.hi)!]);
    clusters.delete(best.lo);
    clusters.delete(best.hi);
    merges.push([best.lo, best.hi]);
  };
  const initial = Math.min(C, N);
  for (let r = 0; r < initial; r++) clusters.set(r, [r]);
  for (let r = initial; r < N; r++) {
    clusters.set(r, [r]);
    mergeBest(r + 1);
  }
  const firstBit = merges.length;
  while (clusters.size > 1) mergeBest(N);
  // Bit strings: only the second stage's merges add a bit; lower id → 0.
  const paths = new Map<string, string>();
  const order: string[] = [];
  const walk = (node: number, path: string) => {
    if (node < N) {
      paths.set(counts.words[node]!, path);
      order.push(counts.words[node]!);
      return;
    }
    const k = node - N;
    const [lo, hi] = merges[k]!;
    const extend = k >= firstBit;
    walk(lo, extend ? `${path}0` : path);
    walk(hi, extend ? `${path}1` : path);
  };
  if (N > 0) walk(merges.length > 0 ? N + merges.length - 1 : 0, "");
  return { words: counts.words, counts: counts.counts, merges, paths, order };
}

// ---------------------------------------------------------------------------------------------
// Random corpora: ≤ 8 word types, a few sentences.
// ---------------------------------------------------------------------------------------------

const VOCABULARY = ["a", "b", "c", "d", "e", "f", "g", "h"];

const corpusArb = (types = 8) =>
  fc.array(
    fc.array(fc.constantFrom(...VOCABULARY.slice(0, types)), { minLength: 1, maxLength: 12 }),
    {
      minLength: 1,
      maxLength: 5,
    },
  );

function countsOf(
  sentences: readonly (readonly string[])[],
  minCount = 1,
  tieOrder: readonly string[] = [],
) {
  const stream = new TokenStream();
  for (const s of sentences) for (const t of s) stream.push(t);
  return bigramCorpus(stream.ids, stream.length, stream.types, minCount, tieOrder);
}

describe("brownClusters against the brute force", () => {
  it("makes the same merges and the same bit strings, at every C and tie order", async () => {
    await fc.assert(
      fc.asyncProperty(
        corpusArb(),
        fc.integer({ min: 1, max: 9 }),
        fc.shuffledSubarray(VOCABULARY),
        async (sentences, C, tieOrder) => {
          const reference = referenceBrown(sentences, C, 1, tieOrder);
          const corpus = countsOf(sentences, 1, tieOrder);
          expect(corpus.words).toEqual(reference.words);
          const run = await clusterCorpus(corpus, C);
          const merges: [number, number][] = [];
          for (let k = 0; k < run.engine.mergeCount; k++) {
            merges.push([run.engine.merges[2 * k]!, run.engine.merges[2 * k + 1]!]);
          }
          expect(merges).toEqual(reference.merges);
          const result = await brownClusters(sentences, { clusters: C, tieOrder });
          expect(result.words).toEqual(reference.order);
          for (let i = 0; i < result.words.length; i++) {
            expect(result.paths[i]).toBe(reference.paths.get(result.words[i]!));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("with C at least the number of types is plain agglomerative clustering (every merge a bit)", async () => {
    await fc.assert(
      fc.asyncProperty(corpusArb(), fc.integer({ min: 0, max: 3 }), async (sentences, extra) => {
        const N = new Set(sentences.flat()).size;
        const reference = referenceBrown(sentences, N + extra);
        const result = await brownClusters(sentences, { clusters: N + extra });
        expect(result.clusters).toBe(N);
        // N leaves, all distinct bit strings: a full binary tree over the words.
        expect(new Set(result.paths).size).toBe(N);
        for (let i = 0; i < result.words.length; i++) {
          expect(result.paths[i]).toBe(reference.paths.get(result.words[i]!));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps the loss table and the mutual information equal to a from-scratch recomputation", () => {
    fc.assert(
      fc.property(corpusArb(), fc.integer({ min: 1, max: 6 }), (sentences, C) => {
        const corpus = countsOf(sentences);
        const reference = referenceCounts(sentences, 1);
        const N = corpus.words.length;
        const engine = new BrownEngine(corpus, C);
        let present = 0;
        const check = () => {
          const clusterOf = (w: number) => engine.slotOfWord(w);
          const info = informationOf(reference, clusterOf, present);
          expect(engine.mutualInformation).toBeCloseTo(info, 9);
          const slots = Array.from(engine.active.subarray(0, engine.size));
          for (const v of slots) {
            for (const w of slots) {
              if (v >= w) continue;
              const merged = (x: number) => (clusterOf(x) === w ? v : clusterOf(x));
              const loss = info - informationOf(reference, merged, present);
              expect(engine.lossOf(v, w)).toBeCloseTo(loss, 9);
              expect(engine.freshLoss(v, w)).toBeCloseTo(loss, 9);
            }
          }
        };
        for (let r = 0; r < N; r++) {
          engine.addWord(r);
          present++;
          check();
          if (engine.size > C) {
            engine.mergePair(engine.bestPair());
            check();
          }
        }
        for (let at = engine.bestPair(); at >= 0; at = engine.bestPair()) {
          engine.mergePair(at);
          check();
        }
        expect(engine.mutualInformation).toBeCloseTo(0, 9);
      }),
      { numRuns: 200 },
    );
  });

  it("computes a new word's losses, and those of its merge, as the O(C) computation does, over many merges", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 600, maxLength: 1500 }),
        fc.integer({ min: 2, max: 8 }),
        (draws, C) => {
          // Zipf-like: small ids are frequent, the tail is mostly hapaxes (hundreds of merges).
          const tokens = draws.map((d) => `w${Math.floor((d * d) / 400)}`);
          const engine = new BrownEngine(countsOf([tokens]), C);
          for (let r = 0; r < engine.N; r++) {
            engine.addWord(r);
            const s = engine.slotOfWord(r);
            for (const w of engine.active.subarray(0, engine.size)) {
              if (w === s) continue;
              const fresh = engine.freshLoss(s, w);
              expect(Math.abs(engine.lossOf(s, w) - fresh)).toBeLessThan(
                1e-9 * Math.max(1, Math.abs(fresh)),
              );
            }
            if (engine.size > C) {
              engine.mergePair(engine.bestPair());
              // The merged cluster's losses, derived or fresh, equal the O(C) computation.
              const u = engine.slotOfWord(r);
              for (const w of engine.active.subarray(0, engine.size)) {
                if (w === u) continue;
                const fresh = engine.freshLoss(u, w);
                expect(Math.abs(engine.lossOf(u, w) - fresh)).toBeLessThan(
                  1e-9 * Math.max(1, Math.abs(fresh)),
                );
              }
            }
          }
          expect(engine.mergeCount).toBe(engine.N - Math.min(C, engine.N));
        },
      ),
      { numRuns: 10 },
    );
  });

  it("drops words rarer than minCount and the delimiter, counting them in the text length", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.constantFrom(...VOCABULARY.slice(0, 6), DELIMITER_TOKEN), {
            minLength: 1,
            maxLength: 12,
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (sentences, C, minCount) => {
          const reference = referenceBrown(sentences, C, minCount);
          const result = await brownClusters(sentences, { clusters: C, minCount });
          expect(result.words).toEqual(reference.order);
          expect(result.words).not.toContain(DELIMITER_TOKEN);
          expect(result.tokens).toBe(sentences.flat().length);
          for (let i = 0; i < result.words.length; i++) {
            expect(result.paths[i]).toBe(reference.paths.get(result.words[i]!));
            expect(result.counts[i]).toBeGreaterThanOrEqual(minCount);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("reports the mutual information at C that clusterMutualInformation recomputes from its paths", async () => {
    await fc.assert(
      fc.asyncProperty(corpusArb(), fc.integer({ min: 1, max: 5 }), async (sentences, C) => {
        const result = await brownClusters(sentences, { clusters: C });
        const again = await clusterMutualInformation(sentences, result);
        expect(result.mutualInformation).toBeCloseTo(again, 9);
      }),
      { numRuns: 100 },
    );
  });
});

describe("brownClusters", () => {
  it("reads async iterables, reports progress to the end and stops on its signal", async () => {
    async function* lines() {
      for (let i = 0; i < 50; i++) yield [`w${i % 17}`, `v${i % 5}`, "the"];
    }
    const seen: [number, number][] = [];
    const result = await brownClusters(lines(), {
      clusters: 4,
      onProgress: (done, total) => seen.push([done, total]),
    });
    expect(result.words.length).toBe(23);
    expect(seen.at(-1)).toEqual([22, 22]);
    const controller = new AbortController();
    controller.abort();
    const stopped = await brownClusters(lines(), { signal: controller.signal }).catch((e) => e);
    expect(isAbortError(stopped)).toBe(true);
  });

  it("refuses bad options and tokens with whitespace", async () => {
    for (const options of [{ clusters: 0 }, { clusters: 1.5 }, { minCount: 0 }]) {
      const error = await brownClusters([["a"]], options).catch((e) => e);
      expect(lagrangeErrorCode(error)).toBe("invalid-problem");
    }
    const error = await brownClusters([["a b"]]).catch((e) => e);
    expect(lagrangeErrorCode(error)).toBe("invalid-problem");
    expect(String(error.message)).toContain("sentence 1");
  });

  it("clusters an empty text and a single word", async () => {
    expect((await brownClusters([])).words).toEqual([]);
    const one = await brownClusters([["x", "x"]]);
    expect(one.words).toEqual(["x"]);
    expect(one.paths).toEqual([""]);
    expect(one.pathOf("y")).toBeUndefined();
    const pace = checkpoints();
    const run = await clusterCorpus(countsOf([["x"]]), 3, pace);
    expect(run.engine.mergeCount).toBe(0);
  });
});
