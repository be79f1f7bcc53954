import type { CrfModel, DecodingConstraints } from "@lagrange/chain-crf";
import { decodingMask, type LabelScheme, parseLabelScheme } from "@lagrange/datasets";

/** The label scheme a model was trained under (recorded in its settings; `none` when absent). */
export function modelScheme(model: CrfModel): LabelScheme {
  const scheme = model.settings.scheme;
  return typeof scheme === "string" ? parseLabelScheme(scheme, "model settings.scheme") : "none";
}

/**
 * The decoding constraints of a model: the ones it carries (a freshly trained model), else the
 * mask of its recorded scheme (a model file stores the scheme, not the mask).
 */
export function modelDecodingConstraints(model: CrfModel): DecodingConstraints {
  if (model.constraints.allowed !== undefined) return model.constraints;
  return decodingMask(model.labels.names(), modelScheme(model)) ?? {};
}
