import type { TrainingObjectiveName } from "@lagrange/bcrf";
import type { CrfModel, TrainingAlgorithm } from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import { parseLabelScheme } from "@lagrange/datasets";
import {
  objectiveIterations,
  objectiveTraining,
  standardDecoders,
  type TrainOnCorpusOptions,
  trainOnCorpus,
} from "@lagrange/recipes";
import { note, progressBar } from "../progress.js";
import { memoryOptions } from "../training-memory.js";
import type { CrfTrainOptions } from "./train.js";
import {
  iterationDetail,
  noteInvalidGold,
  openHeldOut,
  openTrainingData,
  scoresText,
  trainingRead,
} from "./train-common.js";
import { trainGeneral } from "./train-general.js";

/** `lagrange train` with the CRF learner: a chain CRF, or a general one (`--model general`). */
export async function trainCrfModel(
  options: CrfTrainOptions,
  threads: number | undefined,
  registry: DecoderRegistry | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const read = trainingRead(options, signal);
  const train = await openTrainingData(options, read);
  const scheme =
    options.scheme === undefined ? train.scheme : parseLabelScheme(options.scheme, "--scheme");
  const dev = await openHeldOut(options, read);
  const limit =
    options.maxIterations ??
    (options.algorithm === "lbfgs" || options.algorithm === "owlqn" ? 200 : 10);
  const objectiveName = (options.objective ?? "crf") as TrainingObjectiveName;
  const objective = objectiveTraining({
    objective: objectiveName,
    ...(options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations }),
    ...(options.partial === true ? { partialLabels: true } : {}),
  });
  note(
    `training ${options.algorithm} on ${train.sentences.length} sequences (${train.label}), preset ${options.preset}, ${objectiveText(objectiveName, options.bcrfIterations)}, scheme ${scheme}${options.scheme === undefined ? " (from the data)" : ""}`,
  );
  const crf = (onProgress: TrainOnCorpusOptions["onProgress"]): TrainOnCorpusOptions => ({
    preset: options.preset,
    scheme,
    algorithm: options.algorithm as TrainingAlgorithm,
    ...(options.c1 === undefined ? {} : { c1: options.c1 }),
    ...(options.c2 === undefined ? {} : { c2: options.c2 }),
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(threads === undefined ? {} : { threads }),
    ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
    ...memoryOptions(options.maxMemory, options.model === "general"),
    ...(dev === undefined ? {} : { dev }),
    ...(options.patience === undefined ? {} : { patience: options.patience }),
    ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
    ...(options.allowNoProgress === true ? { allowNoProgress: true } : {}),
    ...objective,
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (options.model === "general") {
    return trainGeneral(options, train, scheme, limit, crf, registry ?? standardDecoders(), signal);
  }
  const bar = progressBar("train", limit);
  let result: Awaited<ReturnType<typeof trainOnCorpus>>;
  try {
    result = await trainOnCorpus(
      train,
      crf((p) => bar.update(Math.min(p.iteration, limit), iterationDetail(p))),
    );
  } finally {
    bar.stop();
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
    summary: `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${result.stopReason}), ${result.seconds.toFixed(1)} s${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${bestText}; wrote ${options.out}\n`,
  };
}

/** The objective as the training note names it: `objective bcrf (10 IBP half-steps)`. */
function objectiveText(name: TrainingObjectiveName, iterations: number | undefined): string {
  if (name === "crf") return "objective crf (likelihood)";
  const k = objectiveIterations(name, iterations);
  return `objective ${name} (${k} ${name === "bcrf" ? "IBP half-steps" : "unrolled mean-field updates"})`;
}
