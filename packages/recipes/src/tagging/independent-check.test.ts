import { SegmentIndex, templateFromSpec } from "@lagrange/constraint-templates";
import { type Decoder, exactDecoding, seededRandom } from "@lagrange/core";
import { type Corpus, convertScheme, type Sentence } from "@lagrange/datasets";
import { beforeAll, describe, expect, it } from "vitest";
import { standardDecoders } from "../decoders.js";
import { trainOnCorpus } from "../training.js";
import { chainTagger } from "./chain-tagger.js";
import { isTagFailure, type SequenceTagger } from "./sequence-tagger.js";

const PLACES = ["Paris", "Lyon", "Berlin"];
const PEOPLE = ["Alan", "Kim"];
const FILLER = ["said", "the", "in", "and", "met", "today"];

/** Sentences with one to three place names and a person, CoNLL-2003's own scheme (IOB1). */
function iob1Corpus(count: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: Sentence[] = [];
  for (let s = 0; s < count; s++) {
    const tokens: string[] = [];
    const iob2: string[] = [];
    for (let w = 0; w < 7; w++) {
      const r = random();
      if (r < 0.3) {
        tokens.push(pick(PLACES));
        iob2.push("B-LOC");
      } else if (r < 0.4) {
        tokens.push(pick(PEOPLE));
        iob2.push("B-PER");
      } else {
        tokens.push(pick(FILLER));
        iob2.push("O");
      }
    }
    const labels = convertScheme(iob2, "IOB2", "IOB1");
    sentences.push({ tokens, columns: [tokens, labels], labels });
  }
  return { label: "generated", format: "conll", sentences, scheme: "IOB1" };
}

const labelsOf = async (tagger: SequenceTagger, batch: readonly Sentence[]) =>
  (await tagger.tag(batch)).items.map((item) => {
    if (isTagFailure(item)) throw new Error(`${item.place}: ${item.reason}`);
    return item;
  });

describe("the independent check after constrained decoding", () => {
  const data = iob1Corpus(60, 3);
  let model: Awaited<ReturnType<typeof trainOnCorpus>>["model"];
  beforeAll(async () => {
    ({ model } = await trainOnCorpus(data, { preset: "ner-words", maxIterations: 15 }));
  });
  const hardOneLoc = () => {
    const index = new SegmentIndex(model.labels.names(), "IOB1");
    return [
      { template: templateFromSpec({ kind: "singleton", segment: "LOC" }, index), penalty: null },
    ];
  };
  const locSegments = (labels: readonly string[]) =>
    labels.filter(
      (l, i) =>
        l === "B-LOC" || (l === "I-LOC" && labels[i - 1] !== "I-LOC" && labels[i - 1] !== "B-LOC"),
    ).length;

  it("IOB1: a hard 'at most one LOC segment' holds in every output under hard-dd and exact, and the check counts 0", async () => {
    const viterbi = await labelsOf(chainTagger(model), data.sentences);
    // Without the rule the model writes several LOC segments, most starting with I-LOC.
    expect(viterbi.filter((item) => locSegments(item.labels) > 1).length).toBeGreaterThan(10);
    const registry = standardDecoders();
    for (const decoder of ["hard-dd", "exact"]) {
      await registry.prepare(decoder);
      const items = await labelsOf(
        chainTagger(model, { registry, decoder, constraints: hardOneLoc() }),
        data.sentences,
      );
      for (const item of items) {
        expect(locSegments(item.labels)).toBeLessThanOrEqual(1);
        if (item.stats.status !== "infeasible") expect(item.stats.brokenHard).toBe(0);
      }
    }
  });

  it("a decoding reported as certified that breaks a hard constraint is an internal error", async () => {
    // A decoder that ignores the constraints and says its labelling is proven optimal.
    const liar: Decoder = {
      name: "liar",
      decode: (problem) => {
        const { n, L, unary } = problem.scores;
        const labels = new Int32Array(n);
        for (let i = 0; i < n; i++) {
          // Every token its best unary state: two LOC segments where the sentence has two places.
          let best = 0;
          for (let t = 1; t < L; t++) if (unary[i * L + t]! > unary[i * L + best]!) best = t;
          labels[i] = best;
        }
        return exactDecoding(labels, 0);
      },
    };
    const tagger = chainTagger(model, { decoder: liar, constraints: hardOneLoc() });
    const twoPlaces: Sentence = {
      tokens: ["Paris", "and", "Berlin", "met"],
      columns: [["Paris", "and", "Berlin", "met"]],
    };
    await expect(tagger.tag([twoPlaces])).rejects.toThrow(
      /internal error: decoder liar certified a labelling that breaks the hard constraint "at most one LOC segment"/,
    );
  });
});
