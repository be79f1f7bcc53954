/**
 * Trains the citation model the playground ships, learns its constraint penalties, and writes
 * them under public/ with their provenance:
 *
 *   node --conditions=lagrange-source --import tsx apps/playground/scripts/train-model.ts
 *
 * It runs the CLI demo's pipeline (anzaroot2014's experiment: the citation CRF, count-family
 * penalties learned on one half of dev, Viterbi and Soft-DD scored on the other half) on UMass
 * citations when the dataset registry reaches them, else on generated citations. Rare attributes
 * are pruned and weights stored as float32 so that the model file stays small enough to ship.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { modelToBytes } from "@lagrange/chain-crf";
import { decodedTemplates, serializeConstraintsFile } from "@lagrange/constraint-templates";
import { citationDemo, prepareCitationExperiment } from "@lagrange/recipes";

/** Attributes seen fewer times than this in training are dropped (the model file shrinks ~3×). */
const MIN_ATTRIBUTE_FREQUENCY = 3;
const CRF_ITERATIONS = 60;

const publicDir = join(dirname(fileURLToPath(import.meta.url)), "..", "public");
const say = (line: string) => process.stderr.write(`${line}\n`);

const experiment = await prepareCitationExperiment({
  crfIterations: CRF_ITERATIONS,
  minAttributeFrequency: MIN_ATTRIBUTE_FREQUENCY,
  onStatus: say,
});
const demo = await citationDemo(experiment, {
  timingRuns: 1,
  onEpoch: (e) => say(`  penalties, epoch ${e.epoch}: ${e.mistakes} mistakes`),
});

const model = modelToBytes(experiment.base.model, { precision: "float32" });
await writeFile(join(publicDir, "citation.model"), model);
await writeFile(
  join(publicDir, "citation.constraints.json"),
  serializeConstraintsFile({
    index: demo.learned.index,
    entries: demo.learned.entries,
    metadata: {
      families: "count",
      threshold: 2.75,
      countUnit: "segment",
      data: `${experiment.source}: the learning half of dev`,
      candidates: demo.learned.candidates,
      examples: demo.learned.examples,
    },
  }),
);
const round = (x: number) => Math.round(100 * x) / 100;
const provenance = {
  corpus: experiment.source,
  generated: experiment.generated,
  trainCitations: experiment.trainCitations,
  crfIterations: experiment.crfIterations,
  minAttributeFrequency: MIN_ATTRIBUTE_FREQUENCY,
  features: experiment.base.features,
  modelBytes: model.byteLength,
  weights: "float32",
  devSplit: `dev split in two by seed ${experiment.seed}: penalties learned on ${experiment.learn.length} citations, scores on the other ${experiment.test.length}`,
  devF1: {
    viterbi: round(demo.viterbi.scores.f1),
    softDD: round(demo.softDD.scores.f1),
    errorReduction: round(demo.errorReduction),
  },
  // What the decoders get (the page's count); zero penalties cannot change a labelling.
  constraints: decodedTemplates(demo.learned.entries).length,
  zeroPenaltyConstraints:
    demo.learned.entries.length - decodedTemplates(demo.learned.entries).length,
  trainedSeconds: round(experiment.base.seconds),
  script: "apps/playground/scripts/train-model.ts",
};
await writeFile(join(publicDir, "model.json"), `${JSON.stringify(provenance, null, 2)}\n`);
say(JSON.stringify(provenance, null, 2));
