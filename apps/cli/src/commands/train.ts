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
  TRAINING_ALGORITHMS,
  type TrainingAlgorithm,
  type TrainingProgress,
} from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import { type LabelScheme, parseLabelScheme } from "@lagrange/datasets";
import { type Corpus, corpusLocator } from "@lagrange/datasets/node";
import {
  GENERAL_CRF_DEFAULTS,
  GROUPING_KINDS,
  type GroupingKind,
  standardDecoders,
  type TrainedGeneralCrf,
  type TrainOnCorpusOptions,
  TWEET_GROUP_DEFAULTS,
  trainGeneralCrf,
  trainOnCorpus,
} from "@lagrange/recipes";
import { type Command, Option } from "commander";
import { usageError } from "../exit-codes.js";
import { openData } from "../inputs.js";
import { interruptible } from "../interruption.js";
import {
  givenOptions,
  malformedOption,
  parseInteger,
  parseNonNegative,
  parsePositive,
  threadCount,
} from "../options.js";
import { writeOutput } from "../output.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import {
  BASE_LEARNERS,
  checkLearnerOptions,
  L2S_TASKS,
  type L2sTrainOptions,
  LEARNERS,
  type Learner,
  parseBits,
  parsePasses,
  parseSeed,
  ROLL_INS,
  ROLL_OUTS,
  trainL2sCommand,
} from "./train-l2s.js";

/** `--model`: a linear-chain CRF, or qian-liu2014's general CRF (chain + consistency factors). */
export const MODEL_KINDS = ["chain", "general"] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

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

