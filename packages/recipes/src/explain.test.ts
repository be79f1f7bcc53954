import { modelFromTraining, prepareTrainingData } from "@lagrange/chain-crf";
import { COUNT_FAMILIES, type ConstraintTemplate } from "@lagrange/constraint-templates";
import {
  constraintViolation,
  type LinearConstraint,
  linearConstraint,
  scoreLabelling,
  seededRandom,
} from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { standardDecoders } from "./decoders.js";
import { explainAttributes } from "./explain.js";
import { modelDecodingConstraints } from "./model-scheme.js";
import { Tagger } from "./tagger.js";

/** A random chain CRF over labels A, B, C and attributes w0..w5 (no preset: attributes in). */
function randomModel(seed: number) {
  const rnd = seededRandom(seed);
  const names = ["A", "B", "C"];
  const sequences = Array.from({ length: 6 }, () => {
    const n = 1 + Math.floor(rnd() * 5);
    const offsets = new Int32Array(n + 1);
    const attributeNames: string[] = [];
    for (let t = 0; t < n; t++) {
      offsets[t] = attributeNames.length;
      for (let k = 0; k < 3; k++) attributeNames.push(`w${Math.floor(rnd() * 6)}`);
    }
    offsets[n] = attributeNames.length;
    return {
      attributes: { length: n, offsets, names: attributeNames, values: null, transition: null },
      labels: Array.from({ length: n }, () => names[Math.floor(rnd() * 3)]!),
    };
  });
  const data = prepareTrainingData(sequences, { shared: false });
  const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() * 4 - 2);
  return { sequences, model: modelFromTraining(data, weights) };
}

/** "at most `limit` tokens labelled `label`", soft with `penalty` or hard with null. */
function countTemplate(label: number, limit: number): ConstraintTemplate {
  const constraintsOf = ({ n, L }: { n: number; L: number }): LinearConstraint[] => [
    linearConstraint({
      // A model may have seen fewer than three labels.
      terms: Array.from({ length: n }, (_, i) => [i * L + (label % L), 1] as const),
      rhs: limit,
    }),
  ];
  return {
    id: `count:${label}:${limit}`,
    family: COUNT_FAMILIES[0]!,
    spec: { kind: "singleton", label: String(label) } as never,
    usesTokens: false,
    scope: "sentence",
    describe: () => `at most ${limit} tokens of label ${label}`,
    instantiate: constraintsOf,
    violation: () => 0,
  };
}

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));

describe("explainSentence", () => {
  it("adds up under Soft-DD: chain parts to the chain score, λ terms to the Lagrangian, penalties to the primal", () => {
    const registry = standardDecoders();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 2 }),
        fc.double({ min: 0.1, max: 5, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        (seed, label, penalty, top) => {
          const { sequences, model } = randomModel(seed);
          const tagger = new Tagger({
            model,
            registry,
            decoder: "soft-dd",
            constraints: [
              { template: countTemplate(label, 1), penalty },
              { template: countTemplate((label + 1) % 3, 0), penalty: penalty / 2 },
            ],
          });
          const L = model.numLabels;
          const scorer = model.scorer(modelDecodingConstraints(model));
          for (const { attributes } of sequences) {
            const tokens = Array.from({ length: attributes.length }, (_, i) => `t${i}`);
            const shown = explainAttributes(tagger, attributes, tokens, {
              ...(top === undefined ? {} : { top }),
            });
            const ids = Int32Array.from(shown.labels, (l) => model.labels.lookup(l));
            const scores = scorer.score(attributes);
            close(shown.score, scoreLabelling(scores, ids));
            close(
              shown.perToken.reduce((s, t) => s + t.chosen.total, 0),
              shown.score,
            );
            // The Lagrangian from the per-token terms equals score − Σ λ (a·y − b), computed whole.
            const tagged = tagger.tagAttributes(attributes, tokens);
            const lambda = tagged.decoding.constraintStats?.multipliers ?? new Float64Array(0);
            let direct = shown.score;
            let paid = 0;
            for (const [c, constraint] of tagged.constraints.entries()) {
              let ay = 0;
              for (let k = 0; k < constraint.indices.length; k++) {
                const index = constraint.indices[k]!;
                if (ids[Math.floor(index / L)] === index % L) ay += constraint.coefficients[k]!;
              }
              direct -= (lambda[c] ?? 0) * (ay - constraint.rhs);
              paid += constraint.penalty! * constraintViolation(constraint, ids, L);
            }
            close(shown.lagrangian.value, direct);
            close(shown.penaltyPaid, paid);
            close(shown.objective, shown.score - paid);
            if (shown.decoding.certified) close(shown.objective, shown.decoding.primal);
            for (const token of shown.perToken) {
              if (top !== undefined) expect(token.constraintTerms.length).toBeLessThanOrEqual(top);
              else
                close(
                  token.constraintTerms.reduce((s, t) => s + t.term, 0),
                  token.constraintTerm,
                );
              for (const term of token.constraintTerms) {
                expect(term.multiplier).toBeGreaterThan(0);
                expect(term.multiplier).toBeLessThanOrEqual(term.penalty! + 1e-9);
              }
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("has no constraint terms under Viterbi, and its labels are Viterbi's with margins ≥ 0", () => {
    const { sequences, model } = randomModel(7);
    const tagger = new Tagger({ model });
    for (const { attributes } of sequences) {
      const tokens = Array.from({ length: attributes.length }, (_, i) => `t${i}`);
      const shown = explainAttributes(tagger, attributes, tokens, { compare: "runner-up" });
      expect(shown.labels).toEqual(model.tag(attributes));
      expect(shown.constraints).toEqual([]);
      close(shown.objective, shown.score);
      for (const token of shown.perToken) {
        expect(token.constraintTerms).toEqual([]);
        expect(token.margin).toBeGreaterThanOrEqual(-1e-9);
        expect(token.compared.map((c) => c.label)).toEqual([token.runnerUp]);
        expect(token.unconstrained).toBe(token.chosen.label);
      }
    }
  });
});
