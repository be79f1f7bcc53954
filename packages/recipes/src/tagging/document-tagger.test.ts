import { modelToBytes } from "@lagrange/chain-crf";
import {
  candidateTemplates,
  documentInstantiator,
  type SegmentIndex as Index,
  SegmentIndex,
  serializeConstraintsFile,
  templateFromSpec,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import { type ChainScores, chainDecoder, scoreLabelling, seededRandom } from "@lagrange/core";
import { chainArgmax, concatenateChains } from "@lagrange/core/chain";
import { bruteForceBest, randomChainScores } from "@lagrange/core/testing";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { exactIlpDecoder, prepareIlp } from "@lagrange/ilp";
import { hardDD, softDD } from "@lagrange/soft-dd";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { trainOnCorpus } from "../training.js";
import { decodeDocument } from "./document-tagger-decoding.js";
import { openTagger } from "./open-tagger.js";
import { isTagFailure } from "./sequence-tagger.js";

const LABEL_SETS = [
  ["O", "B-PER", "I-PER"],
  ["O", "B-PER", "I-PER", "B-ORG"],
  ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"],
] as const;
const VOCABULARY = ["Bank", "of", "BB"];

/** A random document: 2–3 sentences of 2–3 tokens (at most 6 tokens with 5 labels), its chains. */
const documentArb = fc
  .record({
    set: fc.integer({ min: 0, max: LABEL_SETS.length - 1 }),
    seed: fc.integer({ min: 0, max: 2 ** 30 }),
    penalties: fc.array(fc.constantFrom(0.5, 1, 2.5), { minLength: 4, maxLength: 4 }),
  })
  .chain(({ set, seed, penalties }) => {
    const L = LABEL_SETS[set]!.length;
    const sentences = L === 5 ? 2 : 3;
    return fc.record({
      set: fc.constant(set),
      seed: fc.constant(seed),
      penalties: fc.constant(penalties),
      lengths: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: sentences }),
    });
  })
  .chain(
    (d) =>
      fc.record({
        ...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, fc.constant(v)])),
        tokens: fc.tuple(
          ...d.lengths.map((n) =>
            fc.array(fc.constantFrom(...VOCABULARY), { minLength: n, maxLength: n }),
          ),
        ),
      }) as fc.Arbitrary<typeof d & { tokens: string[][] }>,
  );

function instanceOf(d: { set: number; seed: number; lengths: number[] }) {
  const labels = LABEL_SETS[d.set]!;
  const index = new SegmentIndex([...labels], "IOB2");
  const random = seededRandom(d.seed);
  const chains = d.lengths.map((n) =>
    randomChainScores(Math.floor(random() * 2 ** 30), {
      n,
      L: labels.length,
      startEnd: true,
      forbiddenFraction: 0.1,
      integer: random() < 0.3,
    }),
  );
  return { index, chains };
}

/** The document family over every type, and one sentence rule, at the given penalties. */
function weighted(index: Index, penalties: readonly (number | null)[]): WeightedTemplate[] {
  const templates = [
    ...candidateTemplates(index, { families: ["document"] }),
    templateFromSpec({ kind: "singleton", segment: "PER" }, index),
  ];
  return templates.map((template, k) => ({ template, penalty: penalties[k % penalties.length]! }));
}

/** The enumerated optimum of score − penalties over the document's positions end to end. */
function enumerated(chains: readonly ChainScores[], tokens: string[][], w: WeightedTemplate[]) {
  const { scores, starts } = concatenateChains(chains);
  const constraints = documentInstantiator(w)({
    n: scores.n,
    L: scores.L,
    tokens: tokens.flat(),
    sentenceStarts: starts,
  });
  return bruteForceBest(scores, { constraints });
}

describe("decodeDocument: a document's sentence chains end to end", () => {
  beforeAll(async () => {
    await prepareIlp();
  });

  it("under hard document constraints, exact and certified hard-dd find the enumerated optimum", () => {
    let binding = 0;
    fc.assert(
      fc.property(documentArb, (d) => {
        const { index, chains } = instanceOf(d);
        const w = weighted(index, [null]);
        const best = enumerated(chains, d.tokens, w);
        const parts = { constraintsFor: documentInstantiator(w) };
        const exact = decodeDocument(exactIlpDecoder(), chains, d.tokens, parts);
        if (best.score === Number.NEGATIVE_INFINITY) {
          expect(exact.decoding.status).toBe("infeasible");
          return;
        }
        expect(exact.decoding.primal).toBeCloseTo(best.score, 6);
        if (best.score < bruteForceBest(concatenateChains(chains).scores).score - 1e-9) binding++;
        const dd = decodeDocument(hardDD(), chains, d.tokens, parts, { maxIterations: 300 });
        if (dd.decoding.certified) expect(dd.decoding.primal).toBeCloseTo(best.score, 6);
      }),
      { numRuns: 60, seed: 37 },
    );
    // The rules bind often enough for the comparison to test something.
    expect(binding).toBeGreaterThan(10);
  });

  it("under soft ones, a certified Soft-DD decoding's primal is the enumerated score − penalties", () => {
    let certified = 0;
    fc.assert(
      fc.property(documentArb, (d) => {
        const { index, chains } = instanceOf(d);
        const w = weighted(index, d.penalties);
        const best = enumerated(chains, d.tokens, w);
        const found = decodeDocument(
          softDD(),
          chains,
          d.tokens,
          { constraintsFor: documentInstantiator(w) },
          { maxIterations: 300 },
        );
        if (best.score === Number.NEGATIVE_INFINITY) return;
        expect(found.decoding.dual).toBeGreaterThanOrEqual(best.score - 1e-7);
        if (!found.decoding.certified) return;
        certified++;
        expect(found.decoding.primal).toBeCloseTo(best.score, 6);
      }),
      { numRuns: 80, seed: 38 },
    );
    expect(certified).toBeGreaterThan(40);
  });

  it("without constraints, the labels split back are each sentence's own Viterbi", () => {
    fc.assert(
      fc.property(documentArb, (d) => {
        const { chains } = instanceOf(d);
        const found = decodeDocument(chainDecoder(), chains, d.tokens, {
          constraintsFor: () => [],
        });
        chains.forEach((c, k) => {
          const own = chainArgmax(c);
          expect(scoreLabelling(c, found.labels[k]!)).toBe(own.score);
        });
      }),
      { numRuns: 100, seed: 39 },
    );
  });
});

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Bank", "of", "France"], "ORG"],
];
const FILLER = ["said", "the", "on", "won", "in", "match", "today", "."];

