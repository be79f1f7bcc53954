import type { CrfModel, Preset } from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { type Corpus, tokenPlace, withoutLabels, wordColumnOnly } from "@lagrange/datasets";
import { modelInputColumns, modelPreset } from "./model-features.js";

export {
  attributesOf,
  modelFeatureSpec,
  modelInputColumns,
  modelPreset,
  readsDocumentInputs,
  sentenceAttributes,
  votesFromLabels,
  withDocumentInputs,
  withDocumentInputsSync,
} from "./model-features.js";

/**
 * Whether data given to a model carries gold labels: `auto` reads it off the data, `required`
 * insists (learning, evaluation), `none` treats every column as input (raw text to tag).
 */
export type GoldLabels = "auto" | "required" | "none";

/**
 * The corpus as the model's input: with gold labels, or without them when the data has none.
 *
 * CoNLL columns carry no mark of which column is gold, so `auto` compares the file's width with
 * the model's input columns: as many columns as the model reads is unlabeled text (the last column
 * is an input, not a label), one more is inputs then gold. UMass and inline files whose tags are
 * absent (every token outside) are unlabeled. Any other width is an error at the file's first line
 * that says what the model reads, rather than a model fed its gold column as a feature or a POS
 * column taken for gold.
 */
export function inputForModel(corpus: Corpus, model: CrfModel, gold: GoldLabels): Corpus {
  return inputForPreset(corpus, modelPreset(model), modelInputColumns(model), gold);
}

/**
 * {@link inputForModel} for any model that reads a preset's attributes: its preset, and how many
 * input columns it recorded at training (undefined for a file from before that). An L2S tagger's
 * input goes through here too.
 */
export function inputForPreset(
  corpus: Corpus,
  preset: Preset,
  reads: number | undefined,
  gold: GoldLabels,
): Corpus {
  const first = corpus.sentences[0];
  if (first === undefined) return corpus;
  const stripped = () => ({
    ...corpus,
    sentences: corpus.sentences.map((s) => withoutLabels(s, corpus.format)),
  });
  const hasLabels = corpus.sentences.some((s) => s.labels !== undefined);
  if (gold === "none") return hasLabels ? stripped() : corpus;
  if (corpus.format === "umass" || corpus.format === "inline") {
    const tagged = corpus.sentences.some((s) => s.labels?.some((label) => label !== "O"));
    if (tagged || gold === "required") return corpus;
    return stripped();
  }
  if (corpus.format !== "conll") return corpus;
  const width = first.columns.length;
  const place = tokenPlace(first, 0);
  const what = `the model (preset ${preset.name}) reads ${reads ?? `at least ${preset.columns.length}`} input column(s) (${preset.columns.join(", ")}${reads !== undefined && reads > preset.columns.length ? ", …" : ""})`;
  if (!hasLabels) {
    if (gold === "required") {
      throw new LagrangeError(
        "bad-input",
        `${place}: 1 column and no gold labels; ${what}, then the gold label`,
      );
    }
    return corpus;
  }
  if (reads === undefined) {
    // A model file that does not record its width: the preset's columns are the only guide.
    return gold === "auto" && width === preset.columns.length ? stripped() : corpus;
  }
  if (width === reads + 1) return corpus;
  // A model of the word alone (one that tags text) reads a wider file's first column where the
  // gold is known to be its last: the registry's layout, or gold required (scoring, learning).
  const wordsOnly = reads === 1 && preset.columns.length === 1;
  if (wordsOnly && width > 2 && (gold === "required" || corpus.dataset !== undefined)) {
    return wordColumnOnly(corpus);
  }
  if (width === reads && gold === "auto") return stripped();
  throw new LagrangeError(
    "bad-input",
    gold === "required"
      ? `${place}: ${width} column(s); ${what}, then the gold label: expected ${reads + 1}`
      : `${place}: ${width} column(s); ${what}: expected ${reads} (unlabeled) or ${reads + 1} (the gold label last)`,
  );
}
