import { loadModelFromBytes, modelToBytes } from "@lagrange/chain-crf";
import {
  type Corpus,
  convertScheme,
  isValidSequence,
  type SchemeName,
  type Sentence,
} from "@lagrange/datasets";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { scoreSentences } from "./constraint-learning.js";
import { recordedTraining } from "./document-constraints-retraining.js";
import { attributesOf } from "./model-input.js";
import { modelOutputScheme, modelScheme, schemeEdge } from "./model-scheme.js";
import { Tagger } from "./tagger.js";
import { chainTagger } from "./tagging/chain-tagger.js";
import { confidenceRecord } from "./tagging/confidence.js";
import { isTagFailure, type TaggedSentence } from "./tagging/sequence-tagger.js";
import { openTrainer } from "./training/open-trainer.js";
import { trainOnCorpus } from "./training.js";

/**
 * IOB1 sentences with adjacent names of one type (the case IOB1 marks with B-): "Smith Jones"
 * is two PER names, "Acme" an ORG, "the" and "w" outside.
 */
function iob1Corpus(count: number, seed: number): Corpus {
  let state = seed;
  const next = (k: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor(state / 65536) % k;
  };
  const names = [
    ["Smith", "PER"],
    ["Jones", "PER"],
    ["Acme", "ORG"],
    ["Corp", "ORG"],
  ] as const;
  const sentences: Sentence[] = [];
  for (let s = 0; s < count; s++) {
    const tokens: string[] = [];
    const labels: string[] = [];
    let previous = "O";
    for (let t = 0; t < 6; t++) {
      if (next(3) === 0) {
        tokens.push(next(2) === 0 ? "the" : "w");
        labels.push("O");
        previous = "O";
        continue;
      }
      const [word, type] = names[next(names.length)]!;
      const length = 1 + next(2);
      // A new name right after one of the same type starts with B- under IOB1.
      for (let k = 0; k < length; k++) {
        tokens.push(k === 0 ? word : `${word}son`);
        labels.push(k === 0 && previous === type ? `B-${type}` : `I-${type}`);
      }
      previous = type;
    }
    sentences.push({ tokens, labels, columns: [tokens, labels] });
  }
  return { label: "iob1", format: "conll", scheme: "IOB1", sentences };
}

const train = iob1Corpus(60, 7);
const dev = iob1Corpus(20, 11);

let model: Awaited<ReturnType<typeof trainOnCorpus>>["model"];
beforeAll(async () => {
  // The path `lagrange train --preset ner-…` takes: the trainer, with a preset's internal scheme.
  const trainer = openTrainer(
    { algorithm: "lbfgs", maxIterations: 30, scheme: "IOB1", internalScheme: "BIOES" },
    { features: { preset: "ner-words", notes: [] }, dev },
  );
  model = (await trainer.train(train)).model;
}, 30_000);

