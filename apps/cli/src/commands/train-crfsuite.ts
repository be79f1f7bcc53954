import type { TrainingObjectiveName } from "@lagrange/bcrf";
import {
  type CrfModel,
  iterationCap,
  STOP_REASON_TEXT,
  type TrainingAlgorithm,
} from "@lagrange/chain-crf";
import { type CrfsuiteInstance, parseLabelScheme, readCrfsuite } from "@lagrange/datasets";
import {
  type CrfsuiteCorpus,
  objectiveTraining,
  parseClassWeights,
  trainOnCrfsuite,
} from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { requireFile } from "../inputs.js";
import { note, progressBar } from "../progress.js";
import { memoryOptions } from "../training-memory.js";
import type { TrainOptions } from "./train.js";
import { iterationDetail, scoresText, subsetInstances } from "./train-common.js";
import { continuedText, readInitModel } from "./train-init.js";

/** Options of `lagrange train` that build features from text columns: CRFsuite data has none. */
const COLUMN_FEATURE_OPTIONS: readonly [keyof TrainOptions, string][] = [
  ["preset", "--preset"],
  ["template", "--template"],
  ["columns", "--columns"],
  ["clusters", "--clusters"],
  ["lexicon", "--lexicon"],
  ["resources", "--resources"],
  ["denseColumns", "--dense-columns"],
  ["partial", "--partial"],
  ["twoStage", "--two-stage"],
  ["groups", "--groups"],
];

/** `--format crfsuite`: the attributes are in the data; what builds them from columns is refused. */
export function checkCrfsuiteTrainOptions(options: TrainOptions): void {
  const named = COLUMN_FEATURE_OPTIONS.filter(([key]) => options[key] !== undefined).map(
    ([, flag]) => flag,
  );
  if (options.order === "2") {
    throw usageError("--order 2 trains chain CRFs on text columns; not with --format crfsuite yet");
  }
  if (named.length > 0 || options.model === "general") {
    throw usageError(
      `${[...named, ...(options.model === "general" ? ["--model general"] : [])].join(", ")}: --format crfsuite data carries its attributes (label TAB name[:value] …), so no preset, template, resource or other model kind applies`,
    );
  }
  // Options of the CoNLL path that this one does not implement: refused, never silently ignored.
  const given = options as unknown as Record<string, unknown>;
  const unsupported = NOT_YET.filter(([key]) => given[key] !== undefined).map(([, flag]) => flag);
  if (unsupported.length > 0) {
    throw usageError(
      `${unsupported.join(", ")}: not available with --format crfsuite yet; train on CoNLL columns for it`,
    );
  }
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
}

const NOT_YET: readonly [string, string][] = [
  ["init", "--init"],
  ["classWeight", "--class-weight"],
];

async function readInstances(
  option: string,
  path: string,
  signal: AbortSignal | undefined,
): Promise<CrfsuiteCorpus> {
  requireFile(option, path);
  const instances: CrfsuiteInstance[] = [];
  for await (const instance of readCrfsuite(path, signal === undefined ? {} : { signal })) {
    instances.push(instance);
  }
  return { label: path, instances };
}

/** `lagrange train --format crfsuite`: a chain CRF on the data's own (real-valued) attributes. */
export async function trainCrfsuiteModel(
  options: TrainOptions,
  threads: number | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const train = subsetInstances(
    await readInstances("--data", options.data, signal),
    options,
    "data",
  );
  const init = options.init === undefined ? undefined : await readInitModel(options.init, signal);
  const dev =
    options.dev === undefined
      ? undefined
      : subsetInstances(await readInstances("--dev", options.dev, signal), options, "dev");
  const limit = iterationCap(options.algorithm as TrainingAlgorithm, options.maxIterations);
  const classWeights = parseClassWeights(options.classWeight ?? []);
  const objectiveName = (options.objective ?? "crf") as TrainingObjectiveName;
  const objective = objectiveTraining({
    objective: objectiveName,
    ...(options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations }),
  });
  const tokens = train.instances.reduce((sum, i) => sum + i.labels.length, 0);
  note(
    `training ${options.algorithm} on ${train.instances.length} sequences, ${tokens} items (${train.label}, CRFsuite format: attributes as given, values scaling their weights), objective ${objectiveName}`,
  );
  const bar = progressBar("train", limit);
  let result: Awaited<ReturnType<typeof trainOnCrfsuite>>;
  try {
    result = await trainOnCrfsuite(train, {
      algorithm: options.algorithm as TrainingAlgorithm,
      ...(options.scheme === undefined
        ? {}
        : { scheme: parseLabelScheme(options.scheme, "--scheme") }),
      ...(options.c1 === undefined ? {} : { c1: options.c1 }),
      ...(options.c2 === undefined ? {} : { c2: options.c2 }),
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      ...(threads === undefined ? {} : { threads }),
      ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
      ...memoryOptions(options.maxMemory, false),
      ...(dev === undefined ? {} : { dev }),
      ...(options.patience === undefined ? {} : { patience: options.patience }),
      ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
      ...(classWeights === undefined ? {} : { classWeights }),
      ...(options.allowNoProgress === true ? { allowNoProgress: true } : {}),
      ...objective,
      ...(init === undefined
        ? {}
        : { init: init.model, settings: { ...objective.settings, initModel: init.identity } }),
      onProgress: (p) => bar.update(p.iteration, iterationDetail(p)),
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    bar.stop();
  }
  const best = result.bestHeldOut;
  return {
    model: result.model,
    summary: `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${STOP_REASON_TEXT[result.stopReason]}), ${result.seconds.toFixed(1)} s, scheme ${result.scheme}${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${init === undefined ? "" : continuedText(init, result.model)}${best === undefined ? "" : `; best dev: ${scoresText(best)} at iteration ${best.iteration}`}; wrote ${options.out}\n`,
  };
}
