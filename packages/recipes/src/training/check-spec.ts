import { TRAINING_OBJECTIVES } from "@lagrange/bcrf";
import { LagrangeError } from "@lagrange/core";
import { BASE_LEARNERS } from "@lagrange/l2s";
import { GROUPING_KINDS } from "../general-crf-settings.js";
import { defaultBaseLearner, L2S_TASKS, type L2sTrainingSpec, type TrainingSpec } from "./spec.js";

const usage = (message: string) => new LagrangeError("usage", message);

/**
 * Refuses a spec that cannot train, before anything is read: values out of range, combinations
 * no trainer runs (second order with a perceptron, partial labels with mean field, …). The
 * messages name `lagrange train`'s flags, which set the spec's fields one to one.
 */
export function checkTrainingSpec(spec: TrainingSpec | L2sTrainingSpec): void {
  if ("learner" in spec) checkL2sSpec(spec);
  else {
    checkObjective(spec);
    if (spec.algorithm === "sgd" && spec.c2 === 0) {
      throw usage(
        "--c2 0 with --algorithm sgd: its step size 1/(λ(t0+t)), λ = 2·c2/N, needs c2 > 0",
      );
    }
    checkModelKind(spec);
    checkOrder(spec);
  }
}

/** Second-order training: one thread, the likelihood, a chain. */
function checkOrder(spec: TrainingSpec): void {
  if (spec.order !== 2) return;
  const refused = [
    spec.algorithm !== "lbfgs" && spec.algorithm !== "owlqn" ? `--algorithm ${spec.algorithm}` : "",
    (spec.objective ?? "crf") !== "crf" ? `--objective ${spec.objective}` : "",
    spec.model === "general" ? "--model general" : "",
    spec.twoStage === true ? "--two-stage" : "",
    spec.partialLabels === true ? "--partial" : "",
    spec.constrainedTraining === true ? "--constrained-training" : "",
  ].filter((flag) => flag !== "");
  if (refused.length > 0) {
    throw usage(
      `--order 2 with ${refused.join(", ")}: second-order training is the likelihood of a chain CRF on fully labelled data, trained by lbfgs or owlqn`,
    );
  }
}

/**
 * The perceptron minimises no loss, mean field and the general CRF's perceptron need every label,
 * and only bcrf and mean-field iterate.
 */
function checkObjective(spec: TrainingSpec): void {
  const objective = spec.objective ?? "crf";
  if (!(TRAINING_OBJECTIVES as readonly string[]).includes(objective)) {
    throw usage(
      `--objective ${objective}: unknown training objective; expected one of ${TRAINING_OBJECTIVES.join(", ")}`,
    );
  }
  if (objective !== "crf" && spec.algorithm === "ap") {
    throw usage(
      `--objective ${objective} is a loss to minimise; the averaged perceptron (--algorithm ap) minimises none: use lbfgs, owlqn or sgd`,
    );
  }
  if (objective === "mean-field" && spec.constrainedTraining === true) {
    throw usage(
      "--constrained-training with --objective mean-field: mean field cannot represent the forbidden (−∞) transitions the mask puts in training; use --objective crf or bcrf, or drop --constrained-training",
    );
  }
  if (spec.partialLabels !== true) return;
  if (objective === "mean-field") {
    throw usage(
      "--partial with --objective mean-field: mean field's unrolled cross-entropy needs every gold label, so it cannot train on partial labels; use --objective crf or bcrf",
    );
  }
  if (spec.algorithm === "ap") {
    throw usage(
      "--partial with --algorithm ap: the averaged perceptron updates towards one full labelling, so it cannot train on partial labels; use lbfgs, owlqn or sgd",
    );
  }
  if (spec.model === "general") {
    throw usage(
      "--partial with --model general: the consistency perceptron needs every gold label; partial labels train chain models only",
    );
  }
}

/** Two stages and the general CRF exclude each other; only the general CRF has groups. */
function checkModelKind(spec: TrainingSpec): void {
  if (spec.twoStage === true) {
    if (spec.model === "general") {
      throw usage(
        "--two-stage trains a chain CRF on its first stage's votes; --model general is the other non-local model (consistency factors decoded by dual decomposition): choose one",
      );
    }
    if (spec.partialLabels === true) {
      throw usage(
        "--two-stage with --partial: the first stage's votes need its full labellings of unseen folds; train two-stage models on fully labelled data",
      );
    }
    if (spec.folds !== undefined && spec.folds < 2) {
      throw usage(
        `--folds ${spec.folds}: --two-stage jackknifes its first stage over at least 2 folds`,
      );
    }
  }
  if (spec.model !== "general") {
    if (spec.groups !== undefined) {
      throw usage(
        `--groups ${spec.groups} groups sentences for a general CRF: add --model general (a chain CRF has no groups)`,
      );
    }
  } else if (spec.groups === undefined) {
    throw usage(
      `--model general needs --groups ${GROUPING_KINDS.join(" or ")}: the sentences the consistency factors link (tweet clusters, or the data's documents)`,
    );
  }
}

/** The task and base learner are known names; the perceptron has no rate, the parser no labels. */
function checkL2sSpec(spec: L2sTrainingSpec): void {
  if (!(L2S_TASKS as readonly string[]).includes(spec.task)) {
    throw usage(`--task ${spec.task}: expected one of ${L2S_TASKS.join(", ")}`);
  }
  const base = spec.baseLearner ?? defaultBaseLearner(spec.task);
  if (!(BASE_LEARNERS as readonly string[]).includes(base)) {
    throw usage(`--base-learner ${base}: expected one of ${BASE_LEARNERS.join(", ")}`);
  }
  if (base === "perceptron" && spec.learningRate !== undefined) {
    throw usage(
      `--learning-rate with the perceptron base learner${spec.baseLearner === undefined ? ` (--task ${spec.task}'s default)` : ""}: the perceptron has no learning rate; it is csoaa's (--base-learner csoaa)`,
    );
  }
  if (spec.task === "parser" && (spec.classWeights ?? []).length > 0) {
    throw usage(
      "--class-weight with --task parser: its transitions are no gold labels to weigh; use it with --task pos or ner, or the CRF",
    );
  }
}
