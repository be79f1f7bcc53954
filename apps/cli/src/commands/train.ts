import {
  BCRF_DEFAULT_ITERATIONS,
  MEAN_FIELD_DEFAULTS,
  TRAINING_OBJECTIVES,
  type TrainingObjectiveName,
  trainingObjective,
} from "@lagrange/bcrf";
import {
  type CrfModel,
  getPreset,
  type JsonValue,
  modelToBytes,
  type TrainingAlgorithm,
  type TrainingProgress,
} from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import { type Corpus, corpusLocator, type LabelScheme, parseLabelScheme } from "@lagrange/datasets";
import {
  GROUPING_KINDS,
  type GroupingKind,
  standardDecoders,
  type TrainedGeneralCrf,
  type TrainOnCorpusOptions,
  trainGeneralCrf,
  trainOnCorpus,
} from "@lagrange/recipes";
import type { Command } from "commander";
import { GENERAL_DEFAULTS, type Learner, type ModelKind } from "../define/values.js";
import { usageError } from "../exit-codes.js";
import { openData } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { givenOptions, threadCount } from "../options.js";
import { writeOutput } from "../output.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import { memoryOptions, trainingRefusal } from "../training-memory.js";
import { checkLearnerOptions, type L2sTrainOptions, trainL2sCommand } from "./train-l2s.js";

export interface TrainOptions extends Omit<L2sTrainOptions, "preset"> {
  /** `crf` (default: the chain or general CRF) or `l2s` (learning to search, `--task` required). */
  readonly learner?: Learner;
  readonly data: string;
  readonly format?: string;
  /** Required by the CRF learner; an L2S tagger's default comes from `--task`. */
  readonly preset?: string;
  readonly algorithm: string;
  readonly c1?: number;
  readonly c2?: number;
  readonly maxIterations?: number;
  readonly threads?: number;
  readonly minFreq?: number;
  readonly dev?: string;
  readonly patience?: number;
  readonly constrainedTraining?: boolean;
  readonly scheme?: string;
  readonly malformed?: "error" | "repair" | "skip";
  /** `crf` (default: the CRF likelihood), `bcrf` (corro's Fenchel–Young loss) or `mean-field`. */
  readonly objective?: string;
  /** The label column holds partial annotations: `?` unknown, `{B-PER,I-PER}` a label set. */
  readonly partial?: boolean;
  /** bcrf: IBP half-steps per loss evaluation; mean-field: unrolled updates. */
  readonly bcrfIterations?: number;
  /** Write the model even when training made no progress (0 iterations, a diverged loss). */
  readonly allowNoProgress?: boolean;
  /** `chain` (default) or `general` (qian-liu2014: chain CRF + consistency weights over groups). */
  readonly model?: ModelKind;
  /** General CRF: how sentences are grouped (tweet clusters or documents). */
  readonly groups?: string;
  /** General CRF: jackknife folds of the chain scores the perceptron learns from (default 4). */
  readonly folds?: number;
  /** General CRF: perceptron epochs (default 10). */
  readonly epochs?: number;
  /** General CRF: the decoder the perceptron decodes with (default two-slave). */
  readonly trainDecoder?: string;
  /** General CRF, tweet groups: the largest group (default 50). */
  readonly maxGroup?: number;
  /** General CRF, tweet groups: shared word types that link two tweets (default 5). */
  readonly minOverlap?: number;
  readonly out: string;
}

/** The options of CRF training, once `--preset` is known to be there. */
type CrfTrainOptions = TrainOptions & { readonly preset: string };

/** Inference steps per loss evaluation of the objectives that iterate (`--bcrf-iterations`). */
const OBJECTIVE_ITERATIONS: Readonly<Record<Exclude<TrainingObjectiveName, "crf">, number>> = {
  bcrf: BCRF_DEFAULT_ITERATIONS,
  "mean-field": MEAN_FIELD_DEFAULTS.iterations,
};

/**
 * `lagrange train`: returns the summary line; the model is written atomically. `given` holds the
 * options the command line set (defaults not counted), to refuse those of the other learner.
 */
export async function trainCommand(
  options: TrainOptions,
  signal?: AbortSignal,
  given: ReadonlySet<string> = new Set(),
): Promise<string> {
  const learner = options.learner ?? "crf";
  checkLearnerOptions(learner, options.task, given);
  if (learner === "l2s") return trainL2sCommand(options, signal);
  checkTrainOptions(options);
  const threads = options.threads === undefined ? undefined : threadCount(options.threads);
  // The perceptron's decoder before anything is read: an unknown one is a usage error now, and
  // HiGHS (exact) loads asynchronously.
  const registry = options.model === "general" ? await perceptronDecoder(options) : undefined;
  // The output first: an unwritable path, or one that is the training data, fails now, not after
  // the training.
  const inputs = [options.data, options.dev];
  return writeOutput(options.out, { option: "--out", inputs, signal }, async (output) => {
    const trained = await train(options, threads, registry, signal).catch((error: unknown) => {
      throw trainingRefusal(error);
    });
    await output.write(modelToBytes(trained.model));
    return trained.summary;
  });
}

