import { chainDecoder, scoreLabelling, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelFromTraining } from "./crf-model.js";
import { forwardBackward, kBest, viterbi } from "./inference/api.js";
import { crfChainSlaves, crfSlave } from "./slave.js";
import { enumerate } from "./testing/random-chain.js";
import { randomCorpus } from "./testing/random-corpus.js";
import { prepareTrainingData } from "./training-data.js";

function trainedModel(seed: number, transitions: boolean) {
  const sequences = randomCorpus(seed, {
    sequences: 6,
    maxLength: 5,
    values: (seed & 2) === 0,
    transitions,
  });
  const data = prepareTrainingData(sequences, { startEnd: (seed & 4) === 0 });
  const rnd = seededRandom(seed + 3);
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 2 - 1);
  const model = modelFromTraining(data, weights, { preset: "test", settings: { c2: 1 } });
  return { sequences, data, model, weights };
}

const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe("CrfModel", () => {
  it("a reused scorer gives chainScores' scores (views, not copies) and decodes as tagIds", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, transitions) => {
        const { sequences, model } = trainedModel(seed, transitions);
        const L = model.numLabels;
        const allowed = Uint8Array.from({ length: L * L }, (_, k) => (k % 3 === 1 ? 0 : 1));
        const allowedStart = Uint8Array.from({ length: L }, (_, t) => (t === 0 ? 0 : 1));
        const constraints = { allowed, allowedStart };
        const scorer = model.scorer(constraints);
        const viterbiOf = chainDecoder(crfChainSlaves());
        for (const { attributes } of sequences) {
          const reused = scorer.score(attributes);
          const fresh = model.chainScores(attributes, { constraints });
          expect(Array.from(reused.unary)).toEqual(Array.from(fresh.unary));
          expect(Array.from(reused.transition)).toEqual(Array.from(fresh.transition));
          expect(Array.from(reused.start ?? [])).toEqual(Array.from(fresh.start ?? []));
          expect(Array.from(reused.end ?? new Float64Array(L))).toEqual(
            Array.from(fresh.end ?? []),
          );
          expect(reused.allowed).toBe(allowed);
          const decoded = viterbiOf.decode({ scores: reused });
          if (decoded.status === "infeasible") {
            expect(() => model.tagIds(attributes, { constraints })).toThrow(/no labelling/);
          } else {
            expect(Array.from(decoded.labels)).toEqual(
              Array.from(model.tagIds(attributes, { constraints })),
            );
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("tags as the encoder decodes, and its chain scores give the same optimum and marginals", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, transitions) => {
        const { sequences, data, model, weights } = trainedModel(seed, transitions);
        const out = new Int32Array(16);
        for (let i = 0; i < sequences.length; i++) {
          const seq = sequences[i]!.attributes;
          const ids = model.tagIds(seq);
          const score = data.encoder.decode(i, weights, out);
          expect(Array.from(ids)).toEqual(Array.from(out.subarray(0, seq.length)));
          const scores = model.chainScores(seq);
          expect(viterbi(scores).score).toBeCloseTo(score, 9);
          const fb = forwardBackward(scores);
          const m = model.marginals(seq);
          expect(m.logPartition).toBeCloseTo(fb.logPartition, 9);
          for (let k = 0; k < m.marginals.length; k++) {
            expect(m.marginals[k]).toBeCloseTo(fb.marginals[k]!, 9);
          }
          const top = model.kbest(seq, 3);
          const ref = kBest(scores, 3);
          expect(top.scores.length).toBe(ref.scores.length);
          for (let r = 0; r < top.scores.length; r++) {
            expect(top.scores[r]).toBeCloseTo(ref.scores[r]!, 9);
          }
          expect(top.labels[0]).toEqual(model.tag(seq));
          const dataset = model.compile([sequences[i]!]);
          expect(model.instanceChainScores(dataset, 0)).toEqual(scores);
          model.tagInstance(dataset, 0, out);
          expect(Array.from(out.subarray(0, seq.length))).toEqual(Array.from(ids));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("honours decoding constraints and fixed labels exactly (brute force)", () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const { sequences, model } = trainedModel(seed, false);
        const L = model.numLabels;
        const rnd = seededRandom(seed + 9);
        const allowed = Uint8Array.from({ length: L * L }, () => (rnd() < 0.6 ? 1 : 0));
        const allowedStart = Uint8Array.from({ length: L }, () => (rnd() < 0.7 ? 1 : 0));
        const allowedEnd = Uint8Array.from({ length: L }, () => (rnd() < 0.7 ? 1 : 0));
        const constraints = { allowed, allowedStart, allowedEnd };
        for (const s of sequences) {
          const seq = s.attributes;
          const fixed = Array.from({ length: seq.length }, () =>
            rnd() < 0.3 ? Math.floor(rnd() * L) : null,
          );
          const plain = model.chainScores(seq);
          const all = enumerate(plain, {
            allowedStart,
            allowedEnd,
            fixed: fixed.map((f) => f ?? -1),
          }).map((e) => {
            for (let i = 1; i < seq.length; i++) {
              if (allowed[e.labels[i - 1]! * L + e.labels[i]!] === 0) {
                return { ...e, score: Number.NEGATIVE_INFINITY };
              }
            }
            return e;
          });
          const best = Math.max(...all.map((e) => e.score));
          const constrained = model.chainScores(seq, { constraints, fixed });
          const slave = crfSlave(constrained);
          const result = slave.maximize(new Float64Array(seq.length * L));
          expect(result.value === best || Math.abs(result.value - best) < 1e-9).toBe(true);
          if (best === Number.NEGATIVE_INFINITY) {
            expect(() => model.tag(seq, { constraints, fixed })).toThrow(/no labelling/);
          } else {
            const ids = model.tagIds(seq, { constraints, fixed });
            const code = ids.reduce((c, y) => c * L + y, 0);
            expect(all[code]!.score).toBeCloseTo(best, 9);
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it("pruning zero weights changes no score and shrinks the model", () => {
    fc.assert(
      fc.property(seeds, fc.boolean(), (seed, transitions) => {
        const { sequences, model } = trainedModel(seed, transitions);
        const rnd = seededRandom(seed + 5);
        for (let k = 0; k < model.weights.length; k++) if (rnd() < 0.5) model.weights[k] = 0;
        const small = model.pruned();
        expect(small.summary().nonZeroWeights).toBe(model.summary().nonZeroWeights);
        expect(small.summary().stateFeatures).toBeLessThanOrEqual(model.summary().stateFeatures);
        for (const s of sequences) {
          const a = model.chainScores(s.attributes);
          const b = small.chainScores(s.attributes);
          expect(Array.from(b.unary)).toEqual(Array.from(a.unary));
          // A sentence may lose all its conditioned bigrams (shared instead of per-position
          // transitions), so compare what the transitions mean: every labelling's score.
          for (let r = 0; r < 10; r++) {
            const y = Array.from({ length: a.n }, () => Math.floor(rnd() * a.L));
            expect(scoreLabelling(b, y)).toBeCloseTo(scoreLabelling(a, y), 12);
          }
        }
      }),
      { numRuns: 40 },
    );
    expect(() => prepareTrainingData([])).toThrow(/no training sequences/);
  });

  it("drops unknown attributes and rejects malformed constraints with a clear error", () => {
    const { model } = trainedModel(11, false);
    const seq = {
      length: 2,
      offsets: Int32Array.from([0, 1, 2]),
      names: ["never-seen", "w=1"],
      values: null,
      transition: null,
    };
    expect(model.tag(seq)).toHaveLength(2);
    expect(() => model.tag(seq, { constraints: { allowed: new Uint8Array(3) } })).toThrow(
      /constraints\.allowed: expected length L·L/,
    );
    expect(() => model.tag(seq, { fixed: ["no-such-label", null] })).toThrow(/unknown label/);
  });
});
