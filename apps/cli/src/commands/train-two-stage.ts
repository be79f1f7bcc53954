import type { Corpus } from "@lagrange/datasets";
import {
  type TrainedTwoStage,
  type TrainingFeatures,
  type TrainOnCorpusOptions,
  TWO_STAGE_FOLDS,
  trainTwoStage,
} from "@lagrange/recipes";
import { note, progressBar } from "../progress.js";
import type { CrfTrainOptions } from "./train.js";
import { iterationDetail } from "./train-common.js";

/**
 * `lagrange train --two-stage`: the jackknifed first stages, the full one and the second stage
 * under one progress bar; returns the result and the summary's two-stage part.
 */
export async function trainTwoStageModel(
  options: CrfTrainOptions,
  train: Corpus,
  features: TrainingFeatures,
  /** The iterations of one training (undefined: no cap). */
  limit: number | undefined,
  crf: (onProgress: TrainOnCorpusOptions["onProgress"]) => TrainOnCorpusOptions,
): Promise<{ result: TrainedTwoStage; text: string }> {
  // A task preset's mined lexicons were jackknifed over these very folds (resolveFeatures).
  const folds = features.jackknife?.specs.length ?? options.folds ?? TWO_STAGE_FOLDS;
  const byDocument = train.sentences.some((s) => s.document !== undefined);
  note(
    `two-stage: ${folds} first-stage CRFs jackknifed by ${byDocument ? "documents" : "blocks of 20 sentences (the data marks no documents)"}, a first stage on all the data, then the second stage on their votes`,
  );
  let done = 0;
  let step = "";
  // Without a cap the bar counts the iterations of every stage so far.
  let base = 0;
  let current = 0;
  const bar = progressBar("train", limit === undefined ? undefined : (folds + 2) * limit);
  try {
    const result = await trainTwoStage(train, {
      ...crf((p) => {
        current = p.iteration;
        bar.update(base + current, `${step}: ${iterationDetail(p)}`);
      }),
      folds,
      onStage: (stage) => {
        done =
          stage.stage === "first" ? stage.fold : stage.stage === "first-full" ? folds : folds + 1;
        base = limit === undefined ? base + current : done * limit;
        current = 0;
        step =
          stage.stage === "first"
            ? `first stage, fold ${stage.fold + 1}/${folds}`
            : stage.stage === "first-full"
              ? "first stage, all data"
              : "second stage";
        bar.update(base, step);
      },
    });
    const v = result.voted;
    return {
      result,
      text: `; two-stage: ${folds} folds, first stages ${result.firstStageSeconds.toFixed(1)} s, votes on ${v.dtok} (dtok), ${v.dent} (dent), ${v.ctok} (ctok) training tokens`,
    };
  } finally {
    bar.stop();
  }
}
