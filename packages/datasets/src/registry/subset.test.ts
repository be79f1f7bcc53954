import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Sentence } from "../sentence.js";
import type { Corpus } from "./corpus-model.js";
import { subsetCorpus } from "./subset.js";

function corpusOf(n: number): Corpus {
  const sentences: Sentence[] = Array.from({ length: n }, (_, i) => ({
    tokens: [`w${i}`],
    columns: [[`w${i}`]],
  }));
  return { label: "c.conll", format: "conll", scheme: "IOB2", sentences };
}

/** Each kept sentence's index in the corpus, by its one token `w<i>`. */
const indices = (corpus: Corpus) => corpus.sentences.map((s) => Number(s.tokens[0]!.slice(1)));

describe("subsetCorpus", () => {
  it("limit keeps the first n sentences; sample n distinct ones in corpus order, the same for a seed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }),
        fc.nat(),
        (n, limit, sample, seed) => {
          const corpus = corpusOf(n);
          const subset = subsetCorpus(corpus, { limit, sample, seed });
          const kept = indices(subset);
          const pool = Math.min(n, limit ?? n);
          // Brute force: the first `pool` indices, of which a sample keeps min(k, pool).
          expect(kept.length).toBe(Math.min(pool, sample ?? pool));
          expect(kept.every((i) => i < pool)).toBe(true);
          expect([...kept].sort((a, b) => a - b)).toEqual(kept);
          expect(new Set(kept).size).toBe(kept.length);
          if (sample === undefined || sample >= pool) {
            expect(kept).toEqual(Array.from({ length: pool }, (_, i) => i));
          }
          expect(indices(subsetCorpus(corpus, { limit, sample, seed }))).toEqual(kept);
        },
      ),
    );
  });

  it("samples every sentence alike: each of 10 is kept in about half of 2000 seeded samples of 5", () => {
    const corpus = corpusOf(10);
    const counts = new Array<number>(10).fill(0);
    for (let seed = 0; seed < 2000; seed++) {
      for (const i of indices(subsetCorpus(corpus, { sample: 5, seed }))) counts[i]!++;
    }
    // Binomial(2000, 0.5): standard deviation 22; 5 of them either side.
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(110);
  });

  it("says what it kept in the label, and keeps a corpus it does not cut", () => {
    const corpus = corpusOf(20);
    expect(subsetCorpus(corpus, { limit: 5 }).label).toBe("c.conll[first 5]");
    expect(subsetCorpus(corpus, { sample: 5, seed: 3 }).label).toBe("c.conll[sample 5, seed 3]");
    expect(subsetCorpus(corpus, { limit: 20 })).toBe(corpus);
    expect(subsetCorpus(corpus, {})).toBe(corpus);
    expect(() => subsetCorpus(corpus, { limit: 0 })).toThrow(/limit: expected an integer ≥ 1/);
  });
});
