import { type CrfModel, type FeatureSpec, getPreset } from "@lagrange/chain-crf";
import { type JsonValue, LagrangeError } from "@lagrange/core";
import { type Corpus, inputRows, type LabelScheme } from "@lagrange/datasets";
import { modelFeatureSpec } from "./model-features.js";
import { modelScheme } from "./model-scheme.js";
import { definedFields } from "./training/defined-fields.js";

/** What continued training takes over from the model it starts from. */
export interface ContinuedTraining {
  /** The preset name to train with (the model's; a CRFsuite import's is the one given). */
  readonly preset: string;
  /** The model's recorded feature spec (template, columns, clusters, lexicons), if any. */
  readonly features?: FeatureSpec;
  /** The model's scheme; undefined for a model that records none (the data's is used). */
  readonly scheme?: LabelScheme;
  /** Settings carried over: the task preset and its decoder, when the model names them. */
  readonly settings: { readonly [key: string]: JsonValue };
}

/**
 * The features, scheme and task settings of continued training from `init` (named `source` in
 * messages): those the model records. A `preset` or `scheme` given too must agree with them (a
 * usage error otherwise), and is needed only by a model that records no preset (one imported
 * from CRFsuite: the preset whose attributes it was trained on). Two-stage models are refused:
 * their first stage would have to be jackknifed again on the new data.
 */
export function continuedTraining(
  init: CrfModel,
  source: string,
  corpus: Corpus,
  given: { readonly preset?: string; readonly scheme?: LabelScheme } = {},
): ContinuedTraining {
  refuseTwoStage(init, source, "; train a two-stage model from scratch");
  const spec = modelFeatureSpec(init);
  const { taskPreset } = init;
  const settings: { [key: string]: JsonValue } = {};
  if (taskPreset !== null) settings.taskPreset = taskPreset;
  if (init.decoder !== null) settings.decoder = init.decoder;
  let preset = init.preset;
  if (preset === null) {
    if (spec === null && given.preset === undefined) {
      throw new LagrangeError(
        "usage",
        `${source} records no feature preset (a model imported from CRFsuite): name the preset whose attributes it was trained on with --preset`,
      );
    }
    if (given.preset !== undefined) getPreset(given.preset);
    preset = given.preset ?? "template";
  } else if (given.preset !== undefined && given.preset !== preset && given.preset !== taskPreset) {
    throw new LagrangeError(
      "usage",
      `--preset ${given.preset} conflicts with ${source}, trained with ${taskPreset ?? preset}: continued training keeps the model's features (leave --preset out)`,
    );
  }
  const recorded = init.scheme === null ? undefined : modelScheme(init);
  if (given.scheme !== undefined && recorded !== undefined && given.scheme !== recorded) {
    throw new LagrangeError(
      "usage",
      `--scheme ${given.scheme} conflicts with ${source}'s scheme ${recorded}: continued training keeps it (leave --scheme out)`,
    );
  }
  const columns = init.settings.inputColumns;
  const first = corpus.sentences[0];
  const found = first === undefined ? undefined : inputRows(first)[0]?.length;
  if (typeof columns === "number" && found !== undefined && found !== columns) {
    throw new LagrangeError(
      "usage",
      `${corpus.label} has ${found} input column(s); ${source} was trained on ${columns}: continued training reads the same columns`,
    );
  }
  const scheme = recorded ?? given.scheme;
  return {
    preset,
    ...(spec === null ? {} : { features: spec }),
    ...definedFields({ scheme }),
    settings,
  };
}

/**
 * What `trainOnCorpus` checks of an initial model: features named as the model's (its attributes
 * would otherwise never fire again) and no first stage to rebuild.
 */
export function requireContinuable(init: CrfModel, preset: string): void {
  refuseTwoStage(init, "the initial model");
  if (init.preset !== null && init.preset !== preset) {
    throw new LagrangeError(
      "usage",
      `the initial model was trained with the ${init.preset} features, not ${preset}: continued training keeps the model's features`,
    );
  }
}

/** A two-stage model's first stage would have to be jackknifed again on the new data. */
function refuseTwoStage(init: CrfModel, source: string, advice = ""): void {
  if (init.features.includes("first-stage")) {
    throw new LagrangeError(
      "usage",
      `${source} is a two-stage model: continued training does not re-jackknife its first stage${advice}`,
    );
  }
}
