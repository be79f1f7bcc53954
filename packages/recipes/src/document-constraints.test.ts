import type { CrfModel } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import type { Corpus, Sentence } from "@lagrange/datasets";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScoredSentence } from "./constraint-learning.js";
import {
  type DocumentUnit,
  documentConstraintsLine,
  documentUnits,
  learnDocumentConstraints,
  selectDocumentConstraints,
} from "./document-constraints.js";
import { openTrainer } from "./training/open-trainer.js";
import { trainOnCorpus } from "./training.js";

const toySentence = (tokens: string[], labels: string[], document?: number): Sentence => ({
  tokens,
  labels,
  columns: [tokens, labels],
  ...(document === undefined ? {} : { document: { index: document } }),
});

let model: CrfModel;
beforeAll(async () => {
  const sentences = Array.from({ length: 12 }, () =>
    toySentence(["w", "Smith", "w", "Acme"], ["O", "B-PER", "O", "B-ORG"]),
  );
  ({ model } = await trainOnCorpus(
    { label: "toy", sentences, format: "conll", scheme: "IOB2" },
    { preset: "ner-words", algorithm: "lbfgs", maxIterations: 5 },
  ));
}, 30_000);

/**
 * Toy documents of three sentences "w Smith w": Smith is PER in the first (the chain is sure of
 * it) and, in the later ones, the chain prefers O by a small margin. With `laterGold` PER the
 * same-string rule fixes the later mentions (a true gain); with O it would break them (a loss).
 */
function toyDocuments(count: number, seed: number, laterGold: "B-PER" | "O"): DocumentUnit[] {
  const random = seededRandom(seed);
  const L = model.numLabels;
  const id = (name: string) => model.labels.encode([name])[0]!;
  const [o, b] = [id("O"), id("B-PER")];
  const transition = new Float64Array(L * L);
  return Array.from({ length: count }, () => {
    const sentences: ScoredSentence[] = [0, 1, 2].map((k) => {
      const n = 3;
      const unary = new Float64Array(n * L);
      for (let t = 0; t < n; t++) unary[t * L + o] = 1 + random();
      unary[L + b] = k === 0 ? 6 : unary[L + o]! - 0.1 - 0.4 * random();
      const gold = Int32Array.of(o, k === 0 ? b : id(laterGold), o);
      return { n, L, tokens: ["w", "Smith", "w"], scores: { n, L, unary, transition }, gold };
    });
    return documentUnits(sentences, [[0, 1, 2]]).units[0]!;
  });
}

