import { getPreset } from "@lagrange/chain-crf";
import {
  type ConlluSentence,
  type Corpus,
  corpusLocator,
  inputRows,
  type LabelScheme,
  parseLabelScheme,
} from "@lagrange/datasets";
import type {
  L2sModel,
  RollIn,
  RollOut,
  SearchProgress,
  SearchTrainingResult,
} from "@lagrange/l2s";
import {
  checkPresetName,
  conlluSentences,
  definedFields,
  heldOutTrees,
  type L2sTask,
  type L2sTrainer,
  l2sParserOf,
  l2sTaggerOf,
  openTrainer,
  scoreL2sParser,
  scoreL2sTagger,
} from "@lagrange/recipes";
import type { L2sTrainOptions } from "../define/train-values.js";
import { badInputError } from "../exit-codes.js";
import { openData } from "../inputs.js";
import { writeOutput } from "../output.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import { trainingMemoryLimit } from "../training-memory.js";
import {
  noteInvalidGold,
  openHeldOut,
  openTrainingData,
  pct,
  scoresText,
  subsetSettings,
  trainingRead,
  trainingSubset,
} from "./train-common.js";
import { checkedL2sModelBytes } from "./train-output.js";

/** `lagrange train --learner l2s`: returns the summary line; the model is written atomically. */
export async function trainL2sCommand(
  options: L2sTrainOptions,
  signal?: AbortSignal,
): Promise<string> {
  const task = options.task as L2sTask;
  const trainer = openTrainer(
    {
      learner: "l2s",
      task,
      ...definedFields({
        baseLearner: options.baseLearner,
        bits: options.bits,
        learningRate: options.learningRate,
        passes: options.passes,
        rollIn: options.rollIn as RollIn | undefined,
        rollOut: options.rollOut as RollOut | undefined,
        seed: options.seed,
        classWeights: options.classWeight,
        labelled: options.unlabelled === true ? false : undefined,
      }),
    },
    definedFields({ limitBytes: trainingMemoryLimit(options.maxMemory) }),
  );
  // Names before anything is read: an unknown preset or scheme is a usage error now.
  if (options.preset !== undefined) checkPresetName(options.preset, false);
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const trained =
      task === "parser"
        ? await trainParser(options, trainer, signal)
        : await trainTagger(options, task, trainer, signal);
    const subset = subsetSettings(options);
    const model =
      subset === undefined
        ? trained.model
        : { ...trained.model, settings: { ...trained.model.settings, subset } };
    await output.write(checkedL2sModelBytes(model, options));
    return `${trained.summary}; wrote ${options.out}\n`;
  });
}

