import { COUNT_FAMILIES } from "@lagrange/constraint-templates";
import { findSplitFile, openCorpus } from "@lagrange/datasets/node";
import { describe, expect, it } from "vitest";
import { learnConstraints, scoreSentences } from "./constraint-learning.js";
import { standardDecoders } from "./decoders.js";
import { explainSentence } from "./explain.js";
import { attributesOf } from "./model-input.js";
import { Tagger } from "./tagger.js";
import { trainOnCorpus } from "./training.js";

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));

const train = findSplitFile("umass-citations", "train");
const dev = findSplitFile("umass-citations", "dev");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

describe("explainSentence on UMass citations", () => {
  it.skipIf(train === undefined || dev === undefined)(
    `Soft-DD's changes are explained by λ terms on the changed tokens — skipped if ${why}`,
    async () => {
      const trainCorpus = await openCorpus("umass-citations:train", { malformed: "skip" });
      const devCorpus = await openCorpus("umass-citations:dev", { malformed: "skip" });
      const small = { ...trainCorpus, sentences: trainCorpus.sentences.slice(0, 300) };
      const { model } = await trainOnCorpus(small, {
        preset: "citation",
        algorithm: "lbfgs",
        maxIterations: 25,
        c2: 1,
      });
      const sentences = devCorpus.sentences.slice(0, 160);
      const scored = scoreSentences(model, sentences, attributesOf(model, sentences));
      const learned = await learnConstraints(model, scored.slice(0, 80), {
        families: COUNT_FAMILIES,
        epochs: 2,
      });
      const tagger = new Tagger({
        model,
        registry: standardDecoders(),
        decoder: "soft-dd",
        constraints: learned.entries,
      });
      let changed = 0;
      for (const sentence of sentences.slice(80)) {
        const shown = explainSentence(tagger, sentence, { top: 5, compare: "runner-up" });
        close(
          shown.perToken.reduce((s, t) => s + t.chosen.total, 0),
          shown.score,
        );
        for (const token of shown.perToken)
          expect(token.chosen.features.length).toBeLessThanOrEqual(5);
        if (shown.decoding.certified) close(shown.objective, shown.decoding.primal);
        if (shown.perToken.every((t) => t.chosen.label === t.unconstrained)) continue;
        changed++;
        // The constraints moved the labelling: some multiplier is on, and its terms sit on the
        // new or the old labels (a neighbour may follow through the transitions alone).
        expect(shown.constraints.some((c) => c.multiplier > 0)).toBe(true);
        const terms = shown.perToken.reduce(
          (s, t) => s + t.constraintTerms.length + t.unconstrainedTerms.length,
          0,
        );
        expect(terms).toBeGreaterThan(0);
      }
      expect(changed).toBeGreaterThan(0);
    },
    180_000,
  );
});
