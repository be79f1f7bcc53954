import { NO_VOTE } from "@lagrange/chain-crf";
import { inputRows, type Sentence } from "@lagrange/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeVotes,
  entitiesOf,
  OUTSIDE,
  VOTE_BLOCK,
  type VotingSentence,
  voteDocuments,
  withVoteColumns,
} from "./votes.js";

/** The winner of a list of values as the votes define it, by sorting (not by a running best). */
function winner(values: readonly string[]): string {
  if (values.length === 0) return NO_VOTE;
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ranked = [...counts].sort(
    ([a, n], [b, m]) =>
      m - n || Number(a === OUTSIDE) - Number(b === OUTSIDE) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return ranked[0]![0];
}

/** Every vote by enumerating every other occurrence of every token and entity. */
function bruteForce(sentences: readonly VotingSentence[], documents: Int32Array) {
  const typeAt = (i: number, t: number) =>
    sentences[i]!.entities.find((e) => e.start <= t && t < e.end)?.type ?? OUTSIDE;
  const text = (i: number, e: { start: number; end: number }) =>
    sentences[i]!.words.slice(e.start, e.end).join(" ");
  return sentences.map((s, i) => {
    const dtok: string[] = [];
    const ctok: string[] = [];
    const dent: string[] = s.words.map(() => NO_VOTE);
    s.words.forEach((word, t) => {
      const inDocument: string[] = [];
      const inCorpus: string[] = [];
      for (const [j, o] of sentences.entries()) {
        for (const [u, w] of o.words.entries()) {
          if (w !== word || (i === j && t === u)) continue;
          inCorpus.push(typeAt(j, u));
          if (documents[j] === documents[i]) inDocument.push(typeAt(j, u));
        }
      }
      dtok.push(winner(inDocument));
      ctok.push(winner(inCorpus));
    });
    for (const e of s.entities) {
      const others: string[] = [];
      sentences.forEach((o, j) => {
        if (documents[j] !== documents[i]) return;
        for (const f of o.entities) {
          if (j === i && f === e) continue;
          if (text(j, f) === text(i, e)) others.push(f.type);
        }
      });
      for (let t = e.start; t < e.end; t++) dent[t] = winner(others);
    }
    return { dtok, dent, ctok };
  });
}

const WORDS = ["Paris", "Kane", "the", "Bank", "of", "Paris"];
const TYPES = ["LOC", "PER", "ORG"];

/** Sentences of a few words with non-overlapping entities, and contiguous document numbers. */
const corpusArbitrary = fc
  .array(
    fc.record({
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
      cuts: fc.array(fc.tuple(fc.nat(5), fc.nat(2), fc.constantFrom(...TYPES)), { maxLength: 3 }),
      newDocument: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((raw) => {
    let doc = 0;
    const documents = new Int32Array(raw.length);
    const sentences: VotingSentence[] = raw.map((r, i) => {
      if (i > 0 && r.newDocument) doc++;
      documents[i] = doc;
      const taken = new Uint8Array(r.words.length);
      const entities: { start: number; end: number; type: string }[] = [];
      for (const [at, extra, type] of r.cuts) {
        const start = at % r.words.length;
        const end = Math.min(r.words.length, start + 1 + extra);
        if (taken.subarray(start, end).some((x) => x === 1)) continue;
        taken.fill(1, start, end);
        entities.push({ start, end, type });
      }
      entities.sort((a, b) => a.start - b.start);
      return { words: r.words, entities };
    });
    return { sentences, documents };
  });

describe("computeVotes", () => {
  it("equals a brute-force count of every other occurrence (fast-check)", () => {
    fc.assert(
      fc.property(corpusArbitrary, ({ sentences, documents }) => {
        expect(computeVotes(sentences, documents)).toEqual(bruteForce(sentences, documents));
      }),
      { numRuns: 300 },
    );
  });

  it("never lets an occurrence vote for itself: a word seen once has no vote", () => {
    const votes = computeVotes(
      [{ words: ["Kane", "scored"], entities: [{ start: 0, end: 1, type: "PER" }] }],
      Int32Array.of(0),
    );
    expect(votes[0]).toEqual({
      dtok: [NO_VOTE, NO_VOTE],
      dent: [NO_VOTE, NO_VOTE],
      ctok: [NO_VOTE, NO_VOTE],
    });
  });

  it("plain tags vote as themselves", () => {
    const votes = computeVotes(
      [
        { words: ["run", "run"], entities: [], types: ["VERB", "NOUN"] },
        { words: ["run"], entities: [], types: ["VERB"] },
      ],
      Int32Array.of(0, 0),
    );
    // The first "run" sees NOUN and VERB once each: a tie goes to the type first in order.
    expect(votes[0]!.dtok).toEqual(["NOUN", "VERB"]);
    expect(votes[1]!.dtok).toEqual(["NOUN"]);
  });
});

describe("vote documents and columns", () => {
  const sentence = (words: string[], document?: number): Sentence => {
    const labels = words.map(() => "O");
    return {
      tokens: words,
      columns: [words, words.map(() => "NN"), labels],
      labels,
      ...(document === undefined ? {} : { document: { index: document } }),
    };
  };

  it("uses the data's documents, else blocks of consecutive sentences", () => {
    const marked = [sentence(["a"], 0), sentence(["b"], 0), sentence(["c"], 1)];
    expect([...voteDocuments(marked)]).toEqual([0, 0, 1]);
    const plain = Array.from({ length: VOTE_BLOCK * 2 + 1 }, () => sentence(["x"]));
    const blocks = voteDocuments(plain);
    expect(blocks[0]).toBe(0);
    expect(blocks[VOTE_BLOCK - 1]).toBe(0);
    expect(blocks[VOTE_BLOCK]).toBe(1);
    expect(blocks[2 * VOTE_BLOCK]).toBe(2);
  });

  it("appends the votes after the input columns; the gold label stays out of the input", () => {
    const s = sentence(["Paris", "is"]);
    const voted = withVoteColumns(s, {
      dtok: ["LOC", "O"],
      dent: ["LOC", NO_VOTE],
      ctok: ["PER", "O"],
    });
    expect(inputRows(voted)).toEqual([
      ["Paris", "NN", "LOC", "LOC", "PER"],
      ["is", "NN", "O", NO_VOTE, "O"],
    ]);
    expect(voted.labels).toEqual(["O", "O"]);
    expect(inputRows(s)).toEqual([
      ["Paris", "NN"],
      ["is", "NN"],
    ]);
  });

  it("reads the outermost entities of a labelling", () => {
    expect(
      entitiesOf(["B-PER", "I-PER", "O", "B-LOC"], "IOB2").map((e) => [e.start, e.end, e.type]),
    ).toEqual([
      [0, 2, "PER"],
      [3, 4, "LOC"],
    ]);
    expect(entitiesOf(["NN", "VB"], "none")).toEqual([]);
  });
});
