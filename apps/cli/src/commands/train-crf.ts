import type { TrainingObjectiveName } from "@lagrange/bcrf";
import {
  type CrfModel,
  iterationCap,
  STOP_REASON_TEXT,
  type TrainingAlgorithm,
} from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import { type Corpus, type LabelScheme, parseLabelScheme } from "@lagrange/datasets";
import {
  continuedTraining,
  objectiveIterations,
  objectiveTraining,
  parseClassWeights,
  standardDecoders,
  type TrainingFeatures,
  type TrainOnCorpusOptions,
  TWO_STAGE_FOLDS,
  trainingFeatures,
  trainOnCorpus,
} from "@lagrange/recipes";
import { readNamedText } from "../inputs.js";
import { note, progressBar } from "../progress.js";
import { checkFeatureMemory, memoryOptions } from "../training-memory.js";
import type { CrfTrainOptions } from "./train.js";
import { lexiconArgument } from "./train-check.js";
import {
  iterationDetail,
  noteInvalidGold,
  openHeldOut,
  openTrainingData,
  scoresText,
  trainingRead,
} from "./train-common.js";
import { trainGeneral } from "./train-general.js";
import { continuedText, readInitModel } from "./train-init.js";
import { trainTwoStageModel } from "./train-two-stage.js";