/** Documents whose names repeat, IOB2 labels. */
function corpus(documents: number, perDocument: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: Sentence[] = [];
  for (let d = 0; d < documents; d++) {
    const cast = [pick(NAMES), pick(NAMES)];
    for (let k = 0; k < perDocument; k++) {
      const words: string[] = [];
      const labels: string[] = [];
      for (let w = 0; w < 5; w++) {
        if (random() < 0.4) {
          const [tokens, type] = pick(cast);
          tokens.forEach((t, i) => {
            words.push(t);
            labels.push(`${i === 0 ? "B" : "I"}-${type}`);
          });
        } else {
          words.push(pick(FILLER));
          labels.push("O");
        }
      }
      sentences.push({
        tokens: words,
        columns: [words, labels],
        labels,
        document: { index: d },
        source: { file: "t.conll", line: 1 + sentences.length * 7 },
      });
    }
  }
  return { label: "generated", format: "conll", sentences, scheme: "IOB2" };
}

describe("lagrange tag with document constraints", () => {
  const data = corpus(6, 3, 11);
  let model: Uint8Array;
  let constraints: string;
  beforeAll(async () => {
    const trained = await trainOnCorpus(data, { preset: "ner-words", maxIterations: 20 });
    model = modelToBytes(trained.model);
    const index = new SegmentIndex(trained.model.labels.names(), "IOB2");
    constraints = serializeConstraintsFile({
      index,
      entries: candidateTemplates(index, { families: ["document"] }).map((template) => ({
        template,
        penalty: null,
      })),
    });
  });

  it("decodes a document at a time, with soft-dd when no decoder is named", async () => {
    const tagger = await openTagger({
      model,
      constraints: { source: "doc.json", text: constraints },
    });
    expect(tagger.unit).toBe("corpus");
    expect(tagger.decoder).toBe("soft-dd");
    const batch = await tagger.tag(data.sentences);
    expect(batch.items).toHaveLength(data.sentences.length);
    for (const [k, item] of batch.items.entries()) {
      if (isTagFailure(item)) throw new Error(item.reason);
      expect(item.labels).toHaveLength(data.sentences[k]!.tokens.length);
      // Hard rules: a certified document breaks none by the independent check.
      if (item.stats.certified) expect(item.stats.brokenHard).toBe(0);
    }
    expect(tagger.summary()).toMatch(/^6 documents, \d+ with constraints/);
  });

  it("a sentence tagger without document constraints, and a refused n-best with them", async () => {
    const plain = await openTagger({ model });
    expect(plain.unit).toBe("sentence");
    const tagger = await openTagger({
      model,
      decoder: "hard-dd",
      constraints: { source: "doc.json", text: constraints },
    });
    expect(() => tagger.check({ nbest: { k: 2 } })).toThrow(/a document at a time/);
  });

  it("scores each sentence's labels and spans under its chain, chain-unconstrained where linked", async () => {
    const tagger = await openTagger({
      model,
      constraints: { source: "doc.json", text: constraints },
    });
    const plain = await openTagger({ model });
    const confidence = { marginals: true, probability: true, spans: true } as const;
    const batch = await tagger.tag(data.sentences, { confidence });
    let linked = 0;
    let compared = 0;
    for (const [k, item] of batch.items.entries()) {
      if (isTagFailure(item)) throw new Error(item.reason);
      const record = item.confidence!;
      // The same chain as the sentence tagger's: where the document's decoding kept the chain's
      // Viterbi labels, its probability and span scores are the sentence tagger's.
      const forced = await plain.tag([data.sentences[k]!], { confidence });
      const own = forced.items[0]!;
      if (isTagFailure(own)) throw new Error(own.reason);
      const same = own.labels.every((label, i) => label === item.labels[i]);
      for (const span of record.spans!) {
        expect(span.probability).toBeGreaterThan(0);
        expect(span.probability).toBeLessThanOrEqual(1 + 1e-9);
      }
      if (item.stats.changed !== true && same) {
        expect(record.probability).toBeCloseTo(own.confidence!.probability!, 9);
        expect(record.spans).toEqual(own.confidence!.spans);
        compared++;
      }
      if (record.spansOf === "chain-unconstrained") linked++;
      else expect(record.spansOf).toBe("chain");
    }
    expect(linked).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(0);
  });
});