/** `--task pos` and `--task ner`: the left-to-right L2S tagger on the CRF preset's attributes. */
async function trainTagger(
  options: L2sTrainOptions,
  task: "pos" | "ner",
  trainer: L2sTrainer,
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
    `training an L2S tagger (--task ${task}) on ${train.sentences.length} sequences (${train.label}), preset ${preset}, scheme ${scheme}${task === "ner" && options.scheme === undefined ? " (from the data)" : ""}${task === "ner" ? `, constraint bridge ${bridge ? (scheme === "none" ? "on (nothing to keep under scheme none)" : "on") : "off"}` : ""}; ${searchText(options, trainer, "learned", "none")}`,
  );
  const progress = searchBar("l2s");
  let trained: Awaited<ReturnType<L2sTrainer["trainTagger"]>>;
  try {
    trained = await trainer.trainTagger(train, {
      preset,
      scheme,
      bridge,
      onProgress: progress.onProgress,
      ...definedFields({ signal }),
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

/** `--task parser`: chang2016's arc-hybrid parser on CoNLL-U. */
async function trainParser(
  options: L2sTrainOptions,
  trainer: L2sTrainer,
  signal: AbortSignal | undefined,
): Promise<{ model: L2sModel; summary: string }> {
  const oracle = (options.oracle ?? "dynamic") as "dynamic" | "static";
  const tagField = (options.tagField ?? "UPOS") as "UPOS" | "XPOS";
  const labelled = options.unlabelled !== true;
  if (oracle === "static" && options.rollIn !== undefined && options.rollIn !== "reference") {
    warn(
      `--oracle static knows the gold transition sequence only: off it (--roll-in ${options.rollIn}) its reference names a valid transition, not a good one; --oracle dynamic costs every configuration exactly`,
    );
  }
  // CoNLL-U whatever the file's extension (the parser reads HEAD and DEPREL).
  const read = trainingRead(options, signal, "conllu");
  const train = trainingSubset(await openData("--data", options.data, read), options);
  const trainSentences = conlluSentences(train, "training a parser");
  const dev = await openHeldOut(options, read);
  const devTrees = dev === undefined ? undefined : goldTrees(dev, tagField);
  const rollIn: RollIn = oracle === "static" ? "reference" : "learned";
  note(
    `training an L2S arc-hybrid parser on ${trainSentences.length} sentences (${train.label}), ${oracle} oracle, ${labelled ? "labelled (heads and relations)" : "unlabelled (heads only)"}, tags from ${tagField}; ${searchText(options, trainer, rollIn, "none")}`,
  );
  const progress = searchBar("l2s");
  let trained: Awaited<ReturnType<L2sTrainer["trainParser"]>>;
  try {
    trained = await trainer.trainParser(train, {
      oracle,
      tagField,
      onProgress: progress.onProgress,
      ...definedFields({ signal }),
    });
  } finally {
    progress.stop();
  }
  let devText = "";
  if (dev !== undefined && devTrees !== undefined) {
    if (devTrees.length === 0) {
      warn(`--dev ${dev.label}: no sentence has a gold tree (every HEAD is _): no dev scores`);
    } else {
      const { include: all, exclude: noPunct } = scoreL2sParser(
        l2sParserOf(trained.model),
        devTrees,
      );
      devText = `; dev (${dev.label}, ${devTrees.length} sentences): UAS ${pct(all.uas)}${labelled ? ` LAS ${pct(all.las)}` : ""} with punctuation, UAS ${pct(noPunct.uas)}${labelled ? ` LAS ${pct(noPunct.las)}` : ""} without`;
    }
  }
  return {
    model: trained.model,
    summary: `trained an L2S parser: ${trained.relations.length} relations${labelled ? "" : " (unlabelled: heads only)"}, ${trainingText(trained.training)}${devText}`,
  };
}

/** The held-out sentences with a gold tree (see recipes' `heldOutTrees`), saying how many were left out. */
function goldTrees(dev: Corpus, tagField: "UPOS" | "XPOS"): ConlluSentence[] {
  const { trees, total } = heldOutTrees(dev, tagField);
  if (trees.length > 0 && trees.length < total) {
    note(
      `--dev ${dev.label}: ${total - trees.length} of ${total} sentences have no gold tree (HEAD _), left out of the dev scores`,
    );
  }
  return trees;
}

/** A progress bar over passes × examples, started at the first report (which gives the sizes). */
function searchBar(label: string): {
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
function trainingText(training: SearchTrainingResult): string {
  return `${training.passes} pass${training.passes === 1 ? "" : "es"} (${training.examplesSeen} examples seen), ${training.learnedDecisions} cost-sensitive updates, ${training.rollOuts} roll-outs, ${training.seconds.toFixed(1)} s`;
}

/** The base learner, roll-in, roll-out and passes of a run, defaults filled in. */
function searchText(
  options: L2sTrainOptions,
  trainer: L2sTrainer,
  rollIn: RollIn,
  rollOut: RollOut,
): string {
  const passes = options.passes ?? 1;
  return `base learner ${trainer.learner.kind}, roll-in ${options.rollIn ?? rollIn}, roll-out ${options.rollOut ?? rollOut}, ${passes < 1 ? `1 pass learning from ${passes} of the decisions` : `${passes} pass${passes === 1 ? "" : "es"}`}`;
}
