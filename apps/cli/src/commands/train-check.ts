import { TRAINING_OBJECTIVES } from "@lagrange/bcrf";
import { parseLabelScheme } from "@lagrange/datasets";
import { checkPresetName, GROUPING_KINDS, isTaskPreset } from "@lagrange/recipes";
import { splitLexiconArgument } from "../define/files.js";
import { TRAIN_FLAG_SCOPES, type TrainCondition, type TrainPath } from "../define/train-values.js";
import { usageError } from "../exit-codes.js";
import { warn } from "../progress.js";
import type { CrfTrainOptions, TrainOptions } from "./train.js";

/** The path a run takes, as {@link TRAIN_FLAG_SCOPES} tells flags apart. */
export function trainPath(options: TrainOptions, given: ReadonlySet<string>): TrainPath {
  return {
    learner: options.learner ?? "crf",
    algorithm: options.algorithm,
    objective: options.objective ?? "crf",
    order: options.order ?? "1",
    model: options.model ?? "chain",
    groups: options.groups ?? "none",
    task: options.task ?? "none",
    twoStage: options.twoStage === true,
    dev: given.has("--dev"),
    taskPreset: options.preset !== undefined && isTaskPreset(options.preset),
  };
}

/**
 * Every flag given (`given`: by the command line, defaults not counted) that the chosen path does
 * not read, by {@link TRAIN_FLAG_SCOPES}: a usage error naming each flag and the path, or a
 * warning for the flags whose table entry says so. Runs after the paths' own checks, whose
 * messages say more (`--groups` without `--model general`, CRF options with `--learner l2s`).
 */
export function checkFlagScopes(options: TrainOptions, given: ReadonlySet<string>): void {
  const path = trainPath(options, given);
  const refused: string[] = [];
  for (const [flag, scope] of Object.entries(TRAIN_FLAG_SCOPES)) {
    if (!given.has(flag) || scope.where.length === 0) continue;
    if (scope.where.some((condition) => holds(condition, path))) continue;
    const where = describeWhere(scope.where);
    const actual = describePath(scope.where, path);
    if (scope.elsewhere === "warn") warn(`${flag} ${where}; ignored ${actual}`);
    else refused.push(`${flag} ${where}, so it does nothing ${actual}`);
  }
  if (refused.length > 0) {
    throw usageError(`${refused.join("; ")}: drop ${refused.length === 1 ? "it" : "them"}`);
  }
}

type Dimension = keyof TrainPath;

function holds(condition: TrainCondition, path: TrainPath): boolean {
  return (Object.keys(condition) as Dimension[]).every((d) => meets(condition, d, path));
}

function meets(condition: TrainCondition, d: Dimension, path: TrainPath): boolean {
  const wanted = condition[d];
  const value = path[d];
  return typeof value === "boolean" ? value : (wanted as readonly string[]).includes(value);
}

/** How a condition's dimensions are said: the flag that sets each. */
const FLAG_OF: Readonly<Record<Dimension, string>> = {
  learner: "--learner",
  algorithm: "--algorithm",
  objective: "--objective",
  order: "--order",
  model: "--model",
  groups: "--groups",
  task: "--task",
  twoStage: "--two-stage",
  dev: "--dev",
  taskPreset: "a task preset",
};

/** The dimensions of a condition worth saying: the learner only when it is all there is. */
function said(condition: TrainCondition): Dimension[] {
  const all = Object.keys(condition) as Dimension[];
  return all.length > 1 ? all.filter((d) => d !== "learner") : all;
}

/** "applies to --algorithm lbfgs/owlqn only", "needs --dev". */
function describeWhere(where: readonly TrainCondition[]): string {
  const text = where
    .map((condition) =>
      said(condition)
        .map((d) => {
          const values = condition[d];
          return Array.isArray(values) ? `${FLAG_OF[d]} ${values.join("/")}` : FLAG_OF[d];
        })
        .join(" with "),
    )
    .join(" or ");
  const onlyFlags = where.every((c) => said(c).every((d) => typeof c[d] === "boolean"));
  return onlyFlags ? `needs ${text}` : `applies to ${text} only`;
}

/** What the path is on the dimensions that rule the flag out: "with ap", "without --dev". */
function describePath(where: readonly TrainCondition[], path: TrainPath): string {
  const missed = new Set<Dimension>();
  for (const condition of where) {
    for (const d of said(condition)) if (!meets(condition, d, path)) missed.add(d);
  }
  return [...missed]
    .map((d) => {
      const value = path[d];
      if (typeof value === "boolean") return `${value ? "with" : "without"} ${FLAG_OF[d]}`;
      if (d === "algorithm") return `with ${value}`;
      if (d === "model" && value === "chain") return "with a chain CRF";
      if (value === "none") return `without ${FLAG_OF[d]}`;
      return `with ${FLAG_OF[d]} ${value}`;
    })
    .join(" ");
}

/**
 * Impossible combinations stop the run; flags the chosen path does not read are
 * {@link checkFlagScopes}'s.
 */
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
  if (options.preset !== undefined) checkPresetName(options.preset);
  for (const entry of options.lexicon ?? []) lexiconArgument(entry);
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  checkObjectiveOptions(options);
  if (options.algorithm === "sgd" && options.c2 === 0) {
    throw usageError(
      "--c2 0 with --algorithm sgd: its step size 1/(λ(t0+t)), λ = 2·c2/N, needs c2 > 0",
    );
  }
  checkGeneralOptions(options);
  checkOrderOptions(options);
}

/** `--order 2`: what second-order training runs with (one thread, the likelihood, a chain). */
function checkOrderOptions(options: TrainOptions): void {
  if (options.order !== "2") return;
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
  if (options.model !== "general") {
    if (options.groups !== undefined) {
      throw usageError(
        `--groups ${options.groups} groups sentences for a general CRF: add --model general (a chain CRF has no groups)`,
      );
    }
    return;
  }
  if (options.groups === undefined) {
    throw usageError(
      `--model general needs --groups ${GROUPING_KINDS.join(" or ")}: the sentences the consistency factors link (tweet clusters, or the data's documents)`,
    );
  }
}

/** `--lexicon NAME=FILE` split into its name and file. */
export function lexiconArgument(entry: string): { name: string; file: string } {
  const split = splitLexiconArgument(entry);
  if (split === undefined || !/^[A-Za-z0-9_.-]+$/.test(split.name)) {
    throw usageError(
      `--lexicon ${entry}: expected NAME=FILE, NAME of letters, digits, _ . - (it names the lexicon's attributes)`,
    );
  }
  return split;
}