/** `lagrange train` with the CRF learner: a chain CRF, or a general one (`--model general`). */
export async function trainCrfModel(
  options: CrfTrainOptions,
  threads: number | undefined,
  registry: DecoderRegistry | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const read = trainingRead(options, signal);
  const train = await openTrainingData(options, read);
  const init = options.init === undefined ? undefined : await readInitModel(options.init, signal);
  const givenScheme =
    options.scheme === undefined ? undefined : parseLabelScheme(options.scheme, "--scheme");
  // Continued training takes the features and the scheme the initial model records.
  const continued =
    init === undefined
      ? undefined
      : continuedTraining(init.model, `--init ${init.file}`, train, {
          ...(options.preset === undefined ? {} : { preset: options.preset }),
          ...(givenScheme === undefined ? {} : { scheme: givenScheme }),
        });
  const scheme = continued?.scheme ?? givenScheme ?? train.scheme;
  const dev = await openHeldOut(options, read);
  const features: TrainingFeatures =
    continued === undefined
      ? await resolveFeatures(options, train, scheme, signal)
      : {
          preset: continued.preset,
          ...(continued.features === undefined ? {} : { features: continued.features }),
          notes: [],
        };
  // Before a single attribute of the corpus exists: a template's expansion, lexicon and cluster
  // features can pass the bound long before the layout's estimate can be made.
  checkFeatureMemory(train, features, featureSource(options, features.preset), options.maxMemory);
  const task = features.task;
  const quasiNewton = options.algorithm === "lbfgs" || options.algorithm === "owlqn";
  const maxIterations = options.maxIterations ?? (quasiNewton ? task?.maxIterations : undefined);
  const limit = iterationCap(options.algorithm as TrainingAlgorithm, maxIterations);
  const objectiveName = (options.objective ?? "crf") as TrainingObjectiveName;
  const objective = objectiveTraining({
    objective: objectiveName,
    ...(options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations }),
    ...(options.partial === true ? { partialLabels: true } : {}),
  });
  note(
    `training ${options.algorithm} on ${train.sentences.length} sequences (${train.label}), ${init !== undefined ? `continuing ${init.file} (preset ${features.preset})` : options.template === undefined ? `preset ${options.preset}` : `template ${options.template}`}, ${objectiveText(objectiveName, options.bcrfIterations)}, scheme ${scheme}${options.scheme === undefined && continued?.scheme === undefined ? " (from the data)" : ""}`,
  );
  const c2 = options.c2 ?? task?.c2;
  const classWeights = parseClassWeights(options.classWeight ?? []);
  const crf = (
    onProgress: TrainOnCorpusOptions["onProgress"],
    of: TrainingFeatures = features,
  ): TrainOnCorpusOptions => ({
    preset: of.preset,
    ...(of.features === undefined ? {} : { features: of.features }),
    ...(of.jackknife === undefined ? {} : { jackknife: of.jackknife }),
    ...(task !== undefined && quasiNewton ? { delta: task.delta } : {}),
    scheme,
    algorithm: options.algorithm as TrainingAlgorithm,
    ...(options.c1 === undefined ? {} : { c1: options.c1 }),
    ...(c2 === undefined ? {} : { c2 }),
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(threads === undefined ? {} : { threads }),
    ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
    ...memoryOptions(options.maxMemory, options.model === "general"),
    ...(dev === undefined ? {} : { dev }),
    ...(options.patience === undefined ? {} : { patience: options.patience }),
    ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
    ...(options.order === "2"
      ? { order: 2 as const, trigrams: options.trigrams === "all" ? "all" : "observed" }
      : {}),
    ...(classWeights === undefined ? {} : { classWeights }),
    ...(options.allowNoProgress === true ? { allowNoProgress: true } : {}),
    ...objective,
    // The task preset and the decoder its models are meant for (lagrange tag's default).
    ...(task === undefined
      ? {}
      : { settings: { ...objective.settings, taskPreset: task.name, decoder: task.decoder } }),
    ...(init === undefined || continued === undefined
      ? {}
      : {
          init: init.model,
          settings: { ...objective.settings, ...continued.settings, initModel: init.identity },
        }),
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (options.model === "general") {
    // A jackknife fold's chain CRF trains on a subset: its features (lexicons mined from its own
    // sentences) are resolved again, never the whole corpus's, whose mined entries would leak.
    const featuresOf = (corpus: Corpus) =>
      corpus === train || features.jackknife === undefined
        ? Promise.resolve(features)
        : resolveFeatures(options, corpus, scheme, signal, true);
    return trainGeneral(
      options,
      train,
      scheme,
      limit,
      crf,
      featuresOf,
      registry ?? standardDecoders(),
      signal,
    );
  }
  let result: Awaited<ReturnType<typeof trainOnCorpus>>;
  let twoStageText = "";
  if (options.twoStage === true) {
    const trained = await trainTwoStageModel(options, train, features, limit, crf);
    result = trained.result;
    twoStageText = trained.text;
  } else {
    const bar = progressBar("train", limit);
    try {
      result = await trainOnCorpus(
        train,
        crf((p) => bar.update(p.iteration, iterationDetail(p))),
      );
    } finally {
      bar.stop();
    }
  }
  noteInvalidGold(train, scheme, result.schemeCheck);
  if (options.partial === true) {
    note(
      `${train.label}: ${result.partialSentences} of ${train.sentences.length} sequences partially annotated (unknown labels or label sets; training marginalises over the labellings they allow)`,
    );
  }
  if (dev !== undefined && result.heldOutExcluded > 0) {
    note(
      `${dev.label}: ${result.heldOutExcluded} of ${dev.sentences.length} sequences partially annotated, left out of the dev evaluation${result.heldOutExcluded === dev.sentences.length ? " (none is left: no dev scores)" : ""}`,
    );
  }
  const best = result.bestHeldOut;
  const excluded =
    result.heldOutExcluded > 0 ? `, ${result.heldOutExcluded} partially annotated left out` : "";
  const bestText =
    best === undefined
      ? ""
      : `; best dev: ${scoresText(best)} at iteration ${best.iteration}${excluded}`;
  return {
    model: result.model,
    summary: `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${STOP_REASON_TEXT[result.stopReason]}), ${result.seconds.toFixed(1)} s${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${twoStageText}${init === undefined ? "" : continuedText(init, result.model)}${bestText}; wrote ${options.out}\n`,
  };
}

/** The objective as the training note names it: `objective bcrf (10 IBP half-steps)`. */
function objectiveText(name: TrainingObjectiveName, iterations: number | undefined): string {
  if (name === "crf") return "objective crf (likelihood)";
  const k = objectiveIterations(name, iterations);
  return `objective ${name} (${k} ${name === "bcrf" ? "IBP half-steps" : "unrolled mean-field updates"})`;
}

/** The features the options ask for: a preset, a task preset's bundle, a template, resources. */
async function resolveFeatures(
  options: CrfTrainOptions,
  train: Corpus,
  scheme: LabelScheme,
  signal: AbortSignal | undefined,
  quiet = false,
): Promise<TrainingFeatures> {
  const template =
    options.template === undefined
      ? undefined
      : {
          text: await readNamedText("--template", options.template, signal),
          source: options.template,
        };
  let bar: ReturnType<typeof progressBar> | undefined;
  try {
    const resolved = await trainingFeatures(
      {
        ...(options.preset === undefined ? {} : { preset: options.preset }),
        ...(template === undefined ? {} : { template }),
        ...(options.columns === undefined ? {} : { columns: options.columns }),
        ...(options.clusters === undefined ? {} : { clusterFiles: options.clusters }),
        ...(options.denseColumns === undefined ? {} : { denseColumns: options.denseColumns }),
        // A two-stage model's first stage is jackknifed over the mined lexicons' folds.
        ...(options.twoStage === true ? { folds: options.folds ?? TWO_STAGE_FOLDS } : {}),
        lexiconFiles: (options.lexicon ?? []).map(lexiconArgument),
      },
      train,
      scheme,
      {
        ...(options.resources === undefined ? {} : { resourcesDir: options.resources }),
        ...(signal === undefined ? {} : { signal }),
        onProgress: (stage, done, total) => {
          if (bar === undefined) {
            note(`${stage}: Brown clustering of the raw text (once; the result is cached)`);
            bar = progressBar(stage, total);
          }
          bar.update(done, "merges");
        },
      },
    );
    if (!quiet) for (const line of resolved.notes) note(line);
    return resolved;
  } finally {
    bar?.stop();
  }
}

/** What generates a run's attributes, in the flags that set it: `--template x.tpl, --lexicon org`. */
function featureSource(options: CrfTrainOptions, preset: string): string {
  const parts = [
    options.init !== undefined
      ? `--init ${options.init}`
      : options.template !== undefined
        ? `--template ${options.template}`
        : `--preset ${options.preset ?? preset}`,
    ...(options.lexicon ?? []).map((l) => `--lexicon ${l}`),
    ...(options.clusters ?? []).map((c) => `--clusters ${c}`),
  ];
  return parts.join(", ");
}