describe("documentUnits", () => {
  it("lays a document's sentences end to end; a document without gold is skipped", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: -1, max: 3 }),
        (documents, unlabelled) => {
          const scored: ScoredSentence[] = [];
          const groups: number[][] = [];
          documents.forEach((lengths, d) => {
            groups.push(
              lengths.map((n, k) => {
                const gold = Int32Array.from({ length: n }, (_, t) => (t + k + d) % 2);
                const unary = Float64Array.from({ length: n * 2 }, (_, x) => x + d);
                scored.push({
                  n,
                  L: 2,
                  tokens: Array.from({ length: n }, (_, t) => `d${d}s${k}t${t}`),
                  scores: { n, L: 2, unary, transition: new Float64Array(4) },
                  gold: d === unlabelled && k === 0 ? undefined : gold,
                });
                return scored.length - 1;
              }),
            );
          });
          const { units, skipped } = documentUnits(scored, groups);
          expect(skipped).toBe(unlabelled >= 0 && unlabelled < documents.length ? 1 : 0);
          const kept = groups.filter((_, d) => d !== unlabelled);
          expect(units.length).toBe(kept.length);
          units.forEach((unit, u) => {
            const members = kept[u]!.map((k) => scored[k]!);
            expect(unit.tokens).toEqual(members.flatMap((s) => s.tokens));
            expect(Array.from(unit.gold)).toEqual(members.flatMap((s) => Array.from(s.gold!)));
            let at = 0;
            members.forEach((s, k) => {
              expect(unit.sentenceStarts[k]).toBe(at);
              expect(Array.from(unit.scores.unary.subarray(at * 2, (at + s.n) * 2))).toEqual(
                Array.from(s.scores.unary),
              );
              at += s.n;
            });
            expect(unit.n).toBe(at);
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("selectDocumentConstraints", () => {
  it("keeps the same-string rule for PER where the check fold gains, with its interval", async () => {
    const selected = await selectDocumentConstraints(
      model,
      toyDocuments(40, 1, "B-PER"),
      toyDocuments(40, 2, "B-PER"),
      { bootstrapSamples: 200 },
    );
    const ids = selected.entries.map((e) => e.template.id);
    expect(ids).toContain("same-string:PER");
    expect(ids.every((id) => id.endsWith(":PER"))).toBe(true);
    expect(selected.gain!.interval[0]).toBeGreaterThan(0);
    expect(selected.checkF1.after).toBeGreaterThan(selected.checkF1.before);
    expect(selected.types.find((t) => t.type === "PER")?.kept).toBeGreaterThan(0);
    expect(selected.types.find((t) => t.type === "ORG")?.kept).toBe(0);
    expect(documentConstraintsLine(selected)).toMatch(/kept \d+ for PER, held-out F1/);
  });

  it("keeps nothing and says why where the rule would break true labels", async () => {
    const selected = await selectDocumentConstraints(
      model,
      toyDocuments(40, 3, "O"),
      toyDocuments(40, 4, "O"),
      { bootstrapSamples: 200 },
    );
    expect(selected.entries).toEqual([]);
    expect(selected.gain).toBeUndefined();
    expect(selected.reason).toBeDefined();
    expect(selected.checkF1.after).toBe(selected.checkF1.before);
    expect(documentConstraintsLine(selected)).toMatch(/^document constraints: none kept \(/);
  });
});

describe("learnDocumentConstraints", () => {
  const corpus = (documents: number): Corpus => ({
    label: "docs",
    format: "conll",
    scheme: "IOB2",
    sentences: Array.from({ length: documents * 2 }, (_, k) =>
      toySentence(
        ["w", k % 3 === 0 ? "Smith" : "Jones", "w", "Acme"],
        ["O", "B-PER", "O", "B-ORG"],
        Math.floor(k / 2),
      ),
    ),
  });

  it("scores each document by a CRF trained without it, and learns from train alone", async () => {
    const train = corpus(8);
    const seen: { fold: number; tokens: Set<Sentence> }[] = [];
    const selected = await learnDocumentConstraints(model, train, {
      folds: 4,
      bootstrapSamples: 50,
      trainModel: async (part, labels, fold) => {
        seen.push({ fold, tokens: new Set(part.sentences) });
        return (
          await trainOnCorpus(part, {
            preset: "ner-words",
            algorithm: "lbfgs",
            maxIterations: 3,
            labels,
          })
        ).model;
      },
    });
    expect(seen.map((s) => s.fold)).toEqual([1, 2, 3, 4]);
    // Document d sits in fold d mod 4: fold f's CRF never saw it.
    seen.forEach(({ fold, tokens }) => {
      train.sentences.forEach((s) => {
        expect(tokens.has(s)).toBe(s.document!.index % 4 !== fold - 1);
      });
    });
    expect(selected.checkDocuments).toBe(2);
    expect(selected.learnDocuments).toBe(6);
  }, 60_000);

  it("through the trainer, shares its fold CRFs in a cache the general CRF's folds fill alike", async () => {
    const train = corpus(8);
    const trainer = openTrainer(
      { algorithm: "lbfgs", maxIterations: 3, scheme: "IOB2" },
      { features: { preset: "ner-words", notes: [] } },
    );
    const foldModels = new Map<number, Promise<CrfModel>>();
    await trainer.learnDocumentConstraints(train, model, { foldModels, bootstrapSamples: 20 });
    expect([...foldModels.keys()].sort()).toEqual([1, 2, 3, 4]);
    const first = await foldModels.get(1)!;
    // A second run over the same corpus trains nothing: every fold comes from the cache.
    await trainer.learnDocumentConstraints(train, model, { foldModels, bootstrapSamples: 20 });
    expect(await foldModels.get(1)!).toBe(first);
    const general = await trainer.trainGeneral(train, {
      settings: { groups: "documents" },
      baseModel: model,
      foldModels,
      epochs: 1,
    });
    expect(general.groupStats.groups).toBe(8);
    expect(foldModels.size).toBe(4);
  }, 60_000);

  it("refuses data with fewer documents than folds, naming it", async () => {
    await expect(
      learnDocumentConstraints(model, corpus(2), {
        folds: 4,
        trainModel: () => Promise.reject(new Error("not reached")),
      }),
    ).rejects.toThrow(/docs: 2 document\(s\) cannot be dealt into 4 jackknife folds/);
  });
});
