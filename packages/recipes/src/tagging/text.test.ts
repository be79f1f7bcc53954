import { forwardBackward, loadModelFromBytes, modelToBytes } from "@lagrange/chain-crf";
import { lagrangeErrorCode, seededRandom } from "@lagrange/core";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { beforeAll, describe, expect, it } from "vitest";
import { Tagger } from "../tagger.js";
import { trainOnCorpus } from "../training.js";
import { taggerFromModel } from "./chain-tagger.js";
import { openTagger } from "./open-tagger.js";
import type { SequenceTagger } from "./sequence-tagger.js";
import { labelsAndSpans, tagText } from "./text.js";

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Paris"], "LOC"],
  [["Bank", "of", "France"], "ORG"],
];
const FILLER = ["said", "the", "on", "won", "in", "match", "today", "and"];

/** Sentences of names and filler ending in a period, IOB2, with POS and chunk columns too. */
function corpus(count: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: Sentence[] = [];
  const document = { index: 0 };
  for (let k = 0; k < count; k++) {
    const words: string[] = [];
    const labels: string[] = [];
    for (let w = 0; w < 6; w++) {
      if (random() < 0.4) {
        const [tokens, type] = pick(NAMES);
        tokens.forEach((t, i) => {
          words.push(t);
          labels.push(`${i === 0 ? "B" : "I"}-${type}`);
        });
      } else {
        words.push(pick(FILLER));
        labels.push("O");
      }
    }
    words.push(".");
    labels.push("O");
    const pos = words.map((w) => (/^[A-Z]/.test(w) ? "NNP" : "X"));
    const chunk = words.map(() => "O");
    sentences.push({
      tokens: words,
      columns: [words, pos, chunk, labels],
      labels,
      document,
      source: { file: "t.conll", line: 1 + sentences.length * 9 },
    });
  }
  return { label: "generated", format: "conll", sentences, scheme: "IOB2" };
}

/** The same sentences with the word and the label only. */
function wordsOnly(data: Corpus): Corpus {
  return {
    ...data,
    sentences: data.sentences.map((s) => ({ ...s, columns: [s.tokens, s.labels!] })),
  };
}

const data = corpus(60, 3);
const TEXT = "Alan Shearer said the match in Paris today.\n\nBank of France won,  Newcastle said.";

