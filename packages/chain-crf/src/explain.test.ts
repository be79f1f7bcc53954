import { scoreLabelling, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelFromTraining } from "./crf-model.js";
import { explainLabelling, maxMarginalsOf, strongestWeights } from "./explain.js";
import { enumerate } from "./testing/random-chain.js";
import { randomCorpus } from "./testing/random-corpus.js";
import { prepareTrainingData } from "./training-data.js";

function randomModel(seed: number, transitions: boolean) {
  const sequences = randomCorpus(seed, {
    sequences: 6,
    maxLength: 5,
    labels: 3,
    values: (seed & 2) === 0,
    transitions,
  });
  const data = prepareTrainingData(sequences, { startEnd: (seed & 4) === 0, shared: false });
  const rnd = seededRandom(seed + 3);
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 2 - 1);
  return { sequences, model: modelFromTraining(data, weights) };
}

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));

describe("explainLabelling", () => {
  it("adds up: the tokens' totals are the labelling's chain score, each total its parts", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), fc.integer({ min: 0, max: 3 }), (seed, tr, top) => {
        const { sequences, model } = randomModel(seed, tr);
        const rnd = seededRandom(seed + 7);
        const L = model.numLabels;
        for (const { attributes } of sequences) {
          const n = attributes.length;
          const labels = Int32Array.from({ length: n }, () => Math.floor(rnd() * L));
          const scores = model.chainScores(attributes);
          const full = explainLabelling(model, attributes, labels);
          const cut = explainLabelling(model, attributes, labels, { top, compare: "runner-up" });
          close(full.score, scoreLabelling(scores, labels));
          close(cut.score, full.score);
          for (const [i, token] of cut.tokens.entries()) {
            for (const part of [token.chosen, ...token.compared, full.tokens[i]!.chosen]) {
              expect(part.features.length).toBeLessThanOrEqual(
                part === full.tokens[i]!.chosen ? Infinity : top,
              );
              const listed = part.features.reduce((s, f) => s + f.contribution, 0);
              close(listed + part.omittedFeatures.sum, part.state);
              for (const f of part.features) close(f.contribution, f.weight * f.value);
              close(part.state + part.transition + part.boundary, part.total);
            }
            const whole = full.tokens[i]!.chosen;
            close(
              whole.bigram + whole.conditioned.reduce((s, f) => s + f.contribution, 0),
              whole.transition,
            );
            expect(whole.omittedFeatures.count).toBe(0);
            // The unary score is exactly the state part (the scorer's own sum).
            close(whole.state, scores.unary[i * L + labels[i]!]!);
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it("breaks a compared label down as the labelling with that label at the token would be", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, tr) => {
        const { sequences, model } = randomModel(seed, tr);
        const names = model.labels.names();
        const { attributes } = sequences[0]!;
        const labels = Array.from(
          { length: attributes.length },
          (_, i) => names[i % names.length]!,
        );
        const other = names[names.length - 1]!;
        const shown = explainLabelling(model, attributes, labels, { compare: [other] });
        for (let i = 0; i < labels.length; i++) {
          const changed = labels.slice();
          changed[i] = other;
          const there = explainLabelling(model, attributes, changed).tokens[i]!.chosen;
          const compared = shown.tokens[i]!.compared[0]!;
          expect(compared.label).toBe(other);
          close(compared.total, there.total);
          expect(compared.features).toEqual(there.features);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("finds the runner-up label and its margin by max-marginals, as brute force does", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, tr) => {
        const { sequences, model } = randomModel(seed, tr);
        const L = model.numLabels;
        for (const { attributes } of sequences) {
          const scores = model.chainScores(attributes);
          const all = enumerate(scores);
          const mm = maxMarginalsOf(scores);
          for (let i = 0; i < scores.n; i++)
            for (let t = 0; t < L; t++) {
              const best = Math.max(...all.filter((e) => e.labels[i] === t).map((e) => e.score));
              close(mm[i * L + t]!, best);
            }
          const viterbi = model.tagIds(attributes);
          const shown = explainLabelling(model, attributes, viterbi);
          for (const token of shown.tokens) {
            const i = token.index;
            const rest = all.filter((e) => e.labels[i] !== viterbi[i]);
            const best = Math.max(...rest.map((e) => e.score));
            expect(token.margin).toBeGreaterThanOrEqual(-1e-9);
            close(token.margin, shown.score - best);
            const runner = model.labels.lookup(token.runnerUp!);
            close(mm[i * L + runner]!, best);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("rejects labels the model does not have, and a labelling of the wrong length", () => {
    const { sequences, model } = randomModel(1, false);
    const { attributes } = sequences[0]!;
    const labels = Array.from({ length: attributes.length }, () => model.labels.name(0));
    expect(() => explainLabelling(model, attributes, labels.slice(1))).toThrow(/labels/);
    expect(() => explainLabelling(model, attributes, labels, { compare: ["nope"] })).toThrow(
      /unknown label "nope"/,
    );
  });
});

describe("strongestWeights", () => {
  it("lists each label's k largest and k most negative state weights, and the bigram matrix", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 4 }), (seed, top) => {
        const { model } = randomModel(seed, false);
        const { layout, weights } = model;
        const L = model.numLabels;
        const shown = strongestWeights(model, { top });
        for (const [t, entry] of shown.labels.entries()) {
          const own: { attribute: string; weight: number }[] = [];
          for (let a = 0; a < layout.numAttributes; a++)
            for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++)
              if (layout.featureLabels[f] === t && weights[f] !== 0)
                own.push({ attribute: model.attributes.name(a), weight: weights[f]! });
          expect(entry.nonZero).toBe(own.length);
          const pos = own
            .filter((w) => w.weight > 0)
            .map((w) => w.weight)
            .sort((a, b) => b - a);
          const neg = own
            .filter((w) => w.weight < 0)
            .map((w) => w.weight)
            .sort((a, b) => a - b);
          expect(entry.positive.map((w) => w.weight)).toEqual(pos.slice(0, top));
          expect(entry.negative.map((w) => w.weight)).toEqual(neg.slice(0, top));
        }
        for (let a = 0; a < L; a++)
          for (let b = 0; b < L; b++)
            expect(shown.transitions[a]![b]).toBe(weights[layout.transitionBase + a * L + b]);
        const one = strongestWeights(model, { labels: [model.labels.name(L - 1)] });
        expect(one.labels.map((l) => l.label)).toEqual([model.labels.name(L - 1)]);
      }),
      { numRuns: 40 },
    );
  });
});
