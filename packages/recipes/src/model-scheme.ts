import type { CrfModel } from "@lagrange/chain-crf";
import { LagrangeError, type TransitionMask } from "@lagrange/core";
import { decodingMask, LABEL_SCHEMES, type LabelScheme } from "@lagrange/datasets";

/** The label scheme a model was trained under (recorded in its settings; `none` when absent). */
export function modelScheme(model: CrfModel): LabelScheme {
  const { scheme } = model;
  if (scheme === null) return "none";
  if ((LABEL_SCHEMES as readonly string[]).includes(scheme)) {
    return scheme as LabelScheme;
  }
  // A model file is input: an unreadable scheme in it is malformed input, not a usage error.
  throw new LagrangeError(
    "bad-input",
    `the model's settings.scheme is ${JSON.stringify(scheme)}; expected one of ${LABEL_SCHEMES.join(", ")}`,
  );
}

/**
 * The decoding constraints of a model: the ones it carries (a freshly trained model), else the
 * mask of its recorded scheme (a model file stores the scheme, not the mask).
 */
export function modelDecodingConstraints(model: CrfModel): TransitionMask {
  if (model.constraints.allowed !== undefined) return model.constraints;
  return decodingMask(model.labels.names(), modelScheme(model)) ?? {};
}
