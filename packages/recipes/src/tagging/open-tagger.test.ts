import {
  fromAttributeLists,
  loadModelFromBytes,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { lagrangeErrorCode, seededRandom } from "@lagrange/core";
import { FREE_LABEL, fixedLabelsRestriction } from "@lagrange/core/chain";
import { type Corpus, parseConll, type Sentence } from "@lagrange/datasets";
import { l2sModelToBytes } from "@lagrange/l2s";
import { twoSlaveDecoder } from "@lagrange/mincut";
import { beforeAll, describe, expect, it } from "vitest";
import { generalCrfOf } from "../general-crf-settings.js";
import { tagGeneral } from "../general-crf-tagging.js";
import { l2sTaggerOf, tagWithL2s, trainL2sTagger } from "../l2s/tagger.js";
import { withDocumentInputs } from "../model-input.js";
import { Tagger } from "../tagger.js";
import { trainOnCorpus } from "../training.js";
import { trainTwoStage } from "../two-stage/train.js";
import { openTagger } from "./open-tagger.js";
import {
  isTagFailure,
  type SequenceTagger,
  type TaggedBatch,
  type TaggedSentence,
} from "./sequence-tagger.js";

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Paris"], "LOC"],
  [["Bank", "of", "France"], "ORG"],
];
const FILLER = ["said", "the", "on", "won", "in", "match", "today", "."];

/** Documents of a few sentences, names repeated within a document, IOB2 labels. */
function corpus(documents: number, perDocument: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: Sentence[] = [];
  for (let d = 0; d < documents; d++) {
    const document = { index: d };
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
        document,
        source: { file: "t.conll", line: 1 + sentences.length * 7 },
      });
    }
  }
  return { label: "generated", format: "conll", sentences, scheme: "IOB2" };
}

const data = corpus(6, 3, 7);
const sentences = data.sentences;

const labelsOf = (batch: TaggedBatch) =>
  batch.items.map((item) => {
    if (isTagFailure(item)) throw new Error(`${item.place}: ${item.reason}`);
    return item.labels;
  });

async function refusal(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    expect(lagrangeErrorCode(error)).toBe("usage");
    return error as Error;
  }
  throw new Error("expected a usage error");
}