describe("tagText: text in, entities with offsets out", () => {
  let bytes: Uint8Array;
  let chain: SequenceTagger;
  beforeAll(async () => {
    const { model } = await trainOnCorpus(wordsOnly(data), {
      preset: "ner-words",
      maxIterations: 30,
      internalScheme: "BIOES",
    });
    bytes = modelToBytes(model);
    chain = await openTagger({ model: bytes, modelName: "words.model" });
  }, 60_000);

  it("a chain CRF: sentences, tokens with offsets, labels and scored entities", async () => {
    const tagged = await tagText(chain, TEXT);
    expect(tagged.scoreOf).toBe("chain");
    expect(tagged.sentences.length).toBe(2);
    expect(tagged.sentences[1]!.tokens.map((t) => t.text)).toEqual([
      "Bank",
      "of",
      "France",
      "won",
      ",",
      "Newcastle",
      "said",
      ".",
    ]);
    expect(tagged.entities.map((e) => [e.type, e.text])).toEqual([
      ["PER", "Alan Shearer"],
      ["LOC", "Paris"],
      ["ORG", "Bank of France"],
      ["ORG", "Newcastle"],
    ]);
    for (const e of tagged.entities) {
      expect(TEXT.slice(e.start, e.end)).toBe(e.text);
      expect(e.score).toBeGreaterThan(0);
      expect(e.score).toBeLessThanOrEqual(1);
    }
    // Labels are the output scheme's (IOB2), although the model decodes under BIOES.
    expect(tagged.sentences[0]!.labels.slice(0, 2)).toEqual(["B-PER", "I-PER"]);
    expect(tagged.entities).toEqual(tagged.sentences.flatMap((s) => s.entities));
  });

  it("taggerFromModel (a page's tagger over a model from bytes) gives openTagger's entities and scores", async () => {
    const fromBytes = taggerFromModel(loadModelFromBytes(bytes, "words.model"), {
      modelName: "words.model",
    });
    expect(fromBytes.decoder).toBe("viterbi");
    expect(await tagText(fromBytes, TEXT)).toEqual(await tagText(chain, TEXT));
  });

  it("a span's score is at most each of its tokens' marginals, computed on the model's scores", async () => {
    const tagged = await tagText(chain, TEXT);
    const model = loadModelFromBytes(bytes);
    const engine = new Tagger({ model });
    for (const sentence of tagged.sentences) {
      const tokens = sentence.tokens.map((t) => t.text);
      const s: Sentence = { tokens, columns: [tokens] };
      const done = engine.tagAttributes(engine.attributes(s), tokens);
      const { marginals } = forwardBackward(done.scores);
      const L = model.numLabels;
      for (const e of sentence.entities) {
        const first = sentence.tokens.findIndex((t) => t.start === e.start);
        const last = sentence.tokens.findIndex((t) => t.end === e.end);
        for (let i = first; i <= last; i++) {
          const p = marginals[i * L + done.decoding.labels[i]!]!;
          expect(e.score!).toBeLessThanOrEqual(p + 1e-6);
        }
      }
    }
  });

  it("a tagger without marginals (a general CRF, the whole text one document): scores null", async () => {
    const general = loadModelFromBytes(bytes).withSettings({
      generalCrf: {
        groups: "documents",
        outsideLabel: 0,
        weights: [0.5, 0.1, 0.2, 0.1, 0.3, 0.1],
        subsequences: [[], [0, 1, 2], [0, 1, 1, 2]],
        factors: { maxLength: 2, maxOccurrences: 10 },
      },
    });
    const tagger = await openTagger({ model: modelToBytes(general), modelName: "general.model" });
    expect(tagger.unit).toBe("corpus");
    const tagged = await tagText(tagger, TEXT);
    expect(tagged.scoreOf).toBeNull();
    expect(tagged.entities.length).toBeGreaterThan(0);
    for (const e of tagged.entities) {
      expect(e.score).toBeNull();
      expect(TEXT.slice(e.start, e.end)).toBe(e.text);
    }
  });

  it("empty text: no sentences", async () => {
    expect(await tagText(chain, " \n\n ")).toEqual({
      sentences: [],
      entities: [],
      scoreOf: null,
      warnings: [],
    });
  });

  it("a model that reads POS and chunk columns refuses text, naming them", async () => {
    const { model } = await trainOnCorpus(data, { preset: "ner", maxIterations: 3 });
    const tagger = await openTagger({ model: modelToBytes(model), modelName: "ner.model" });
    expect(tagger.columns).toEqual(["word", "pos", "chunk"]);
    const error = await tagText(tagger, TEXT).catch((e: unknown) => e as Error);
    expect(lagrangeErrorCode(error)).toBe("usage");
    expect((error as Error).message).toMatch(
      /^ner\.model reads the input columns word, pos, chunk; text gives the word alone, not pos, chunk/,
    );
  }, 60_000);

  it("labelsAndSpans: ids or names to names and spans, in one call", () => {
    const model = loadModelFromBytes(bytes);
    const internal = ["B-PER", "E-PER", "O", "S-LOC"].map((l) => model.labels.lookup(l));
    expect(labelsAndSpans(Int32Array.from(internal), model)).toEqual({
      labels: ["B-PER", "I-PER", "O", "B-LOC"],
      spans: [
        { type: "PER", start: 0, end: 2, level: 0 },
        { type: "LOC", start: 3, end: 4, level: 0 },
      ],
    });
    expect(labelsAndSpans(["B-PER", "I-PER", "O"], chain).spans).toEqual([
      { type: "PER", start: 0, end: 2, level: 0 },
    ]);
    const id = chain.labels.indexOf("B-LOC");
    expect(labelsAndSpans([id], chain)).toEqual({
      labels: ["B-LOC"],
      spans: [{ type: "LOC", start: 0, end: 1, level: 0 }],
    });
    expect(() => labelsAndSpans([99], chain)).toThrow(/label 1: id 99 is not one of the/);
  });
});
