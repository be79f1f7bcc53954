import { TRAINING_OBJECTIVES } from "@lagrange/bcrf";
import { getPreset } from "@lagrange/chain-crf";
import { parseLabelScheme } from "@lagrange/datasets";
import { GROUPING_KINDS, isTaskPreset } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { warn } from "../progress.js";
import type { CrfTrainOptions, TrainOptions } from "./train.js";

/** Options that would be ignored are said so (the run goes on); impossible ones stop it. */
export function checkTrainOptions(options: TrainOptions): asserts options is CrfTrainOptions {
  if (
    options.preset === undefined &&
    options.template === undefined &&
    options.init === undefined
  ) {
    throw usageError(
      "--preset or --template is required with the CRF learner: a feature preset (chunking, ner, ner-words, citation, pos), a task preset (ner-en, ner-es, ner-nl, ner-tweets, pos-en) or a CRF++ template file (--learner l2s --task pos|ner picks one itself)",
    );
  }
  if (options.preset !== undefined && options.template !== undefined) {
    throw usageError("--preset and --template both name the features: give one");
  }
  // An unknown name is a usage error before anything is read.
  if (options.preset !== undefined && !isTaskPreset(options.preset)) getPreset(options.preset);
  for (const entry of options.lexicon ?? []) lexiconArgument(entry);
  if (
    options.resources !== undefined &&
    (options.preset === undefined || !isTaskPreset(options.preset))
  ) {
    warn(
      "--resources is read by the task presets (ner-en, ner-es, ner-nl, ner-tweets, pos-en); ignored",
    );
  }
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
  checkOrderOptions(options);
}

/** `--order 2`: what second-order training runs with (one thread, the likelihood, a chain). */
function checkOrderOptions(options: TrainOptions): void {
  if (options.order !== "2") {
    if (options.trigrams === "all") warn("--trigrams is read with --order 2 only; ignored");
    return;
  }
  const refused = [
    options.algorithm !== "lbfgs" && options.algorithm !== "owlqn"
      ? `--algorithm ${options.algorithm}`
      : "",
    (options.objective ?? "crf") !== "crf" ? `--objective ${options.objective}` : "",
    options.model === "general" ? "--model general" : "",
    options.twoStage === true ? "--two-stage" : "",
    options.partial === true ? "--partial" : "",
    options.constrainedTraining === true ? "--constrained-training" : "",
  ].filter((flag) => flag !== "");
  if (refused.length > 0) {
    throw usageError(
      `--order 2 with ${refused.join(", ")}: second-order training is the likelihood of a chain CRF on fully labelled data, trained by lbfgs or owlqn`,
    );
  }
  if (options.threads !== undefined && options.threads > 1) {
    warn("--threads: second-order training runs on one thread; ignored");
  }
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
  if (options.twoStage === true) {
    if (options.model === "general") {
      throw usageError(
        "--two-stage trains a chain CRF on its first stage's votes; --model general is the other non-local model (consistency factors decoded by dual decomposition): choose one",
      );
    }
    if (options.partial === true) {
      throw usageError(
        "--two-stage with --partial: the first stage's votes need its full labellings of unseen folds; train two-stage models on fully labelled data",
      );
    }
    if (options.folds !== undefined && options.folds < 2) {
      throw usageError(
        `--folds ${options.folds}: --two-stage jackknifes its first stage over at least 2 folds`,
      );
    }
  }
  const general: [string, unknown][] = [
    ...(options.twoStage === true ? [] : [["--folds", options.folds] as [string, unknown]]),
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
      warn(
        `${given.join(", ")}: for --model general${given.includes("--folds") ? " or --two-stage" : ""} only; ignored with a chain CRF`,
      );
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

/** `--lexicon NAME=FILE` split into its name and file. */
export function lexiconArgument(entry: string): { name: string; file: string } {
  const at = entry.indexOf("=");
  const name = entry.slice(0, at);
  if (at <= 0 || at === entry.length - 1 || !/^[A-Za-z0-9_.-]+$/.test(name)) {
    throw usageError(
      `--lexicon ${entry}: expected NAME=FILE, NAME of letters, digits, _ . - (it names the lexicon's attributes)`,
    );
  }
  return { name, file: entry.slice(at + 1) };
}
