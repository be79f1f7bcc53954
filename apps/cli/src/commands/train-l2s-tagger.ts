import { getPreset } from "@lagrange/chain-crf";
import {
  type Corpus,
  corpusLocator,
  inputRows,
  type LabelScheme,
  parseLabelScheme,
} from "@lagrange/datasets";
import type { L2sModel } from "@lagrange/l2s";
import { l2sTaggerOf, parseClassWeights, scoreL2sTagger, trainL2sTagger } from "@lagrange/recipes";
import { badInputError } from "../exit-codes.js";
import { note } from "../progress.js";
import {
  noteInvalidGold,
  openHeldOut,
  openTrainingData,
  scoresText,
  trainingRead,
} from "./train-common.js";
import type { L2sTrainOptions } from "./train-l2s.js";
import { searchBar, searchSettings, searchText, trainingText } from "./train-l2s-search.js";

/** `--task pos` and `--task ner`: the left-to-right L2S tagger on the CRF preset's attributes. */
export async function trainTagger(
  options: L2sTrainOptions,
  task: "pos" | "ner",
  signal: AbortSignal | undefined,
): Promise<{ model: L2sModel; summary: string }> {
  const read = trainingRead(options, signal);
  const train = await openTrainingData(options, read);
  const scheme: LabelScheme =
    task === "pos"
      ? "none"
      : options.scheme === undefined
        ? train.scheme
        : parseLabelScheme(options.scheme, "--scheme");
  const preset = options.preset ?? defaultPreset(task, train);
  const bridge = task === "ner" && options.bridge !== false;
  const dev = await openHeldOut(options, read);
  if (dev !== undefined) {
    requireGold(dev);
    requireSameColumns(train, dev);
  }
  note(
    `training an L2S tagger (--task ${task}) on ${train.sentences.length} sequences (${train.label}), preset ${preset}, scheme ${scheme}${task === "ner" && options.scheme === undefined ? " (from the data)" : ""}${task === "ner" ? `, constraint bridge ${bridge ? (scheme === "none" ? "on (nothing to keep under scheme none)" : "on") : "off"}` : ""}; ${searchText(options, task, "learned", "none")}`,
  );
  const progress = searchBar("l2s");
  let trained: Awaited<ReturnType<typeof trainL2sTagger>>;
  try {
    const classWeights = parseClassWeights(options.classWeight ?? []);
    trained = await trainL2sTagger(train, {
      preset,
      scheme,
      bridge,
      ...(classWeights === undefined ? {} : { classWeights }),
      ...searchSettings(options, task),
      onProgress: progress.onProgress,
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    progress.stop();
  }
  noteInvalidGold(train, scheme, trained.schemeCheck);
  const tagger = l2sTaggerOf(trained.model);
  const devText =
    dev === undefined
      ? ""
      : `; dev (${dev.label}, greedy): ${scoresText(scoreL2sTagger(tagger, dev))}`;
  return {
    model: trained.model,
    summary: `trained an L2S tagger: ${tagger.labels.length} labels, ${trainingText(trained.training)}${devText}`,
  };
}

/**
 * `--task pos`: the pos preset; `--task ner`: CRFsuite's ner preset on [word, POS, chunk] rows, or
 * ner-words when the data has fewer input columns (a two-column CoNLL file: words and labels).
 */
function defaultPreset(task: "pos" | "ner", train: Corpus): string {
  if (task === "pos") return "pos";
  const first = train.sentences[0];
  const width = first === undefined ? 0 : (inputRows(first)[0]?.length ?? 0);
  const ner = getPreset("ner");
  if (width >= ner.columns.length) return "ner";
  note(
    `preset ner-words: ${train.label} has ${width} input column(s); the ner preset reads ${ner.columns.length} (${ner.columns.join(", ")}) (--preset to choose)`,
  );
  return "ner-words";
}

/** Held-out data must carry gold labels to be scored. */
function requireGold(dev: Corpus): void {
  const missing = dev.sentences.findIndex((s) => s.labels === undefined);
  if (missing >= 0) {
    throw badInputError(
      `${corpusLocator(dev)(missing, 0)}: --dev ${dev.label} has no gold labels to evaluate against`,
    );
  }
}

/**
 * CoNLL held-out data as wide as the training data (checked now: the model reads the training
 * data's input columns, and a mismatch found after training would lose the run's dev scores).
 */
function requireSameColumns(train: Corpus, dev: Corpus): void {
  const width = (corpus: Corpus) => corpus.sentences[0]?.columns.length;
  if (train.format !== "conll" || dev.format !== "conll") return;
  if (width(train) === width(dev) || dev.sentences[0] === undefined) return;
  throw badInputError(
    `${corpusLocator(dev)(0, 0)}: ${width(dev)} column(s); the training data ${train.label} has ${width(train)} (its input columns, then the gold label)`,
  );
}
