import {
  type AttributeSequence,
  attributeNames,
  type CrfDecodeOptions,
  CrfModel,
  loadModelFromBytes,
  modelToBytes,
} from "@lagrange/chain-crf";
import { lagrangeErrorCode, seededRandom } from "@lagrange/core";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import { attributesOf, modelPreset, sentenceAttributes } from "../model-features.js";
import { jackknifeFolds } from "../task-presets/mined-lexicons.js";
import { trainOnCorpus } from "../training.js";
import { type FirstStageTrainer, trainTwoStage } from "./train.js";

const NAMES: readonly [string[], string][] = [
  [["Alan", "Shearer"], "PER"],
  [["Newcastle"], "ORG"],
  [["Paris"], "LOC"],
  [["Kane"], "PER"],
  [["Bank", "of", "France"], "ORG"],
];
const FILLER = ["said", "the", "on", "won", "in", "match", "today", "."];

/**
 * Documents of a few sentences, each sentence opening with a unique `idN` token (so that a test
 * can tell which sentence a CRF saw), names repeated within a document, IOB2 labels.
 */
function corpus(documents: number, perDocument: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentences: Sentence[] = [];
  for (let d = 0; d < documents; d++) {
    const document = { index: d };
    const cast = [pick(NAMES), pick(NAMES)];
    for (let k = 0; k < perDocument; k++) {
      const words = [`id${sentences.length}`];
      const labels = ["O"];
      for (let w = 0; w < 4; w++) {
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
      sentences.push({ tokens: words, columns: [words, labels], labels, document });
    }
  }
  return { label: "generated", format: "conll", sentences, scheme: "IOB2" };
}

/** The `idN` of each sequence a CRF was asked about. */
const idOf = (attributes: AttributeSequence): number => {
  const name = attributeNames(attributes)[0]!.find((n) => n.startsWith("w[0]=id"))!;
  return Number(name.slice("w[0]=id".length));
};

/** A first stage that trains for real but records what it trained on and what it tagged. */
function recordingTrainer() {
  const runs: { fold: number | null; trained: Set<number>; tagged: number[] }[] = [];
  const trainer: FirstStageTrainer = async (data, options, fold) => {
    const run = {
      fold,
      trained: new Set(data.sentences.map((s) => Number(s.tokens[0]!.slice(2)))),
      tagged: [] as number[],
    };
    runs.push(run);
    const { model } = await trainOnCorpus(data, { ...options, maxIterations: 3 });
    class Recording extends CrfModel {
      override tag(sequence: AttributeSequence, decode?: CrfDecodeOptions): string[] {
        run.tagged.push(idOf(sequence));
        return super.tag(sequence, decode);
      }
    }
    return new Recording({ ...model, preset: model.preset, settings: model.settings });
  };
  return { runs, trainer };
}

describe("trainTwoStage", () => {
  it("tags each training sentence with a first stage that never saw its document", async () => {
    const data = corpus(8, 3, 1);
    const { runs, trainer } = recordingTrainer();
    const trained = await trainTwoStage(data, {
      preset: "ner-words",
      maxIterations: 3,
      folds: 4,
      trainFirstStage: trainer,
    });
    const fold = jackknifeFolds(data.sentences, 4);
    expect(runs.map((r) => r.fold)).toEqual([0, 1, 2, 3, null]);
    const taggedOnce = new Map<number, number>();
    for (const run of runs.slice(0, 4)) {
      const f = run.fold!;
      const inFold = data.sentences.flatMap((_, i) => (fold[i] === f ? [i] : []));
      // It tagged exactly its fold, and trained on none of it.
      expect([...run.tagged].sort((a, b) => a - b)).toEqual(inFold);
      for (const i of inFold) expect(run.trained.has(i)).toBe(false);
      expect(run.trained.size).toBe(data.sentences.length - inFold.length);
      // A document is never split between folds.
      for (const i of run.tagged) {
        const document = data.sentences[i]!.document!.index;
        data.sentences.forEach((s, j) => {
          if (s.document!.index === document) expect(fold[j]).toBe(f);
        });
        taggedOnce.set(i, (taggedOnce.get(i) ?? 0) + 1);
      }
    }
    expect(taggedOnce.size).toBe(data.sentences.length);
    expect([...taggedOnce.values()].every((n) => n === 1)).toBe(true);
    // The full first stage saw everything and tagged nothing in training.
    expect(runs[4]!.trained.size).toBe(data.sentences.length);
    expect(runs[4]!.tagged).toEqual([]);
    expect(trained.folds).toBe(4);
    expect(trained.model.firstStage).not.toBeNull();
  }, 60_000);

  it("takes a jackknife's folds as they are; other --folds are refused", async () => {
    const data = corpus(6, 2, 2);
    const fold = jackknifeFolds(data.sentences, 3);
    const spec = (entries: string[]) => ({
      base: "ner-words",
      lexicons: [{ name: "mined-PER", entries }],
    });
    const jackknife = { fold, specs: [spec(["Kane"]), spec(["Alan Shearer"]), spec([])] };
    const seen: (Int32Array | undefined)[] = [];
    const trainer: FirstStageTrainer = async (part, options) => {
      seen.push(options.jackknife?.fold);
      return (await trainOnCorpus(part, { ...options, maxIterations: 2 })).model;
    };
    await trainTwoStage(data, {
      preset: "ner-words",
      features: spec(["Kane", "Alan Shearer"]),
      jackknife,
      maxIterations: 2,
      trainFirstStage: trainer,
    });
    // Fold f's CRF gets the jackknife of the sentences it trains on: no fold f among them.
    for (let f = 0; f < 3; f++) {
      const expected = Int32Array.from([...fold].filter((x) => x !== f));
      expect(seen[f]).toEqual(expected);
    }
    expect(seen[3]).toEqual(fold);
    const refused = await trainTwoStage(data, {
      preset: "ner-words",
      jackknife,
      folds: 4,
      trainFirstStage: trainer,
    }).catch((error: unknown) => error);
    expect(lagrangeErrorCode(refused)).toBe("usage");
  }, 60_000);

  it("writes a model that reads the votes, carries its first stage, and refuses rows without votes", async () => {
    const data = corpus(8, 3, 3);
    const trained = await trainTwoStage(data, { preset: "ner-words", maxIterations: 5, folds: 2 });
    const { model } = trained;
    expect(model.settings.inputColumns).toBe(1);
    expect((model.settings.features as { votes: { first: number } }).votes.first).toBe(1);
    const again = loadModelFromBytes(modelToBytes(model, { precision: "float64" }));
    expect(again.firstStage).toEqual(model.firstStage);
    expect(loadModelFromBytes(again.firstStage!).firstStage).toBeNull();
    const attributes = attributesOf(again, data.sentences);
    const names = new Set(attributes.flatMap((a) => [...a.names]));
    expect([...names].some((n) => /^vote:dtok=(PER|ORG|LOC|O)$/.test(n))).toBe(true);
    expect([...names].some((n) => /^vote:dent=(PER|ORG|LOC)&cap=1$/.test(n))).toBe(true);
    // One sentence alone, without the votes: an error that says what the model reads.
    const alone = (() => {
      try {
        return sentenceAttributes(modelPreset(again), data.sentences[0]!);
      } catch (error) {
        return error;
      }
    })();
    expect(lagrangeErrorCode(alone)).toBe("bad-input");
    expect((alone as Error).message).toMatch(/votes .*never the data alone/);
  }, 60_000);
});