/** The general CRF's defaults (the recipes' own), shown by `--help` and in messages. */
const GENERAL_DEFAULTS = {
  folds: GENERAL_CRF_DEFAULTS.folds,
  epochs: GENERAL_CRF_DEFAULTS.epochs,
  trainDecoder: GENERAL_CRF_DEFAULTS.decoder,
  maxGroup: TWEET_GROUP_DEFAULTS.maxGroupSize,
  minOverlap: TWEET_GROUP_DEFAULTS.minOverlap,
} as const;

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
  return writeOutput(options.out, { option: "--out", inputs }, async (output) => {
    const trained = await train(options, threads, registry, signal);
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

export function registerTrain(program: Command): void {
  program
    .command("train")
    .description(
      "Train a linear-chain CRF (or, with --model general, qian-liu2014's general CRF: the chain plus consistency factors over groups of sentences) and write a model file. --objective bcrf or mean-field trains the same features under corro's Bregman CRF loss or mean field's; --partial reads ? (unknown) and {B-PER,I-PER} (label set) cells in the gold column as partial annotations. --learner l2s trains by learning to search (chang2016) instead: --task pos or ner, a left-to-right tagger (lagrange tag tags with it), or --task parser, an arc-hybrid dependency parser on CoNLL-U (lagrange parse parses with it); the CRF's options (--algorithm, --c2, --objective, --threads, …) do not apply to it, nor its options (--passes, --roll-in, …) to the CRF",
    )
    .requiredOption(
      "--data <spec>",
      "training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline (default from the extension)",
    )
    .addOption(
      new Option(
        "--learner <name>",
        "crf: a CRF trained by the options below (--algorithm, --objective, --model, …); l2s: learning to search (chang2016), with --task and the L2S options",
      )
        .choices([...LEARNERS])
        .default("crf"),
    )
    .option(
      "--preset <name>",
      "feature preset: chunking, ner, ner-words, citation, pos (required with --learner crf; --learner l2s: default pos for --task pos, ner for --task ner — ner-words when the data has only words)",
    )
    .addOption(
      new Option("--algorithm <name>", "trainer")
        .choices([...TRAINING_ALGORITHMS])
        .default("lbfgs"),
    )
    .option(
      "--c1 <x>",
      "L1 coefficient c1·‖w‖₁ (lbfgs, owlqn: optimised by OWL-QN; default 1 for owlqn, else 0)",
      parseNonNegative,
    )
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNonNegative)
    .option("--max-iterations <n>", "iterations (L-BFGS) or epochs (perceptron, SGD)", parseInteger)
    .option(
      "--threads <n>",
      "worker threads for the L-BFGS objective (at most the number of cores)",
      parseInteger,
    )
    .option("--min-freq <n>", "keep attributes seen at least n times", parseInteger)
    .option(
      "--dev <spec>",
      "held-out data evaluated during training (registry name[:split] or path)",
    )
    .option("--patience <n>", "early stopping: evaluations without dev improvement", parseInteger)
    .addOption(
      new Option(
        "--objective <name>",
        "the loss minimised on the CRF's features: crf (the likelihood), bcrf (corro's Bregman CRF: the Fenchel–Young loss of parallel Bregman projections), mean-field (unrolled naive mean field, the paper's baseline); the model file records it, and any decoder tags with the model",
      )
        .choices([...TRAINING_OBJECTIVES])
        .default("crf"),
    )
    .option(
      "--bcrf-iterations <k>",
      `--objective bcrf: IBP half-steps per loss evaluation (default ${BCRF_DEFAULT_ITERATIONS}); mean-field: unrolled updates (default ${MEAN_FIELD_DEFAULTS.iterations})`,
      parseInteger,
    )
    .option(
      "--partial",
      "the gold label column holds partial annotations: ? an unknown label, {B-PER,I-PER} a set of allowed labels (labels a set names join the model's); training marginalises over the labellings they allow (objectives crf and bcrf; not mean-field, not --algorithm ap); partially annotated --dev sentences are left out of the dev scores. Without it such a cell is an error at its file:line",
    )
    .option(
      "--constrained-training",
      "train under the scheme's transition mask (likelihood over valid labellings only)",
    )
    .option(
      "--scheme <name>",
      "label scheme for decoding and evaluation: IOB2, IOB1, IOE1, IOE2, BIOES, BILOU, hierarchical-BIO, none (default: the data's — the registry's, UMass ⇒ hierarchical-BIO, or read off the labels)",
    )
    .addOption(malformedOption())
    .addOption(
      new Option(
        "--model <kind>",
        "chain: a linear-chain CRF; general: the chain CRF plus consistency weights linking repeated phrases across a group of sentences (qian-liu2014; tag it with --decoder two-slave, naive-dd or exact)",
      )
        .choices([...MODEL_KINDS])
        .default("chain"),
    )
    .addOption(
      new Option(
        "--groups <kind>",
        "--model general (required there): tweets (clusters of tweets sharing words) or documents (the data's documents)",
      ).choices([...GROUPING_KINDS]),
    )
    .option(
      "--folds <n>",
      `--model general: jackknife folds; the perceptron learns from chain scores of CRFs that did not see the group (1 = the full CRF's; default ${GENERAL_DEFAULTS.folds})`,
      parseInteger,
    )
    .option(
      "--epochs <n>",
      `--model general: perceptron epochs over the groups (default ${GENERAL_DEFAULTS.epochs})`,
      parseInteger,
    )
    .option(
      "--train-decoder <name>",
      `--model general: the decoder the perceptron decodes groups with: two-slave, naive-dd or exact (default ${GENERAL_DEFAULTS.trainDecoder})`,
    )
    .option(
      "--max-group <n>",
      `--groups tweets: the largest tweet cluster (default ${GENERAL_DEFAULTS.maxGroup})`,
      parseInteger,
    )
    .option(
      "--min-overlap <n>",
      `--groups tweets: word types two tweets share to be linked (default ${GENERAL_DEFAULTS.minOverlap})`,
      parseInteger,
    )
    .option(
      "--allow-no-progress",
      "write the model even when training made no progress (0 iterations or a diverged loss); by default that is an error (exit 1)",
    )
    .addOption(
      new Option(
        "--task <task>",
        "--learner l2s (required there): pos (plain tags, e.g. UD UPOS of CoNLL-U or a CoNLL label column), ner (entities under the data's scheme, or --scheme; the constraint bridge keeps every prediction valid), parser (arc-hybrid dependency parser on CoNLL-U: HEAD and DEPREL)",
      ).choices([...L2S_TASKS]),
    )
    .option(
      "--passes <n>",
      "--learner l2s: passes over the training data (an integer), or a rate in (0, 1): one pass learning from that share of the decisions (default 1)",
      parsePasses,
    )
    .addOption(
      new Option(
        "--roll-in <policy>",
        "--learner l2s: who decides before a learned decision: reference (the gold, as SEARN's first step), learned (the policy itself, LOLS), mixture (DAgger) (default learned; reference for --oracle static)",
      ).choices([...ROLL_INS]),
    )
    .addOption(
      new Option(
        "--roll-out <policy>",
        "--learner l2s: who completes the output after a deviation, to cost it: reference, learned, mixture, or none (default: the task's own one-step costs — Hamming for the taggers, the dynamic oracle's exact costs-to-go for the parser)",
      ).choices([...ROLL_OUTS]),
    )
    .addOption(
      new Option(
        "--base-learner <name>",
        "--learner l2s: the cost-sensitive classifier the policy is: csoaa (VW's one-against-all regression, AdaGrad; default for --task pos and ner) or perceptron (the cost-sensitive averaged perceptron; default for --task parser)",
      ).choices([...BASE_LEARNERS]),
    )
    .option(
      "--bits <b>",
      "--learner l2s: log2 of the hashed weight table (VW's -b; default 20 for csoaa, 22 for perceptron)",
      parseBits,
    )
    .option(
      "--learning-rate <eta>",
      "--learner l2s, --base-learner csoaa: the learning rate (VW's -l; default 0.5); the perceptron has none",
      parsePositive,
    )
    .option(
      "--seed <s>",
      "--learner l2s: seeds the shuffles, subsampling and mixtures; a seed reproduces a run (default 1)",
      parseSeed,
    )
    .option(
      "--no-bridge",
      "--learner l2s --task ner: let the tagger leave the scheme (by default the constraint bridge allows only labels valid after the previous one, in training and tagging)",
    )
    .addOption(
      new Option(
        "--oracle <kind>",
        "--task parser: dynamic (exact costs of every transition from any configuration; default) or static (imitates the gold transition sequence, with a reference roll-in)",
      ).choices(["dynamic", "static"]),
    )
    .option("--unlabelled", "--task parser: predict heads only (no DEPREL; UAS only)")
    .addOption(
      new Option(
        "--tag-field <field>",
        "--task parser: the CoNLL-U POS field the parser reads (default UPOS)",
      ).choices(["UPOS", "XPOS"]),
    )
    .requiredOption(
      "--out <model>",
      "model file to write (atomically; checked before training; never one of the inputs)",
    )
    .action(async (opts: TrainOptions, command: Command) => {
      const given = givenOptions(command);
      process.stdout.write(await interruptible((signal) => trainCommand(opts, signal, given)));
    });
}