/** `--train-decoder`: a registered decoder that takes higher-order patterns, prepared. */
async function perceptronDecoder(options: TrainOptions): Promise<DecoderRegistry> {
  const registry = standardDecoders();
  const name = options.trainDecoder ?? GENERAL_DEFAULTS.trainDecoder;
  const definition = registry.decoder(name); // an unknown name is a usage error listing the known
  if (definition.accepts.patterns !== true) {
    const fit = registry
      .decoders()
      .filter((d) => d.accepts.patterns === true)
      .map((d) => d.name);
    throw usageError(
      `--train-decoder ${name} does not decode a general CRF's higher-order patterns; choose one of ${fit.join(", ")}`,
    );
  }
  await registry.prepare(name);
  return registry;
}

async function train(
  options: CrfTrainOptions,
  threads: number | undefined,
  registry: DecoderRegistry | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const read = {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    ...(signal === undefined ? {} : { signal }),
  };
  const train = await openData("--data", options.data, read);
  if (train.report !== undefined && (train.report.skipped > 0 || train.report.repaired > 0)) {
    note(
      `${train.label}: ${train.report.skipped} malformed lines skipped, ${train.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  const scheme =
    options.scheme === undefined ? train.scheme : parseLabelScheme(options.scheme, "--scheme");
  const dev =
    options.dev === undefined
      ? undefined
      : await openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
  const limit =
    options.maxIterations ??
    (options.algorithm === "lbfgs" || options.algorithm === "owlqn" ? 200 : 10);
  const objectiveName = (options.objective ?? "crf") as TrainingObjectiveName;
  const objective = trainingObjective(
    objectiveName,
    options.bcrfIterations === undefined ? {} : { iterations: options.bcrfIterations },
  );
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
    ...(objective === undefined ? {} : { objective }),
    ...(options.partial === true ? { partialLabels: true } : {}),
    // Recorded for every objective, the likelihood included, so a model file says how it was trained.
    settings: {
      objective: objectiveName,
      ...(objectiveName === "crf"
        ? {}
        : { objectiveIterations: options.bcrfIterations ?? OBJECTIVE_ITERATIONS[objectiveName] }),
      ...(options.partial === true ? { partialLabels: true } : {}),
    },
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
  const first = result.schemeCheck.first;
  if (first !== undefined) {
    note(
      `${train.label}: ${result.schemeCheck.invalid} gold sequences are invalid under ${scheme} (trained on as they are; the first, at ${corpusLocator(train)(first.index, first.position)}: ${first.message})`,
    );
  }
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
      : `; best dev: acc ${(100 * best.tokenAccuracy).toFixed(2)}%${best.f1 === undefined ? "" : `, F1 ${(100 * best.f1).toFixed(2)}`} at iteration ${best.iteration}${excluded}`;
  return {
    model: result.model,
    summary: `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${result.stopReason}), ${result.seconds.toFixed(1)} s${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${bestText}; wrote ${options.out}\n`,
  };
}

/** The objective as the training note names it: `objective bcrf (10 IBP half-steps)`. */
function objectiveText(name: TrainingObjectiveName, iterations: number | undefined): string {
  if (name === "crf") return "objective crf (likelihood)";
  const k = iterations ?? OBJECTIVE_ITERATIONS[name];
  return `objective ${name} (${k} ${name === "bcrf" ? "IBP half-steps" : "unrolled mean-field updates"})`;
}

/** The progress bar's detail of one CRF iteration: its loss, and the dev scores when evaluated. */
function iterationDetail(p: TrainingProgress): string {
  const held =
    p.heldOut === undefined
      ? ""
      : ` dev acc ${(100 * p.heldOut.tokenAccuracy).toFixed(2)}${p.heldOut.f1 === undefined ? "" : ` F1 ${(100 * p.heldOut.f1).toFixed(2)}`}`;
  return `loss ${p.loss.toFixed(2)}${held}`;
}

/**
 * `--model general`: the chain CRF on all the data and on each jackknife fold ("crf fold k/K"),
 * then the consistency weights by averaged perceptron through `--train-decoder` (qian-liu2014).
 */
async function trainGeneral(
  options: CrfTrainOptions,
  train: Corpus,
  scheme: LabelScheme,
  limit: number,
  crf: (onProgress: TrainOnCorpusOptions["onProgress"]) => TrainOnCorpusOptions,
  registry: DecoderRegistry,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const groups = options.groups as GroupingKind;
  const folds = options.folds ?? GENERAL_DEFAULTS.folds;
  const epochs = options.epochs ?? GENERAL_DEFAULTS.epochs;
  const decoder = options.trainDecoder ?? GENERAL_DEFAULTS.trainDecoder;
  const grouping = {
    minOverlap: options.minOverlap ?? GENERAL_DEFAULTS.minOverlap,
    maxGroupSize: options.maxGroup ?? GENERAL_DEFAULTS.maxGroup,
  };
  note(
    `general CRF: ${groups} groups${groups === "tweets" ? ` (min overlap ${grouping.minOverlap}, at most ${grouping.maxGroupSize} tweets)` : ""}, ${folds === 1 ? "chain scores from the full CRF" : `${folds} jackknife folds`}, ${epochs} perceptron epochs decoded by ${decoder}`,
  );
  // One CRF on all the data, then one per fold (none when folds = 1: the full CRF scores).
  const trainings = folds === 1 ? 1 : folds + 1;
  let trained = 0;
  const crfStep = () => (trained === 0 ? "crf on all data" : `crf fold ${trained}/${folds}`);
  let crfBar: Progress | undefined = progressBar("crf", trainings * limit);
  let perceptronBar: Progress | undefined;
  const stopBars = () => {
    crfBar?.stop();
    crfBar = undefined;
    perceptronBar?.stop();
    perceptronBar = undefined;
  };
  let result: TrainedGeneralCrf;
  try {
    result = await trainGeneralCrf(train, {
      crf: crf((p) =>
        crfBar?.update(
          trained * limit + Math.min(p.iteration, limit),
          `${crfStep()}: ${iterationDetail(p)}`,
        ),
      ),
      settings: {
        groups,
        ...(groups === "tweets" ? { grouping } : {}),
      },
      folds,
      decoder,
      registry,
      epochs,
      onProgress: (p) => {
        if (p.stage === "crf") {
          trained = Math.min(p.fold + 1, trainings);
          crfBar?.update(trained * limit, trained < trainings ? `${crfStep()}` : "done");
          return;
        }
        if (crfBar !== undefined) {
          crfBar.stop();
          crfBar = undefined;
        }
        perceptronBar ??= progressBar("perceptron", p.epochs * p.groups);
        perceptronBar.update(
          (p.epoch - 1) * p.groups + p.done,
          `epoch ${p.epoch}/${p.epochs}, ${p.mistakes} mistaken positions`,
        );
      },
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    stopBars();
  }
  const { groupStats, training } = result;
  note(
    `groups: ${groupStats.groups} (${groupStats.linked} of two or more sentences, ${groupStats.withFactors} with consistency factors)`,
  );
  if (groupStats.withFactors === 0) {
    warn(
      `no ${groups === "tweets" ? "tweet cluster" : "document"} has a repeated phrase to link: the consistency weights stay 0 and the general CRF decodes as the chain CRF${groups === "tweets" ? " (a smaller --min-overlap links more tweets)" : ""}`,
    );
  }
  const names = featureNames(result.model, result.consistency.weights.length);
  note(
    `consistency weights: ${Array.from(result.consistency.weights, (w, f) => `${names[f]} ${w.toFixed(3)}`).join(", ")}`,
  );
  const rate = training.decodings === 0 ? 1 : training.certified / training.decodings;
  note(
    `perceptron (${decoder}): mistaken positions per epoch ${training.mistakes.join(", ") || "none"}; ${training.certified} of ${training.decodings} decodings certified (${(100 * rate).toFixed(1)}%)`,
  );
  return {
    model: result.model,
    summary: `trained a general CRF: ${result.model.summary().weights} chain weights, ${result.model.numLabels} labels, ${result.consistency.weights.length} consistency weights; chain CRFs ${(result.crfMs / 1000).toFixed(1)} s, perceptron ${(result.perceptronMs / 1000).toFixed(1)} s; scheme ${scheme}; wrote ${options.out}\n`,
  };
}

/**
 * The names of the consistency features, as the model file records them (the mincut package's
 * `consistencyFeatureNames()`, written by `withGeneralCrf`); `w<k>` where a file lacks them.
 */
function featureNames(model: CrfModel, count: number): string[] {
  const stored = model.settings.generalCrf as { readonly featureNames?: JsonValue } | undefined;
  const names = typeof stored === "object" && stored !== null ? stored.featureNames : undefined;
  return Array.from({ length: count }, (_, f) => {
    const name = Array.isArray(names) ? names[f] : undefined;
    return typeof name === "string" ? name : `w${f}`;
  });
}

/** Options that would be ignored are said so (the run goes on); impossible ones stop it. */
function checkTrainOptions(options: TrainOptions): asserts options is CrfTrainOptions {
  if (options.preset === undefined) {
    throw usageError(
      "--preset is required with the CRF learner: chunking, ner, ner-words, citation or pos (--learner l2s --task pos|ner picks one itself)",
    );
  }
  getPreset(options.preset); // an unknown name is a usage error before anything is read
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  const { algorithm } = options;
  const quasiNewton = algorithm === "lbfgs" || algorithm === "owlqn";
  checkObjectiveOptions(options);
  if (options.c1 !== undefined && !quasiNewton) {
    warn(
      `--c1 is used by --algorithm lbfgs and owlqn (L1 by OWL-QN) only; ignored with ${algorithm}`,
    );
  }
  if (algorithm === "sgd" && options.c2 === 0) {
    throw usageError(
      "--c2 0 with --algorithm sgd: its step size 1/(λ(t0+t)), λ = 2·c2/N, needs c2 > 0",
    );
  }
  if (options.c2 !== undefined && algorithm === "ap") {
    warn("--c2 is not used by the averaged perceptron (ap); ignored");
  }
  if (options.threads !== undefined && !quasiNewton) {
    warn(`--threads parallelises the L-BFGS objective only; ignored with ${algorithm}`);
  }
  if (options.patience !== undefined && options.dev === undefined) {
    warn("--patience needs --dev (early stopping watches held-out data); ignored");
  }
  checkGeneralOptions(options);
}

/**
 * `--objective`, `--partial`, `--bcrf-iterations`: the perceptron minimises no loss, mean field
 * and the general CRF's perceptron need every label, and only bcrf and mean-field iterate.
 */
function checkObjectiveOptions(options: TrainOptions): void {
  const objective = options.objective ?? "crf";
  if (!(TRAINING_OBJECTIVES as readonly string[]).includes(objective)) {
    throw usageError(
      `--objective ${objective}: unknown training objective; expected one of ${TRAINING_OBJECTIVES.join(", ")}`,
    );
  }
  if (objective !== "crf" && options.algorithm === "ap") {
    throw usageError(
      `--objective ${objective} is a loss to minimise; the averaged perceptron (--algorithm ap) minimises none: use lbfgs, owlqn or sgd`,
    );
  }
  if (objective === "mean-field" && options.constrainedTraining === true) {
    throw usageError(
      "--constrained-training with --objective mean-field: mean field cannot represent the forbidden (−∞) transitions the mask puts in training; use --objective crf or bcrf, or drop --constrained-training",
    );
  }
  if (options.partial === true) {
    if (objective === "mean-field") {
      throw usageError(
        "--partial with --objective mean-field: mean field's unrolled cross-entropy needs every gold label, so it cannot train on partial labels; use --objective crf or bcrf",
      );
    }
    if (options.algorithm === "ap") {
      throw usageError(
        "--partial with --algorithm ap: the averaged perceptron updates towards one full labelling, so it cannot train on partial labels; use lbfgs, owlqn or sgd",
      );
    }
    if (options.model === "general") {
      throw usageError(
        "--partial with --model general: the consistency perceptron needs every gold label; partial labels train chain models only",
      );
    }
  }
  if (options.bcrfIterations !== undefined && objective === "crf") {
    warn(
      "--bcrf-iterations sets the inference steps of --objective bcrf and mean-field; the CRF likelihood is exact, so it is ignored",
    );
  }
}

/** `--model general` needs `--groups`; its options mean nothing to a chain CRF. */
function checkGeneralOptions(options: TrainOptions): void {
  const general: [string, unknown][] = [
    ["--folds", options.folds],
    ["--epochs", options.epochs],
    ["--train-decoder", options.trainDecoder],
    ["--max-group", options.maxGroup],
    ["--min-overlap", options.minOverlap],
  ];
  if (options.model !== "general") {
    if (options.groups !== undefined) {
      throw usageError(
        `--groups ${options.groups} groups sentences for a general CRF: add --model general (a chain CRF has no groups)`,
      );
    }
    const given = general.filter(([, value]) => value !== undefined).map(([name]) => name);
    if (given.length > 0) {
      warn(`${given.join(", ")}: for --model general only; ignored with a chain CRF`);
    }
    return;
  }
  if (options.groups === undefined) {
    throw usageError(
      `--model general needs --groups ${GROUPING_KINDS.join(" or ")}: the sentences the consistency factors link (tweet clusters, or the data's documents)`,
    );
  }
  if (options.groups === "documents") {
    const given = general
      .slice(3)
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name);
    if (given.length > 0) {
      warn(`${given.join(", ")}: tweet clustering only; ignored with --groups documents`);
    }
  }
}

/** What `lagrange train` does (its options are declared in ../define/train.ts). */
export async function trainAction(opts: TrainOptions, command: Command): Promise<void> {
  const given = givenOptions(command);
  process.stdout.write(await interruptible((signal) => trainCommand(opts, signal, given)));
}