describe("openTagger: one SequenceTagger per kind of model", () => {
  let chainBytes: Uint8Array;
  let chain: SequenceTagger;
  beforeAll(async () => {
    const { model } = await trainOnCorpus(data, { preset: "ner-words", maxIterations: 10 });
    chainBytes = modelToBytes(model);
    chain = await openTagger({ model: chainBytes, modelName: "chain.model" });
  }, 60_000);

  it("a chain CRF tags as its Tagger does, streams, and carries its bytes", async () => {
    expect(chain.kind).toBe("chain-crf");
    expect(chain.unit).toBe("sentence");
    expect(chain.decoder).toBe("viterbi");
    expect(chain.can).toMatchObject({ marginals: true, nbest: true, forced: true, text: true });
    expect(chain.nbestMethod).toBe("list-viterbi");
    expect(chain.spec.model).toBe(chainBytes);
    const engine = new Tagger({ model: loadModelFromBytes(chainBytes) });
    const tagged = await chain.tag(sentences);
    expect(labelsOf(tagged)).toEqual(
      sentences.map((s) => engine.tagAttributes(engine.attributes(s), s.tokens).labels),
    );
    expect(chain.time.sentences).toBe(sentences.length);
    const first = tagged.items[0] as TaggedSentence;
    expect(first.stats).toMatchObject({ certified: true, changed: false, violated: 0 });
  });

  it("a chain CRF's n-best lists, confidence and forced labels", async () => {
    const listed = await chain.tag(sentences.slice(0, 3), {
      nbest: { k: 3 },
      confidence: { marginals: true, probability: true },
    });
    const plain = labelsOf(await chain.tag(sentences.slice(0, 3)));
    for (const [i, item] of listed.items.entries()) {
      const tagged = item as TaggedSentence;
      expect(tagged.nbest?.entries.length).toBe(3);
      expect(tagged.nbest?.method).toBe("list-viterbi");
      expect(tagged.labels).toEqual(plain[i]);
      expect(tagged.confidence?.probability).toBeGreaterThan(0);
      expect(tagged.confidence?.confidence?.length).toBe(tagged.labels.length);
    }
    // An inside label right after the start is what IOB2 forbids: the sentence fails, in place.
    const s = sentences[0]!;
    const inside = chain.labels.findIndex((l) => l.startsWith("I-"));
    const L = chain.labels.length;
    const restriction = fixedLabelsRestriction(
      s.tokens.length,
      L,
      s.tokens.map((_, i) => (i === 0 ? inside : FREE_LABEL)),
    );
    const forced = await chain.tag([s, sentences[1]!], {
      restrictions: [restriction, undefined],
    });
    expect(forced.items[0]).toEqual({
      place: "t.conll:1 (token 1)",
      reason: expect.stringMatching(/no labelling meets .*\(with the --forced labels\)$/),
    });
    expect(isTagFailure(forced.items[1]!)).toBe(false);
    const stopped = await chain.tag([s, sentences[1]!], {
      restrictions: [restriction, undefined],
      stopAtFailure: true,
    });
    expect(stopped.items.length).toBe(1);
  });

  it("a second-order chain CRF tags its labels only", async () => {
    const { model } = await trainOnCorpus(data, {
      preset: "ner-words",
      maxIterations: 5,
      order: 2,
    });
    const tagger = await openTagger({ model: modelToBytes(model), modelName: "o2.model" });
    expect(tagger.can).toMatchObject({ marginals: false, nbest: false, forced: false });
    const engine = new Tagger({ model: loadModelFromBytes(modelToBytes(model)) });
    expect(labelsOf(await tagger.tag(sentences))).toEqual(
      sentences.map((s) => engine.tagAttributes(engine.attributes(s), s.tokens).labels),
    );
    const error = await refusal(() => tagger.tag(sentences, { nbest: { k: 2 } }));
    expect(error.message).toMatch(/^--nbest: not for a second-order model/);
    await expect(openTagger({ model: modelToBytes(model), decoder: "greedy" })).rejects.toThrow(
      /^--decoder greedy: a second-order model/,
    );
  }, 60_000);

  it("a two-stage model counts its votes over the whole batch", async () => {
    const trained = await trainTwoStage(data, { preset: "ner-words", maxIterations: 5, folds: 2 });
    const bytes = modelToBytes(trained.model);
    const tagger = await openTagger({ model: bytes, modelName: "two.model" });
    expect(tagger.kind).toBe("two-stage");
    expect(tagger.unit).toBe("corpus");
    const model = loadModelFromBytes(bytes);
    const votes = await withDocumentInputs(model, sentences);
    const engine = new Tagger({ model });
    const stages: string[] = [];
    const tagged = await tagger.tag(sentences, {
      onProgress: (p) => stages.push(p.stage),
    });
    expect(labelsOf(tagged)).toEqual(
      votes.map((s) => engine.tagAttributes(engine.attributes(s), s.tokens).labels),
    );
    expect(stages).toContain("first stage");
    const error = await refusal(() => tagger.check({ nbest: { k: 2 }, restrictions: [] }));
    expect(error.message).toBe(
      "--nbest and --forced: two.model reads inputs computed over whole documents; tag it without --nbest and --forced",
    );
  }, 60_000);

  it("a general CRF decodes its groups and says what it did", async () => {
    const model = loadModelFromBytes(chainBytes).withSettings({
      generalCrf: {
        groups: "documents",
        outsideLabel: 0,
        weights: [0.5, 0.1, 0.2, 0.1, 0.3, 0.1],
        subsequences: [[], [0, 1, 2], [0, 1, 1, 2]],
        factors: { maxLength: 2, maxOccurrences: 10 },
      },
    });
    const bytes = modelToBytes(model);
    const tagger = await openTagger({ model: bytes, modelName: "general.model" });
    expect(tagger.kind).toBe("general-crf");
    expect(tagger.unit).toBe("corpus");
    expect(tagger.decoder).toBe("two-slave");
    const crf = generalCrfOf(loadModelFromBytes(bytes))!;
    const old = await tagGeneral(crf, sentences, twoSlaveDecoder(), {
      decodeOptions: tagger.decodeOptions,
    });
    expect(labelsOf(await tagger.tag(sentences))).toEqual(old.labels);
    expect(tagger.summary()).toMatch(/^6 groups, \d+ with consistency factors/);
    const chainOnly = await openTagger({ model: bytes, decoder: "viterbi" });
    expect(chainOnly.title).toContain("(the chain alone: consistency factors ignored)");
    const error = await refusal(() =>
      tagger.tag(sentences, { confidence: { marginals: true, probability: false } }),
    );
    expect(error.message).toBe(
      "--marginals: the marginals and probabilities of a linear-chain CRF; general.model is a general CRF (its consistency factors have no exact marginals)",
    );
    await expect(openTagger({ model: bytes, decoder: "soft-dd" })).rejects.toThrow(
      /decoder soft-dd does not decode a general CRF's higher-order patterns.*or viterbi for the chain alone/,
    );
  });

  it("an L2S tagger decodes its policy's scores (greedy by default)", async () => {
    const text = Array.from({ length: 6 }, () => "Anna\tB-PER\nBerg\tI-PER\nsleeps\tO\n").join(
      "\n",
    );
    const train: Corpus = {
      label: "ner.conll",
      format: "conll",
      sentences: parseConll(text, { file: "ner.conll" }),
      scheme: "IOB2",
    };
    const trained = await trainL2sTagger(train, {
      preset: "ner-words",
      passes: 3,
      learner: { kind: "csoaa", bits: 12 },
    });
    const tagger = await openTagger({ model: l2sModelToBytes(trained.model), modelName: "l2s" });
    expect(tagger.kind).toBe("l2s");
    expect(tagger.decoder).toBe("greedy");
    expect(tagger.constrained).toBe(false);
    const { standardDecoders } = await import("../decoders.js");
    const input = tagger.input(train, "auto");
    const old = tagWithL2s(l2sTaggerOf(trained.model), input.sentences, standardDecoders());
    expect(labelsOf(await tagger.tag(input.sentences))).toEqual(old);
    const error = await refusal(() => tagger.check({ nbest: { k: 2 } }));
    expect(error.message).toBe("--nbest: for a linear-chain CRF; l2s is an L2S tagger");
    await expect(
      openTagger({ model: l2sModelToBytes(trained.model), decoder: "soft-dd" }),
    ).rejects.toThrow(/decoder soft-dd needs constraints.*choose .*viterbi.*greedy/);
  }, 60_000);

  it("a model imported from CRFsuite reads attribute lists only", async () => {
    const attributes = [["w=a"], ["w=b"], ["w=c"]];
    const training = prepareTrainingData(
      [{ attributes: fromAttributeLists(attributes), labels: ["O", "B-X", "I-X"] }],
      { shared: false },
    );
    const model = modelFromTraining(training, new Float64Array(training.layout.numWeights));
    const tagger = await openTagger({ model: modelToBytes(model), modelName: "imported" });
    expect(tagger.kind).toBe("attribute-crf");
    expect(tagger.can).toMatchObject({ text: false, attributes: true });
    const error = await refusal(() => tagger.tag(sentences));
    expect(error.message).toMatch(/^imported has no feature preset .*--format crfsuite$/);
    const item = { attributes: fromAttributeLists(attributes), tokens: ["1", "2", "3"] };
    const engine = new Tagger({ model: loadModelFromBytes(modelToBytes(model)) });
    expect(labelsOf(await tagger.tagAttributes([item]))).toEqual([
      engine.tagAttributes(item.attributes, item.tokens).labels,
    ]);
  });
});
