/**
 * What a model reads of a sentence (its preset's attributes), with no file system: the part of
 * model input that the browser entry's pipelines use too. `model-input.ts` adds corpora.
 */
import {
  type AttributeSequence,
  type CrfModel,
  FeatureInputError,
  getPreset,
  type Preset,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { inputRows, type Sentence, tokenPlace } from "@lagrange/datasets";

/** The feature preset a model was trained with (its file records the name). */
export function modelPreset(model: CrfModel): Preset {
  if (model.preset === null) {
    throw new LagrangeError(
      "bad-input",
      "the model records no feature preset, so its attributes cannot be rebuilt from text columns (a model imported from CRFsuite reads CRFsuite attribute lists)",
    );
  }
  return getPreset(model.preset);
}

/**
 * The preset's attributes of a sentence. Rows that do not fit the preset (too few columns) are
 * malformed input, reported at the file and line of the token, not at a token index.
 */
export function sentenceAttributes(preset: Preset, sentence: Sentence): AttributeSequence {
  try {
    return preset.extract(inputRows(sentence));
  } catch (error) {
    if (!(error instanceof FeatureInputError)) throw error;
    throw new LagrangeError(
      "bad-input",
      `${tokenPlace(sentence, error.token)}: ${error.detail} (the ${error.extractor} preset's input columns)`,
      { cause: error },
    );
  }
}

/** The preset's attributes of every sentence, for a model (whose file records the preset). */
export function attributesOf(model: CrfModel, sentences: readonly Sentence[]): AttributeSequence[] {
  const preset = modelPreset(model);
  return sentences.map((s) => sentenceAttributes(preset, s));
}

/**
 * How many input columns a model reads: recorded at training (`settings.inputColumns`, the
 * training data's columns but the gold one); undefined for a model file from before that.
 */
export function modelInputColumns(model: CrfModel): number | undefined {
  const recorded = model.settings.inputColumns;
  return typeof recorded === "number" && Number.isInteger(recorded) && recorded >= 1
    ? recorded
    : undefined;
}
