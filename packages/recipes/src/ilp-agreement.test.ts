import { constraintInstantiator } from "@lagrange/constraint-templates";
import { findSplitFile, openCorpus } from "@lagrange/datasets/node";
import { exactIlpDecoder, prepareIlp } from "@lagrange/ilp";
import { softDD } from "@lagrange/soft-dd";
import { describe, expect, it } from "vitest";
import { learnConstraints, scoreSentences } from "./constraint-learning.js";
import { attributesOf } from "./model-input.js";
import { trainOnCorpus } from "./training.js";

const train = findSplitFile("umass-citations", "train");
const dev = findSplitFile("umass-citations", "dev");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

/**
 * The ILP is the referee of every relaxation: on real UMass dev citations, under penalties learned
 * the way `lagrange constraints learn` learns them, every labelling Soft-DD certifies must have the
 * ILP optimum's objective (a certificate is a proof; this checks both decoders at once).
 */
describe("Soft-DD certificates agree with the exact ILP on UMass dev citations", () => {
  it.skipIf(train === undefined || dev === undefined)(
    `every certified Soft-DD labelling has the ILP optimum's objective — skipped if ${why}`,
    async () => {
      await prepareIlp();
      const trainCorpus = await openCorpus("umass-citations:train", { malformed: "skip" });
      const devCorpus = await openCorpus("umass-citations:dev", { malformed: "skip" });
      const small = { ...trainCorpus, sentences: trainCorpus.sentences.slice(0, 300) };
      const { model } = await trainOnCorpus(small, {
        preset: "citation",
        algorithm: "lbfgs",
        maxIterations: 25,
        c2: 1,
      });
      const sentences = devCorpus.sentences.slice(0, 240);
      const scored = scoreSentences(model, sentences, attributesOf(model, sentences));
      const learned = await learnConstraints(model, scored.slice(0, 120), {
        families: ["singleton", "pairwise", "hierarchical"],
        epochs: 2,
      });
      expect(learned.entries.length).toBeGreaterThan(0);
      const constraintsFor = constraintInstantiator(learned.entries);
      const dd = softDD();
      const exact = exactIlpDecoder();
      let certified = 0;
      let solvedByIlp = 0;
      const disagreements: number[] = [];
      for (const [k, s] of scored.slice(120).entries()) {
        const constraints = constraintsFor({ n: s.n, L: s.L, tokens: s.tokens });
        const relaxed = dd.decode({ scores: s.scores, constraints });
        const referee = exact.decode({ scores: s.scores, constraints });
        expect(referee.status).toBe("optimal");
        if (referee.solves > 0) solvedByIlp++;
        if (!relaxed.certified) continue;
        certified++;
        const scale = Math.max(1, Math.abs(referee.primal));
        if (Math.abs(relaxed.primal - referee.primal) > 1e-6 * scale) disagreements.push(k);
      }
      expect(disagreements).toEqual([]);
      expect(certified).toBeGreaterThan(100);
      // Not only sentences Viterbi already satisfied: the ILP itself decided some.
      expect(solvedByIlp).toBeGreaterThan(5);
    },
    120_000,
  );
});
