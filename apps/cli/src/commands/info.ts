import type { Command } from "commander";
import { readModel } from "../inputs.ts";

/** A readable summary of a model file: labels, features, preset, training settings. */
export async function infoCommand(path: string, json: boolean): Promise<string> {
  const model = await readModel(path, "model");
  const s = model.summary();
  const summary = {
    file: path,
    preset: s.preset,
    labels: s.labels,
    attributes: s.attributes,
    transitionAttributes: s.transitionAttributes,
    weights: s.weights,
    nonZeroWeights: s.nonZeroWeights,
    settings: s.settings,
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

export function registerInfo(program: Command): void {
  program
    .command("info")
    .description("Describe a model file")
    .argument("<model>", "model file")
    .option("--json", "as JSON")
    .action(async (model: string, opts: { json?: boolean }) => {
      process.stdout.write(await infoCommand(model, opts.json === true));
    });
}
