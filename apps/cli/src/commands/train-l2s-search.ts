import type {
  BASE_LEARNERS,
  BaseLearnerOptions,
  RollIn,
  RollOut,
  SearchProgress,
  SearchTrainingResult,
} from "@lagrange/l2s";
import { L2S_PARSER_DEFAULT_LEARNER, L2S_TAGGER_DEFAULT_LEARNER } from "@lagrange/recipes";
import type { L2sTask } from "../define/train-values.js";
import { type Progress, progressBar } from "../progress.js";
import type { L2sTrainOptions } from "./train-l2s.js";

export type BaseLearner = (typeof BASE_LEARNERS)[number];

/** The base learner of each task when `--base-learner` is not given (the recipes' defaults). */
export function defaultBaseLearner(task: string | undefined): BaseLearner {
  return task === "parser" ? L2S_PARSER_DEFAULT_LEARNER : L2S_TAGGER_DEFAULT_LEARNER;
}

/**
 * The search and learner settings common to every task. The base learner is always named: a
 * recipe's default learner is chosen only when no learner options are given at all, so `--bits`
 * alone must not change it.
 */
export function searchSettings(options: L2sTrainOptions, task: L2sTask) {
  const bits = options.bits === undefined ? {} : { bits: options.bits };
  const learner: BaseLearnerOptions =
    (options.baseLearner ?? defaultBaseLearner(task)) === "perceptron"
      ? { kind: "perceptron", ...bits }
      : {
          kind: "csoaa",
          ...bits,
          ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
        };
  return {
    ...(options.passes === undefined ? {} : { passes: options.passes }),
    ...(options.rollIn === undefined ? {} : { rollIn: options.rollIn as RollIn }),
    ...(options.rollOut === undefined ? {} : { rollOut: options.rollOut as RollOut }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    learner,
  };
}

/** A progress bar over passes × examples, started at the first report (which gives the sizes). */
export function searchBar(label: string): {
  onProgress: (p: SearchProgress) => void;
  stop: () => void;
} {
  let bar: Progress | undefined;
  return {
    onProgress: (p) => {
      bar ??= progressBar(label, p.passes * p.totalExamples);
      bar.update(
        (p.pass - 1) * p.totalExamples + p.examples,
        `pass ${p.pass}/${p.passes}, roll-in loss ${p.meanRollInLoss.toFixed(3)}`,
      );
    },
    stop: () => bar?.stop(),
  };
}

/** Passes, examples, learned decisions and time, as the summary line gives them. */
export function trainingText(training: SearchTrainingResult): string {
  return `${training.passes} pass${training.passes === 1 ? "" : "es"} (${training.examplesSeen} examples seen), ${training.learnedDecisions} cost-sensitive updates, ${training.rollOuts} roll-outs, ${training.seconds.toFixed(1)} s`;
}

/** The base learner, roll-in, roll-out and passes of a run, defaults filled in. */
export function searchText(
  options: L2sTrainOptions,
  task: L2sTask,
  rollIn: RollIn,
  rollOut: RollOut,
): string {
  const passes = options.passes ?? 1;
  return `base learner ${options.baseLearner ?? defaultBaseLearner(task)}, roll-in ${options.rollIn ?? rollIn}, roll-out ${options.rollOut ?? rollOut}, ${passes < 1 ? `1 pass learning from ${passes} of the decisions` : `${passes} pass${passes === 1 ? "" : "es"}`}`;
}
