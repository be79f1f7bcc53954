import type { CrfModel } from "@lagrange/chain-crf";
import { constraintInstantiator } from "@lagrange/constraint-templates";
import { seededRandom } from "@lagrange/core";
import { type Sentence, scoreLabelling } from "@lagrange/datasets";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScoredSentence } from "./constraint-learning.js";
import { checkCut, learnAndSelectConstraints } from "./constraint-selection.js";
import { standardDecoders } from "./decoders.js";
import { trainOnCorpus } from "./training.js";

/**
 * Toy chain scores over a real model's labels (O, B-A, I-A): every sentence has one true A
 * segment with a strong score; a `decoy` token scores B-A a little above O. Where gold has one
 * segment, "at most one A segment" removes the decoy (a true gain); where gold marks the decoy as
 * a second segment, the same constraint removes a true segment (a loss).
 */
let model: CrfModel;
beforeAll(async () => {
  const sentences: Sentence[] = Array.from({ length: 20 }, () => {
    const tokens = ["x", "a", "a", "x", "b"];
    const labels = ["O", "B-A", "I-A", "O", "B-A"];
    return { tokens, labels, columns: [tokens, labels] };
  });
  ({ model } = await trainOnCorpus(
    { label: "toy", sentences, format: "conll", scheme: "IOB2" },
    { preset: "ner-words", algorithm: "lbfgs", maxIterations: 5 },
  ));
}, 30_000);

function toy(count: number, seed: number, decoyIsGold: boolean): ScoredSentence[] {
  const random = seededRandom(seed);
  const L = model.numLabels;
  const id = (name: string) => model.labels.encode([name])[0]!;
  const [o, b, i] = [id("O"), id("B-A"), id("I-A")];
  const transition = new Float64Array(L * L);
  // IOB2 validity: I-A only after B-A or I-A.
  for (let from = 0; from < L; from++)
    if (from !== b && from !== i) transition[from * L + i] = -1e6;
  const start = new Float64Array(L);
  start[i] = -1e6;
  return Array.from({ length: count }, () => {
    const n = 8;
    const unary = new Float64Array(n * L);
    const gold = new Int32Array(n).fill(o);
    for (let t = 0; t < n; t++) unary[t * L + o] = random();
    const first = Math.floor(random() * 3);
    gold[first] = b;
    gold[first + 1] = i;
    unary[first * L + b] = 5;
    unary[(first + 1) * L + i] = 5;
    const decoy = 4 + Math.floor(random() * 4);
    unary[decoy * L + b] = unary[decoy * L + o]! + 0.2 + random();
    if (decoyIsGold) gold[decoy] = b;
    const tokens = Array.from({ length: n }, (_, t) => `w${t}`);
    return { n, L, tokens, scores: { n, L, unary, transition, start }, gold };
  });
}

const options = {
  families: ["singleton" as const],
  threshold: 1,
  epochs: 2,
  bootstrapSamples: 200,
};

describe("learnAndSelectConstraints", () => {
  it("keeps a constraint that raises check F1, with a positive gain and interval", async () => {
    const selected = await learnAndSelectConstraints(
      model,
      toy(60, 1, false),
      toy(40, 2, false),
      options,
    );
    expect(selected.entries.length).toBeGreaterThan(0);
    expect(selected.checkF1.after).toBeGreaterThan(selected.checkF1.before);
    const singleton = selected.families.find((f) => f.family === "singleton")!;
    expect(singleton.kept).toBeGreaterThan(0);
    expect(singleton.gain!.gain).toBeGreaterThan(0);
    expect(selected.gain!.interval[0]).toBeGreaterThan(0);
    // The reported figures are the check cut's, as `lagrange eval` scores it.
    const check = toy(40, 2, false);
    const constraintsFor = constraintInstantiator(selected.entries);
    const softDD = standardDecoders().create("soft-dd");
    const decoded = check.map((s) =>
      model.labels.decode(
        softDD.decode({
          scores: s.scores,
          constraints: constraintsFor({ n: s.n, L: s.L, tokens: s.tokens }),
        }).labels,
      ),
    );
    const gold = check.map((s) => model.labels.decode(s.gold!));
    const score = scoreLabelling(gold, decoded, "IOB2");
    expect(score.kind === "chunk-f1" && 100 * score.evaluation.f1).toBeCloseTo(
      selected.checkF1.after,
      9,
    );
  }, 30_000);

  it("selects on the check cut only: learned where it helps, refused where it hurts", async () => {
    // Penalties are learned where the constraint helps; the check cut is where it hurts.
    const selected = await learnAndSelectConstraints(
      model,
      toy(60, 3, false),
      toy(40, 4, true),
      options,
    );
    expect(selected.learned.entries.some((e) => (e.penalty ?? 0) > 0)).toBe(true);
    expect(selected.entries).toEqual([]);
    expect(selected.gain).toBeUndefined();
    expect(selected.checkF1.after).toBe(selected.checkF1.before);
    expect(selected.families[0]!.reason).toMatch(/lowers check F1/);
  }, 30_000);
});

describe("checkCut", () => {
  it("cuts whole documents, disjoint and covering, one fold of k", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 4, maxLength: 20 }),
        fc.integer({ min: 2, max: 4 }),
        (documentSizes, folds) => {
          const sentences: Sentence[] = [];
          const documentOf: number[] = [];
          documentSizes.forEach((size, d) => {
            const document = { index: d };
            for (let k = 0; k < size; k++) {
              sentences.push({ tokens: ["t"], columns: [["t"]], document });
              documentOf.push(d);
            }
          });
          let cut: ReturnType<typeof checkCut>;
          try {
            cut = checkCut(sentences, folds, "toy");
          } catch (e) {
            // Only when one side would be empty.
            expect(String(e)).toMatch(/leaves (no check sentence|nothing to learn from)/);
            return;
          }
          expect([...cut.learn, ...cut.check].sort((a, b) => a - b)).toEqual(
            sentences.map((_, i) => i),
          );
          const checked = new Set(cut.check.map((i) => documentOf[i]));
          for (const i of cut.learn) expect(checked.has(documentOf[i]!)).toBe(false);
        },
      ),
    );
  });

  it("refuses fewer than two folds", () => {
    expect(() => checkCut([{ tokens: ["t"], columns: [["t"]] }], 1, "toy")).toThrow(
      /--check-folds/,
    );
  });
});
