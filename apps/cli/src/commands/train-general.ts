import type { CrfModel, TrainingProgress } from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import type { Corpus, LabelScheme } from "@lagrange/datasets";
import { consistencyFeatureNames } from "@lagrange/mincut";
import type { GroupingKind, TrainedGeneralCrf, Trainer, TrainingFeatures } from "@lagrange/recipes";
import { GENERAL_DEFAULTS, type TrainOptions } from "../define/train-values.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import { iterationDetail, pct } from "./train-common.js";

/**
 * `--model general`: the chain CRF on all the data and on each jackknife fold ("crf fold k/K"),
 * then the consistency weights by averaged perceptron through `--train-decoder` (qian-liu2014).
 */
export async function trainGeneral(
  options: TrainOptions,
  train: Corpus,
  scheme: LabelScheme,
  trainer: Trainer,
  featuresOf: (corpus: Corpus) => Promise<TrainingFeatures>,
  registry: DecoderRegistry,
): Promise<{ model: CrfModel; summary: string }> {
  const limit = trainer.limit;
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
  let crfBar: Progress | undefined = progressBar(
    "crf",
    limit === undefined ? undefined : trainings * limit,
  );
  // Without a cap the bar counts the iterations of every training so far.
  let base = 0;
  let current = 0;
  let perceptronBar: Progress | undefined;
  const stopBars = () => {
    crfBar?.stop();
    crfBar = undefined;
    perceptronBar?.stop();
    perceptronBar = undefined;
  };
  const heldOut: number[] = [];
  let result: TrainedGeneralCrf;
  try {
    result = await trainer.trainGeneral(train, {
      featuresOf,
      onChainProgress: (p: TrainingProgress) => {
        current = p.iteration;
        crfBar?.update(base + current, `${crfStep()}: ${iterationDetail(p)}`);
      },
      settings: {
        groups,
        ...(groups === "tweets" ? { grouping } : {}),
      },
      folds,
      decoder,
      registry,
      epochs,
      onProgress: (p) => {
        if (p.stage === "held-out") {
          heldOut.push(p.score);
          return;
        }
        if (p.stage === "crf") {
          trained = Math.min(p.fold + 1, trainings);
          base = limit === undefined ? base + current : trained * limit;
          current = 0;
          crfBar?.update(base, trained < trainings ? `${crfStep()}` : "done");
          return;
        }
        if (crfBar !== undefined) {
          crfBar.stop();
          crfBar = undefined;
        }
        perceptronBar ??= progressBar("perceptron", p.epochs * p.groups);
        perceptronBar.update(
          (p.epoch - 1) * p.groups + p.done,
          `epoch ${p.epoch}/${p.epochs}, ${p.mistakes} mistaken positions${heldOut.length === 0 ? "" : `; held-out ${pct(heldOut.at(-1)!)} after epoch ${heldOut.length}`}`,
        );
      },
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
  // The names withGeneralCrf recorded in the model file.
  const names = consistencyFeatureNames();
  note(
    `consistency weights: ${Array.from(result.consistency.weights, (w, f) => `${names[f] ?? `w${f}`} ${w.toFixed(3)}`).join(", ")}`,
  );
  const rate = training.decodings === 0 ? 1 : training.certified / training.decodings;
  const skipped = training.epochs.reduce((sum, e) => sum + e.skipped, 0);
  note(
    `perceptron (${decoder}): mistaken positions per epoch ${training.mistakes.join(", ") || "none"}; certified per epoch ${training.epochs.map((e) => `${e.certified}/${e.decodings}`).join(", ") || "none"}; ${training.certified} of ${training.decodings} decodings certified (${(100 * rate).toFixed(1)}%); ${skipped} uncertified decodings scored below the gold and made no update`,
  );
  const choice = selectionLine(result);
  if (result.selection !== undefined && result.selection.scale === 0) warn(choice);
  else note(choice);
  return {
    model: result.model,
    summary: `trained a general CRF: ${result.model.summary().weights} chain weights, ${result.model.numLabels} labels, ${result.consistency.weights.length} consistency weights; chain CRFs ${(result.crfMs / 1000).toFixed(1)} s, perceptron ${(result.perceptronMs / 1000).toFixed(1)} s; ${selectionSummary(result)}; scheme ${scheme}; wrote ${options.out}\n`,
  };
}

/** The held-out choice in one line, or why there was none. */
function selectionLine(result: TrainedGeneralCrf): string {
  const s = result.selection;
  if (s === undefined) {
    return "no held-out cut (--folds 1): the perceptron's last averaged weights are kept, unchecked against the chain";
  }
  const what = s.measure === "f1" ? "F1" : "token accuracy";
  const cut = `held-out cut (${s.heldOutGroups} groups, ${s.heldOutSentences} sentences of fold 1, left out of the perceptron): ${what} per epoch ${s.perEpoch.map(pct).join(", ")}`;
  return s.scale === 0
    ? `${cut}; no epoch or scale beat the chain alone (${pct(s.chainScore)}): the consistency weights are 0 and the model decodes as its chain — on this data the general CRF is not worth using`
    : `${cut}; chose epoch ${s.epochs} at scale ${s.scale}: ${what} ${pct(s.generalScore)} against the chain's ${pct(s.chainScore)}`;
}

/** The choice in the final line: held-out chain vs general. */
function selectionSummary(result: TrainedGeneralCrf): string {
  const s = result.selection;
  if (s === undefined) return "no held-out check";
  const what = s.measure === "f1" ? "F1" : "accuracy";
  return s.scale === 0
    ? `held-out ${what}: chain ${pct(s.chainScore)}, general not better (weights 0, the chain alone)`
    : `held-out ${what}: chain ${pct(s.chainScore)}, general ${pct(s.generalScore)} (epoch ${s.epochs}, scale ${s.scale})`;
}
