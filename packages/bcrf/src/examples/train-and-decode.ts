// The README's example, runnable as it stands (its test checks what the comments claim).
import { bcrfDecoder, bcrfObjective } from "@lagrange/bcrf";
import { type LabelledSequence, posPreset, trainCrf } from "@lagrange/chain-crf";

const preset = posPreset();
const sentence = (
  words: string[],
  tags: NonNullable<LabelledSequence["labels"]>,
): LabelledSequence => ({
  attributes: preset.extract(words.map((w) => [w])),
  labels: tags,
});
const corpus = [
  sentence(["the", "dog", "runs"], ["DET", "NOUN", "VERB"]),
  sentence(["a", "cat", "sleeps"], ["DET", "NOUN", "VERB"]),
  sentence(["the", "cat", "runs", "fast"], ["DET", "NOUN", "VERB", "ADV"]),
  // A partial annotation: "dog" unknown, "barks" either VERB or NOUN.
  sentence(["a", "dog", "barks"], ["DET", null, ["VERB", "NOUN"]]),
];
// The CRF's features and L-BFGS, trained with the Bregman CRF's Fenchel–Young loss (10 IBP
// half-steps per sentence); the model file records objective "bcrf".
const { model } = await trainCrf(corpus, {
  objective: bcrfObjective({ iterations: 10 }),
  maxIterations: 50,
});
// Decoded by IBP (5 half-steps at τ = 0.1, validity-aware output) — or by Viterbi: same scores.
const scores = model.chainScores(preset.extract([["a"], ["dog"], ["sleeps"]]));
const decoding = bcrfDecoder().decode({ scores }, { iterations: 5 });
export const tags = Array.from(decoding.labels, (id) => model.labels.names()[id]);
console.log(tags); // [ 'DET', 'NOUN', 'VERB' ]