describe("a chain CRF trained under an internal scheme", () => {
  it("records BIOES as its scheme and the data's IOB1 as its output scheme, also in its file", () => {
    expect(modelScheme(model)).toBe("BIOES");
    expect(modelOutputScheme(model)).toBe("IOB1");
    expect(model.labels.names()).toContain("S-PER");
    const back = loadModelFromBytes(modelToBytes(model), "m.lgm");
    expect(modelScheme(back)).toBe("BIOES");
    expect(modelOutputScheme(back)).toBe("IOB1");
  });

  it("tags in IOB1: valid sequences, the model's own labels converted, mostly the gold", async () => {
    const tagger = chainTagger(model);
    expect(tagger.scheme).toBe("IOB1");
    expect([...tagger.labels].sort()).toEqual(["B-ORG", "B-PER", "I-ORG", "I-PER", "O"].sort());
    const { items } = await tagger.tag(dev.sentences);
    const engine = new Tagger({ model });
    let right = 0;
    let total = 0;
    items.forEach((item, i) => {
      expect(isTagFailure(item)).toBe(false);
      const labels = (item as TaggedSentence).labels;
      expect(isValidSequence(labels, "IOB1")).toBe(true);
      const ids = engine.tagAttributes(engine.attributes(dev.sentences[i]!), []).decoding.labels;
      expect(labels).toEqual(convertScheme(model.labels.decode(ids), "BIOES", "IOB1"));
      dev.sentences[i]!.labels!.forEach((gold, t) => {
        total++;
        if (gold === labels[t]) right++;
      });
    });
    expect(right / total).toBeGreaterThan(0.9);
  });

  it("gives n-best names and forced labels in IOB1", async () => {
    const tagger = chainTagger(model);
    const sentence = dev.sentences[0]!;
    const { items } = await tagger.tag([sentence], { nbest: { k: 3 } });
    const found = (items[0] as TaggedSentence).nbest!;
    for (const entry of found.entries) expect(isValidSequence(entry.names, "IOB1")).toBe(true);
    // Force the first token to I-ORG (a name after nothing starts with I- under IOB1).
    const J = tagger.labels.length;
    const n = sentence.tokens.length;
    const restriction = new Uint8Array(n * J).fill(1);
    restriction.fill(0, 0, J);
    restriction[tagger.labels.indexOf("I-ORG")] = 1;
    const forced = await tagger.tag([sentence], { restrictions: [restriction] });
    expect((forced.items[0] as TaggedSentence).labels[0]).toBe("I-ORG");
  });

  it("gives marginals and each token's confidence in IOB1 labels", () => {
    const engine = new Tagger({ model });
    const { labels } = engine.edge;
    const J = labels.length;
    for (const sentence of dev.sentences.slice(0, 5)) {
      const tagged = engine.tagAttributes(engine.attributes(sentence), sentence.tokens);
      const c = engine.confidence(tagged, { marginals: true });
      expect(c.marginals).toHaveLength(sentence.tokens.length * J);
      tagged.labels.forEach((label, i) => {
        expect(c.confidence![i]).toBe(c.marginals![i * J + labels.indexOf(label)]);
      });
      for (const map of confidenceRecord(c, labels).marginals!) {
        for (const key of Object.keys(map)) expect(labels).toContain(key);
      }
    }
  });

  it("refuses a forced IOB1 label the internal labels cannot give, rather than ignoring it", async () => {
    const tagger = chainTagger(model);
    const sentence = dev.sentences[0]!;
    const J = tagger.labels.length;
    const n = sentence.tokens.length;
    // B-PER right after O: under IOB1 a B- only follows a name of its own type.
    const restriction = new Uint8Array(n * J).fill(1);
    restriction.fill(0, 0, 2 * J);
    restriction[tagger.labels.indexOf("O")] = 1;
    restriction[J + tagger.labels.indexOf("B-PER")] = 1;
    const forced = await tagger.tag([sentence], { restrictions: [restriction] });
    const item = forced.items[0]!;
    expect(isTagFailure(item)).toBe(true);
    expect(isTagFailure(item) ? item.reason : "").toMatch(
      /token 2: the forced labels \(B-PER\) cannot be met by a model trained under BIOES and read as IOB1/,
    );
  });

  it("refuses a general CRF or two stages over the internal scheme, asked by name", async () => {
    const asked = openTrainer(
      { algorithm: "lbfgs", maxIterations: 3, scheme: "IOB1", internalScheme: "BIOES" },
      { features: { preset: "ner-words", notes: [] } },
    );
    await expect(asked.trainTwoStage(train, {})).rejects.toThrow(
      /two-stage training .* --internal-scheme/,
    );
    await expect(asked.trainGeneral(train, { settings: { groups: "documents" } })).rejects.toThrow(
      /a general CRF .* --internal-scheme/,
    );
    // A base chain under BIOES is no general CRF's base.
    const kept = openTrainer(
      { algorithm: "lbfgs", maxIterations: 3, scheme: "IOB1" },
      { features: { preset: "ner-words", notes: [] } },
    );
    await expect(
      kept.trainGeneral(train, { settings: { groups: "documents" }, baseModel: model }),
    ).rejects.toThrow(/base chain must be trained under the data's scheme/);
  });

  it("reads gold in the user's scheme for constraint learning (the model's ids under BIOES)", () => {
    const scored = scoreSentences(model, dev.sentences, attributesOf(model, dev.sentences));
    scored.forEach((s, i) => {
      const gold = convertScheme(dev.sentences[i]!.labels!, "IOB1", "BIOES");
      expect(model.labels.decode(s.gold!)).toEqual(gold);
    });
  });

  it("retrains its folds as it was: the data's scheme, the internal one", () => {
    const recorded = recordedTraining(model.withSettings({ taskPreset: "ner-en" }), "m");
    expect(recorded.spec.scheme).toBe("IOB1");
    expect(recorded.spec.internalScheme).toBe("BIOES");
  });

  it("keeps the data's scheme with internalScheme keep (the opt-out), and BILOU data as it is", async () => {
    const kept = openTrainer(
      { algorithm: "lbfgs", maxIterations: 3, scheme: "IOB1", internalScheme: "keep" },
      { features: { preset: "ner-words", notes: [] } },
    );
    const plain = (await kept.train(train)).model;
    expect(modelScheme(plain)).toBe("IOB1");
    expect(plain.settings.outputScheme).toBeUndefined();
    expect(schemeEdge(plain).labels).toEqual(plain.labels.names());
    expect(schemeEdge(plain).marginals).toBeUndefined();
    const bilou: Corpus = {
      ...train,
      scheme: "BILOU",
      sentences: train.sentences.map((s) => {
        const labels = convertScheme(s.labels!, "IOB1", "BILOU");
        return { ...s, labels, columns: [s.tokens, labels] };
      }),
    };
    const asIs = await trainOnCorpus(bilou, {
      preset: "ner-words",
      algorithm: "lbfgs",
      maxIterations: 3,
      internalScheme: "BIOES",
    });
    expect(modelScheme(asIs.model)).toBe("BILOU");
    expect(asIs.model.settings.outputScheme).toBeUndefined();
  });
});

describe("scheme conversion through BIOES", () => {
  it("IOB1, IOB2, IOE1, IOE2 → BIOES → back is the identity on valid sequences", () => {
    const tagged = (tags: readonly string[]) =>
      fc.array(fc.constantFrom("O", ...tags.flatMap((t) => [`${t}-A`, `${t}-B`])), {
        maxLength: 10,
      });
    const schemes: [SchemeName, string[]][] = [
      ["IOB1", ["B", "I"]],
      ["IOB2", ["B", "I"]],
      ["IOE1", ["I", "E"]],
      ["IOE2", ["I", "E"]],
    ];
    fc.assert(
      fc.property(tagged(["B", "I"]), tagged(["I", "E"]), (iob, ioe) => {
        for (const [scheme, tags] of schemes) {
          const labels = tags.includes("B") ? iob : ioe;
          if (!isValidSequence(labels, scheme)) continue;
          expect(convertScheme(convertScheme(labels, scheme, "BIOES"), "BIOES", scheme)).toEqual(
            labels,
          );
        }
      }),
    );
  });
});
