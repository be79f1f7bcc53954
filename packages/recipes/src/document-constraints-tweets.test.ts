import { type CrfModel, loadModelFromBytes, modelToBytes } from "@lagrange/chain-crf";
import { parseConstraintsFile } from "@lagrange/constraint-templates";
import { seededRandom } from "@lagrange/core";
import type { Corpus, Sentence } from "@lagrange/datasets";
import { tweetGroups } from "@lagrange/mincut";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScoredSentence } from "./constraint-learning.js";
import {
  documentConstraintsLine,
  documentGroupingOf,
  documentUnits,
  learnDocumentConstraints,
  type SelectedDocumentConstraints,
  selectDocumentConstraints,
  withDocumentConstraints,
} from "./document-constraints.js";
import { openTagger } from "./tagging/open-tagger.js";
import { trainOnCorpus } from "./training.js";

const FILLER = ["lol", "so", "!!", "rt"];

/**
 * Tweets without document marks, in topics: a topic's tweets share its five words (so the general
 * CRF's single linkage joins them, at least 5 shared words) and repeat its one name; two topics
 * share at most filler and never five words. Shuffled, so a group is not a run of lines.
 */
function tweets(topics: number, perTopic: number, seed: number): Corpus {
  const random = seededRandom(seed);
  const sentences: Sentence[] = [];
  for (let t = 0; t < topics; t++) {
    const words = ["game", "score", "night", "team", "win"].map((w) => `${w}${t}`);
    const name = t % 2 === 0 ? `Name${t}` : `Club${t}`;
    const type = t % 2 === 0 ? "PER" : "ORG";
    for (let k = 0; k < perTopic; k++) {
      const tokens = [...words.slice(0, 2), name, ...words.slice(2)];
      if (random() < 0.5) tokens.push(FILLER[Math.floor(random() * FILLER.length)]!);
      const labels = tokens.map((w) => (w === name ? `B-${type}` : "O"));
      sentences.push({ tokens, labels, columns: [tokens, labels] });
    }
  }
  for (let k = sentences.length - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [sentences[k], sentences[j]] = [sentences[j]!, sentences[k]!];
  }
  return { label: "tweets.conll", format: "conll", scheme: "IOB2", sentences };
}

/** Each sentence's group as its smallest member's index: a partition, comparable across groupings. */
function partition(groups: readonly ArrayLike<number>[], n: number): Int32Array {
  const of = new Int32Array(n).fill(-1);
  for (const g of groups) for (const k of Array.from(g)) of[k] = Math.min(...Array.from(g));
  return of;
}

const data = tweets(12, 3, 5);
const byTopic = tweetGroups(data.sentences.map((s) => s.tokens));
let model: CrfModel;
let learned: SelectedDocumentConstraints;
/** Sentences each jackknife fold's CRF was trained without (fold f at index f − 1). */
const heldOutOf: Set<Sentence>[] = [];

beforeAll(async () => {
  ({ model } = await trainOnCorpus(data, {
    preset: "ner-words",
    algorithm: "lbfgs",
    maxIterations: 5,
  }));
  learned = await learnDocumentConstraints(model, data, {
    folds: 4,
    bootstrapSamples: 50,
    trainModel: async (part, labels, fold) => {
      const seen = new Set(part.sentences);
      heldOutOf[fold - 1] = new Set(data.sentences.filter((s) => !seen.has(s)));
      const options = { preset: "ner-words", algorithm: "lbfgs", maxIterations: 3, labels };
      return (await trainOnCorpus(part, options as Parameters<typeof trainOnCorpus>[1])).model;
    },
  });
}, 60_000);

describe("document constraints on data without document marks", () => {
  it("learn over the general CRF's tweet groups, whole groups dealt into the folds", () => {
    expect(byTopic).toHaveLength(12);
    expect(documentGroupingOf(data.sentences)).toBe("tweets");
    expect(learned.groups).toBe("tweets");
    // Group g is held out of fold g mod 4 alone: the folds were dealt by tweet group.
    byTopic.forEach((members, g) => {
      heldOutOf.forEach((held, f) => {
        for (const k of members) expect(held.has(data.sentences[k]!)).toBe(g % 4 === f);
      });
    });
    expect(learned.checkDocuments).toBe(3);
    expect(documentConstraintsLine(learned)).toMatch(/held-out training tweet groups\)$/);
    const marked = {
      ...data,
      sentences: data.sentences.map((s) => ({ ...s, document: { index: 0 } })),
    };
    expect(documentGroupingOf(marked.sentences)).toBe("documents");
  });

  it("record the grouping in the model; tagging decodes the very groups learning used", async () => {
    // A selection that keeps same-string:PER whatever the tiny CRFs made of the check fold:
    // later mentions lean to O, gold says PER. Its grouping is the learned one.
    const L = model.numLabels;
    const [o, b] = model.labels.encode(["O", "B-PER"]);
    const units = Array.from({ length: 30 }, (_, d) => {
      const sentences: ScoredSentence[] = [0, 1].map((k) => {
        const unary = new Float64Array(3 * L);
        for (let t = 0; t < 3; t++) unary[t * L + o!] = 1;
        unary[L + b!] = k === 0 ? 5 : 0.7 + 0.01 * (d % 7);
        return {
          n: 3,
          L,
          tokens: ["w", "Name0", "w"],
          scores: { n: 3, L, unary, transition: new Float64Array(L * L) },
          gold: Int32Array.of(o!, b!, o!),
        };
      });
      return documentUnits(sentences, [[0, 1]]).units[0]!;
    });
    const selected = await selectDocumentConstraints(model, units, units, {
      bootstrapSamples: 200,
      groups: learned.groups,
    });
    expect(selected.entries.length).toBeGreaterThan(0);
    const bytes = modelToBytes(withDocumentConstraints(model, selected, { data: data.label }));
    const recorded = loadModelFromBytes(bytes, "m.lgm").learnedConstraints;
    expect(parseConstraintsFile(JSON.stringify(recorded)).groups).toBe("tweets");

    const tagger = await openTagger({ model: bytes, modelName: "m.lgm" });
    expect(tagger.unit).toBe("corpus");
    expect(tagger.description).toContain("a tweet group at a time");
    const tagged = await tagger.tag(data.sentences);
    // One decoding per group: sentences decoded together share their group's figures (its primal
    // and dual objective; whether the constraints changed a sentence is the sentence's own).
    const decodings = new Map<string, number[]>();
    tagged.items.forEach((item, k) => {
      if (!("stats" in item) || item.stats === undefined) throw new Error(`sentence ${k} failed`);
      // In the batch's order though groups interleave: each sentence gets its own labels.
      expect(item.labels).toHaveLength(data.sentences[k]!.tokens.length);
      const group = `${item.stats.primal}|${item.stats.dual}|${item.stats.iterations}`;
      decodings.set(group, [...(decodings.get(group) ?? []), k]);
    });
    const n = data.sentences.length;
    expect(partition([...decodings.values()], n)).toEqual(partition(byTopic, n));
    expect(tagger.summary()).toMatch(/^12 tweet groups, \d+ with constraints/);
  });

  it("files from before the field read as documents, as they were written", () => {
    const documents = withDocumentConstraints(model, { ...learned, groups: "documents" });
    if (documents.learnedConstraints !== null) {
      expect(JSON.stringify(documents.learnedConstraints)).not.toContain('"groups"');
      expect(parseConstraintsFile(JSON.stringify(documents.learnedConstraints)).groups).toBe(
        undefined,
      );
    } else {
      // Nothing kept on the toy check fold: the model is returned unchanged.
      expect(documents).toBe(model);
    }
  });
});
