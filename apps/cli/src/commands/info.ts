import { loadModel } from "@lagrange/chain-crf";

/** A readable summary of a model file: labels, features, preset, training settings. */
export async function infoCommand(path: string, json: boolean): Promise<string> {
  const model = await loadModel(path);
  const { layout } = model;
  const summary = {
    file: path,
    preset: model.preset,
    labels: [...model.labels.names()],
    attributes: model.attributes.size,
    transitionAttributes: model.transitionAttributes.size,
    weights: layout.numWeights,
    nonZeroWeights: model.weights.reduce((n, w) => (w !== 0 ? n + 1 : n), 0),
    settings: model.settings,
  };
  if (json) return `${JSON.stringify(summary, null, 2)}\n`;
  return [
    `model       ${path}`,
    `preset      ${summary.preset ?? "(none)"}`,
    `labels      ${summary.labels.length}: ${summary.labels.join(" ")}`,
    `attributes  ${summary.attributes} state, ${summary.transitionAttributes} transition`,
    `weights     ${summary.weights} (${summary.nonZeroWeights} non-zero)`,
    `settings    ${JSON.stringify(summary.settings)}`,
    "",
  ].join("\n");
}
