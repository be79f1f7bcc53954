// The browser entry of the pack check: what a page does with Lagrange, end to end, importing only
// the browser-safe main entries. It trains a small citation CRF on generated citations (a page can
// also fetch a model's bytes), round-trips the model through its file bytes, tags held-out
// citations with Viterbi, computes token marginals, decodes with Soft-DD under a soft "at most one
// title" constraint, and scores both with the segment evaluation. Bundled by esbuild for the
// browser; the check then runs the bundle to see it work.
import {
  citationPreset,
  crfChainSlaves,
  loadModelFromBytes,
  modelToBytes,
  trainCrf,
} from "@lagrange/chain-crf";
import { linearConstraint } from "@lagrange/core";
import { evaluateSegments, generateCitations } from "@lagrange/datasets";
import { softDD } from "@lagrange/soft-dd";

/** The top level of a hierarchical citation label: `I-authors/B-person/…` → `I-authors`. */
const topLevel = (label: string): string => label.split("/")[0] ?? label;

const preset = citationPreset();
const citations = generateCitations(160, { seed: 7 });
const sequences = citations.map((c) => ({
  attributes: preset.extract(c.tokens.map((token) => [token])),
  labels: c.labels.map(topLevel),
}));
const train = sequences.slice(0, 120);
const heldOut = sequences.slice(120);

const { model: trained } = await trainCrf(train, { maxIterations: 40 });
const model = loadModelFromBytes(modelToBytes(trained));

const decoder = softDD({ chainSlave: crfChainSlaves() });
const titleBegin = model.labels.names().indexOf("B-title");
const gold: string[][] = [];
const viterbiLabels: string[][] = [];
const constrainedLabels: string[][] = [];
let certified = 0;
let marginalMass = 0;
for (const sequence of heldOut) {
  gold.push(sequence.labels);
  viterbiLabels.push(model.tag(sequence.attributes));
  const { marginals } = model.marginals(sequence.attributes);
  marginalMass += marginals.reduce((sum, p) => sum + p, 0) / sequence.labels.length;
  const scores = model.chainScores(sequence.attributes);
  const atMostOneTitle = linearConstraint({
    terms: Array.from({ length: scores.n }, (_, i) => [i * scores.L + titleBegin, 1] as const),
    rhs: 1,
    penalty: 0.5,
    name: "at most one title",
  });
  const decoded = decoder.decode({ scores, constraints: [atMostOneTitle] }, { maxIterations: 50 });
  if (decoded.status === "optimal") certified++;
  constrainedLabels.push(model.labels.decode(decoded.labels));
}
const viterbiF1 = evaluateSegments(gold, viterbiLabels).f1;
const softDDF1 = evaluateSegments(gold, constrainedLabels).f1;
const meanMass = marginalMass / heldOut.length;
if (!(Math.abs(meanMass - 1) < 1e-6)) throw new Error(`marginals sum to ${meanMass} per token`);
if (!(viterbiF1 > 0.5)) throw new Error(`Viterbi field F1 ${viterbiF1} on generated citations`);
console.log(
  `tagged ${heldOut.length} citations: Viterbi F1 ${(100 * viterbiF1).toFixed(2)}, Soft-DD F1 ${(100 * softDDF1).toFixed(2)} (${certified} certified), marginals sum to 1`,
);
