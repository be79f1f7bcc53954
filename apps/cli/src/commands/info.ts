import {
  describeSpec,
  type JsonValue,
  type ModelFileEncoding,
  modelFileEncoding,
} from "@lagrange/chain-crf";
import { modelFeatureSpec } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { readModel, requireFile } from "../inputs.js";
import { describeModel, isL2sModelPath, readL2sModel } from "../l2s-models.js";

/** A readable summary of a model file: labels, features, preset, training settings. */
export async function infoCommand(path: string, json: boolean): Promise<string> {
  requireFile("model", path);
  if (await isL2sModelPath(path)) return l2sInfo(path, json);
  const model = await readModel(path, "model");
  const s = model.summary();
  const spec = modelFeatureSpec(model);
  // The embedded resources (cluster paths, lexicon entries) are data, not settings to read.
  // Recorded constraints are a constraints file of their own: summarised on a line.
  const { features: _embedded, learnedConstraints: _recorded, ...settings } = s.settings;
  const recorded = recordedConstraintIds(model.learnedConstraints);
  const encoding = modelFileEncoding(model);
  const summary = {
    file: path,
    preset: s.preset,
    ...(spec === null ? {} : { features: describeSpec(spec) }),
    labels: s.labels,
    attributes: s.attributes,
    transitionAttributes: s.transitionAttributes,
    weights: s.weights,
    nonZeroWeights: s.nonZeroWeights,
    ...(encoding === null ? {} : { encoding }),
    ...(s.firstStage === null ? {} : { firstStage: { bytes: s.firstStage } }),
    ...(s.trigrams === undefined ? {} : { order: 2, trigrams: s.trigrams }),
    ...(recorded === null ? {} : { constraints: { ids: recorded, decoder: model.decoder } }),
    settings,
  };
  if (json) return `${JSON.stringify(summary, null, 2)}\n`;
  return [
    `model       ${path}`,
    `preset      ${summary.preset ?? "(none)"}`,
    ...(summary.features === undefined ? [] : [`features    ${summary.features}`]),
    `labels      ${summary.labels.length}: ${summary.labels.join(" ")}`,
    `attributes  ${summary.attributes} state, ${summary.transitionAttributes} transition`,
    `weights     ${summary.weights} (${summary.nonZeroWeights} non-zero)${encoding === null ? "" : `, ${describeEncoding(encoding)}`}`,
    ...(s.trigrams === undefined
      ? []
      : [`order       2 (${s.trigrams} label-trigram weights, exact second-order Viterbi)`]),
    ...(s.firstStage === null
      ? []
      : [`first stage ${s.firstStage} bytes embedded (a two-stage model: its votes are features)`]),
    ...(recorded === null
      ? []
      : [
          `constraints ${recorded.length} recorded (${recorded.join(", ")}), decoded by ${model.decoder ?? "soft-dd"} unless --constraints or --decoder viterbi`,
        ]),
    `settings    ${JSON.stringify(summary.settings)}`,
    "",
  ].join("\n");
}

/** How a model file stores its weights: `int8 with one scale per 256, compact layout`. */
function describeEncoding(encoding: ModelFileEncoding): string {
  const scales =
    encoding.blockSize === undefined ? "" : ` with one scale per ${encoding.blockSize}`;
  return `${encoding.precision}${scales}${encoding.compactLayout ? ", compact layout" : ""}`;
}

/** The ids of the constraints a model records (a constraints file's JSON), or null for none. */
function recordedConstraintIds(recorded: JsonValue | null): string[] | null {
  if (recorded === null || typeof recorded !== "object" || Array.isArray(recorded)) return null;
  const list = (recorded as { readonly [key: string]: JsonValue }).constraints;
  if (!Array.isArray(list)) return [];
  return list.flatMap((c: JsonValue) => {
    const id =
      c !== null && typeof c === "object" && !Array.isArray(c)
        ? (c as { readonly [key: string]: JsonValue }).id
        : undefined;
    return typeof id === "string" ? [id] : [];
  });
}

/** A learning-to-search model: its task, settings and learners. */
async function l2sInfo(path: string, json: boolean): Promise<string> {
  const model = await readL2sModel(path, "model");
  const learners = model.policy.learners.map((l, k) => ({
    actionSpace: model.policy.actionSpaces[k]?.name ?? `space ${k}`,
    actions: l.actions,
    bits: l.bits,
  }));
  if (json) {
    return `${JSON.stringify({ file: path, learner: "l2s", task: model.task, learners, settings: model.settings }, null, 2)}\n`;
  }
  return [
    `model       ${path}`,
    `kind        ${describeModel({ kind: "l2s", model })}`,
    `task        ${model.task}`,
    `learners    ${learners.map((l) => `${l.actionSpace}: ${l.actions} actions, 2^${l.bits} weights`).join("; ")}`,
    `settings    ${JSON.stringify(model.settings)}`,
    "",
  ].join("\n");
}

/** What `lagrange info` does (its options are declared in ../define/info.ts). */
export async function infoAction(
  model: string,
  opts: { json?: boolean; features?: boolean; top?: number; label?: string[] },
): Promise<void> {
  if (opts.features !== true && (opts.top !== undefined || opts.label !== undefined)) {
    throw usageError("--top and --label go with --features");
  }
  if (opts.features === true) {
    const { featuresCommand } = await import("./info-features.js");
    process.stdout.write(await featuresCommand(model, opts));
    return;
  }
  process.stdout.write(await infoCommand(model, opts.json === true));
}
