import { parseLabelScheme } from "@lagrange/datasets";
import { BASE_LEARNERS } from "@lagrange/l2s";
import { checkPresetName, l2sActionSpaces } from "@lagrange/recipes";
import { L2S_TASKS, type L2sTask } from "../define/train-values.js";
import { usageError } from "../exit-codes.js";
import { writeOutput } from "../output.js";
import { checkL2sTrainingMemory } from "../training-memory.js";
import { subsetSettings, type TrainingDataOptions } from "./train-common.js";
import { trainParser } from "./train-l2s-parser.js";
import { type BaseLearner, defaultBaseLearner, searchSettings } from "./train-l2s-search.js";
import { trainTagger } from "./train-l2s-tagger.js";
import { checkedL2sModelBytes } from "./train-output.js";

/** What `lagrange train --learner l2s` reads of its options. */
export interface L2sTrainOptions extends TrainingDataOptions {
  readonly preset?: string;
  readonly scheme?: string;
  readonly task?: string;
  /** Passes (an integer ≥ 1), or a rate in (0, 1): one pass learning from that share of decisions. */
  readonly passes?: number;
  readonly rollIn?: string;
  readonly rollOut?: string;
  /** `csoaa` (VW's cost-sensitive one-against-all regression) or `perceptron` (averaged). */
  readonly baseLearner?: string;
  /** log2 of the hashed weight table (VW's -b). */
  readonly bits?: number;
  /** `--max-memory`: bytes training may take (null: no bound; absent: the default bound). */
  readonly maxMemory?: number | null;
  readonly learningRate?: number;
  readonly seed?: number;
  /** `--no-bridge` sets false: the NER tagger may leave its scheme. */
  readonly bridge?: boolean;
  readonly oracle?: string;
  /** Parser: heads only (no relations). */
  readonly unlabelled?: boolean;
  readonly tagField?: string;
  /** `--class-weight`: LABEL=w or balanced[:POWER] (both learners; not the parser). */
  readonly classWeight?: readonly string[];
  readonly out: string;
}

/** `lagrange train --learner l2s`: returns the summary line; the model is written atomically. */
export async function trainL2sCommand(
  options: L2sTrainOptions,
  signal?: AbortSignal,
): Promise<string> {
  const task = options.task as L2sTask;
  if (!(L2S_TASKS as readonly string[]).includes(task)) {
    throw usageError(`--task ${options.task}: expected one of ${L2S_TASKS.join(", ")}`);
  }
  const base = (options.baseLearner ?? defaultBaseLearner(task)) as BaseLearner;
  if (!(BASE_LEARNERS as readonly string[]).includes(base)) {
    throw usageError(`--base-learner ${base}: expected one of ${BASE_LEARNERS.join(", ")}`);
  }
  if (base === "perceptron" && options.learningRate !== undefined) {
    throw usageError(
      `--learning-rate with the perceptron base learner${options.baseLearner === undefined ? ` (--task ${task}'s default)` : ""}: the perceptron has no learning rate; it is csoaa's (--base-learner csoaa)`,
    );
  }
  checkL2sTrainingMemory(
    searchSettings(options, task).learner,
    l2sActionSpaces(task === "parser" ? "parser" : "tagger", options.unlabelled !== true),
    options.maxMemory,
  );
  if (task === "parser" && (options.classWeight ?? []).length > 0) {
    throw usageError(
      "--class-weight with --task parser: its transitions are no gold labels to weigh; use it with --task pos or ner, or the CRF",
    );
  }
  // Names before anything is read: an unknown preset or scheme is a usage error now.
  if (options.preset !== undefined) checkPresetName(options.preset, false);
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const trained =
      task === "parser"
        ? await trainParser(options, signal)
        : await trainTagger(options, task, signal);
    const subset = subsetSettings(options);
    const model =
      subset === undefined
        ? trained.model
        : { ...trained.model, settings: { ...trained.model.settings, subset } };
    await output.write(checkedL2sModelBytes(model, options));
    return `${trained.summary}; wrote ${options.out}\n`;
  });
}
