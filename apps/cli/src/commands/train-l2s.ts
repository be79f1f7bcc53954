import { getPreset } from "@lagrange/chain-crf";
import {
  type ConlluSentence,
  type Corpus,
  corpusLocator,
  evaluateChunks,
  evaluateDependencies,
  evaluateSegments,
  evaluateTokens,
  inputRows,
  type LabelScheme,
  parseLabelScheme,
} from "@lagrange/datasets";
import {
  BASE_LEARNERS,
  type BaseLearnerOptions,
  type L2sModel,
  l2sModelToBytes,
  parseExamplesFromConllu,
  ROLL_INS,
  ROLL_OUTS,
  type RollIn,
  type RollOut,
  type SearchProgress,
  type SearchTrainingResult,
} from "@lagrange/l2s";
import {
  conlluSentences,
  l2sParserOf,
  l2sTaggerOf,
  parseWithL2s,
  standardDecoders,
  tagWithL2s,
  trainL2sParser,
  trainL2sTagger,
} from "@lagrange/recipes";
import { L2S_TASKS, type L2sTask, type Learner } from "../define/values.js";
import { badInputError, usageError } from "../exit-codes.js";
import { openData } from "../inputs.js";
import { l2sTaggerInput } from "../l2s-models.js";
import { writeOutput } from "../output.js";
import { note, type Progress, progressBar, warn } from "../progress.js";
import { checkL2sTrainingMemory } from "../training-memory.js";

export { BASE_LEARNERS, ROLL_INS, ROLL_OUTS };
export type BaseLearner = (typeof BASE_LEARNERS)[number];

/** The base learner of each task when `--base-learner` is not given (the recipes' defaults). */
export function defaultBaseLearner(task: string | undefined): BaseLearner {
  return task === "parser" ? "perceptron" : "csoaa";
}

/** What `lagrange train --learner l2s` reads of its options. */
export interface L2sTrainOptions {
  readonly data: string;
  readonly format?: string;
  readonly dev?: string;
  readonly preset?: string;
  readonly scheme?: string;
  readonly malformed?: "error" | "repair" | "skip";
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
  readonly out: string;
}

/**
 * The options of CRF training only (the chain and general CRFs): given with `--learner l2s` they
 * are a usage error naming them, since nothing would read them.
 */
export const CRF_ONLY_OPTIONS = [
  "--algorithm",
  "--c1",
  "--c2",
  "--max-iterations",
  "--threads",
  "--min-freq",
  "--patience",
  "--objective",
  "--bcrf-iterations",
  "--partial",
  "--constrained-training",
  "--model",
  "--groups",
  "--folds",
  "--epochs",
  "--train-decoder",
  "--max-group",
  "--min-overlap",
  "--allow-no-progress",
] as const;

/** The options of `--learner l2s` only. */
export const L2S_ONLY_OPTIONS = [
  "--task",
  "--passes",
  "--roll-in",
  "--roll-out",
  "--base-learner",
  "--bits",
  "--learning-rate",
  "--seed",
  "--no-bridge",
  "--oracle",
  "--unlabelled",
  "--tag-field",
] as const;

/** Options of the parser task only, and of the tagger tasks only. */
const PARSER_ONLY_OPTIONS = ["--oracle", "--unlabelled", "--tag-field"] as const;
const TAGGER_ONLY_OPTIONS = ["--preset", "--scheme", "--no-bridge"] as const;

/**
 * Options given for the other learner, or for another L2S task, are usage errors naming them
 * (`given`: the options the command line set, defaults not counted).
 */
export function checkLearnerOptions(
  learner: Learner,
  task: string | undefined,
  given: ReadonlySet<string>,
): void {
  const of = (names: readonly string[]) => names.filter((name) => given.has(name));
  if (learner === "crf") {
    const l2s = of(L2S_ONLY_OPTIONS);
    if (l2s.length > 0) {
      throw usageError(
        `${l2s.join(", ")}: ${l2s.length === 1 ? "an option" : "options"} of --learner l2s (learning to search); the default learner is crf: add --learner l2s, or drop ${l2s.length === 1 ? "it" : "them"}`,
      );
    }
    return;
  }
  const crf = of(CRF_ONLY_OPTIONS);
  if (crf.length > 0) {
    throw usageError(
      `${crf.join(", ")}: ${crf.length === 1 ? "an option" : "options"} of the CRF learner, not of --learner l2s (its options: ${L2S_ONLY_OPTIONS.join(", ")}; see lagrange train --help)`,
    );
  }
  if (task === undefined) {
    throw usageError(
      `--learner l2s needs --task ${L2S_TASKS.join(", ")}: pos (plain tags, e.g. UD UPOS), ner (entities under the data's scheme), parser (arc-hybrid dependency parsing of CoNLL-U)`,
    );
  }
  if (task === "parser") {
    const tagger = of(TAGGER_ONLY_OPTIONS);
    if (tagger.length > 0) {
      throw usageError(
        `${tagger.join(", ")}: for --task pos or ner; the parser has its own features (words and --tag-field tags) and no label scheme`,
      );
    }
    return;
  }
  const parser = of(PARSER_ONLY_OPTIONS);
  if (parser.length > 0) {
    throw usageError(`${parser.join(", ")}: for --task parser only; --task ${task} is a tagger`);
  }
  if (task === "pos" && given.has("--scheme")) {
    throw usageError(
      "--scheme with --task pos: POS tags are plain labels (scheme none); entities under a scheme are --task ner",
    );
  }
  if (task === "pos" && given.has("--no-bridge")) {
    warn(
      "--no-bridge: --task pos tags plain labels, with no scheme for the bridge to keep; ignored",
    );
  }
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
    task === "parser" && options.unlabelled !== true ? 2 : 1,
    options.maxMemory,
  );
  // Names before anything is read: an unknown preset or scheme is a usage error now.
  if (options.preset !== undefined) getPreset(options.preset);
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  const inputs = [options.data, options.dev];
  return writeOutput(options.out, { option: "--out", inputs, signal }, async (output) => {
    const trained =
      task === "parser"
        ? await trainParser(options, signal)
        : await trainTagger(options, task, signal);
    await output.write(l2sModelToBytes(trained.model));
    return `${trained.summary}; wrote ${options.out}\n`;
  });
}

/**
 * The search and learner settings common to every task. The base learner is always named: a
 * recipe's default learner is chosen only when no learner options are given at all, so `--bits`
 * alone must not change it.
 */
function searchSettings(options: L2sTrainOptions, task: L2sTask) {
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

function readOptions(options: L2sTrainOptions, signal: AbortSignal | undefined, format?: string) {
  const chosen = options.format ?? format;
  return {
    ...(chosen === undefined ? {} : { format: chosen }),
    malformed: options.malformed ?? "skip",
    ...(signal === undefined ? {} : { signal }),
  } as const;
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

const pct = (x: number) => (100 * x).toFixed(2);

/** `--task pos` and `--task ner`: the left-to-right L2S tagger on the CRF preset's attributes. */
async function trainTagger(
  options: L2sTrainOptions,
  task: "pos" | "ner",
  signal: AbortSignal | undefined,
): Promise<{ model: L2sModel; summary: string }> {
  const read = readOptions(options, signal);
  const train = await openData("--data", options.data, read);
  if (train.report !== undefined && (train.report.skipped > 0 || train.report.repaired > 0)) {
    note(
      `${train.label}: ${train.report.skipped} malformed lines skipped, ${train.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  const scheme: LabelScheme =
    task === "pos"
      ? "none"
      : options.scheme === undefined
        ? train.scheme
        : parseLabelScheme(options.scheme, "--scheme");
  const preset = options.preset ?? defaultPreset(task, train);
  const bridge = task === "ner" && options.bridge !== false;
  const dev =
    options.dev === undefined
      ? undefined
      : await openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
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
    trained = await trainL2sTagger(train, {
      preset,
      scheme,
      bridge,
      ...searchSettings(options, task),
      onProgress: progress.onProgress,
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    progress.stop();
  }
  const first = trained.schemeCheck.first;
  if (first !== undefined) {
    note(
      `${train.label}: ${trained.schemeCheck.invalid} gold sequences are invalid under ${scheme} (trained on as they are; the first, at ${corpusLocator(train)(first.index, first.position)}: ${first.message})`,
    );
  }
  const labels = l2sTaggerOf(trained.model).labels.length;
  let devText = "";
  if (dev !== undefined) {
    const tagger = l2sTaggerOf(trained.model);
    const input = l2sTaggerInput(dev, tagger, "required");
    const predicted = tagWithL2s(tagger, input.sentences, standardDecoders(), "greedy");
    const gold = input.sentences.map((s) => s.labels ?? []);
    devText = `; dev (${dev.label}, greedy): ${tagScores(scheme, gold, predicted)}`;
  }
  return {
    model: trained.model,
    summary: `trained an L2S tagger: ${labels} labels, ${trainingText(trained.training)}${devText}`,
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

/** Token accuracy for plain tags; accuracy and chunk F1 under a scheme (as the CRF's dev scores). */
export function tagScores(
  scheme: LabelScheme,
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
): string {
  if (scheme === "none") return `acc ${pct(evaluateTokens(gold, predicted).accuracy)}%`;
  const e =
    scheme === "hierarchical-BIO"
      ? evaluateSegments(gold, predicted)
      : evaluateChunks(gold, predicted);
  return `acc ${pct(e.tokenAccuracy)}%, F1 ${pct(e.f1)}`;
}

/** The base learner, roll-in, roll-out and passes of a run, defaults filled in. */
function searchText(
  options: L2sTrainOptions,
  task: L2sTask,
  rollIn: RollIn,
  rollOut: RollOut,
): string {
  const passes = options.passes ?? 1;
  return `base learner ${options.baseLearner ?? defaultBaseLearner(task)}, roll-in ${options.rollIn ?? rollIn}, roll-out ${options.rollOut ?? rollOut}, ${passes < 1 ? `1 pass learning from ${passes} of the decisions` : `${passes} pass${passes === 1 ? "" : "es"}`}`;
}

/** `--task parser`: chang2016's arc-hybrid parser on CoNLL-U. */
async function trainParser(
  options: L2sTrainOptions,
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
  const read = readOptions(options, signal, "conllu");
  const train = await openData("--data", options.data, read);
  const trainSentences = conlluSentences(train, "training a parser");
  const dev =
    options.dev === undefined
      ? undefined
      : await openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
  const devTrees = dev === undefined ? undefined : goldTrees(dev, tagField);
  const rollIn: RollIn = oracle === "static" ? "reference" : "learned";
  note(
    `training an L2S arc-hybrid parser on ${trainSentences.length} sentences (${train.label}), ${oracle} oracle, ${labelled ? "labelled (heads and relations)" : "unlabelled (heads only)"}, tags from ${tagField}; ${searchText(options, "parser", rollIn, "none")}`,
  );
  const progress = searchBar("l2s");
  let trained: Awaited<ReturnType<typeof trainL2sParser>>;
  try {
    trained = await trainL2sParser(train, {
      oracle,
      labelled,
      tagField,
      ...searchSettings(options, "parser"),
      onProgress: progress.onProgress,
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    progress.stop();
  }
  let devText = "";
  if (dev !== undefined && devTrees !== undefined) {
    if (devTrees.length === 0) {
      warn(`--dev ${dev.label}: no sentence has a gold tree (every HEAD is _): no dev scores`);
    } else {
      const predicted = parseWithL2s(l2sParserOf(trained.model), devTrees);
      const scores = (["include", "exclude"] as const).map((punctuation) =>
        evaluateDependencies(devTrees, predicted, { punctuation }),
      );
      const [all, noPunct] = scores as [
        ReturnType<typeof evaluateDependencies>,
        ReturnType<typeof evaluateDependencies>,
      ];
      devText = `; dev (${dev.label}, ${devTrees.length} sentences): UAS ${pct(all.uas)}${labelled ? ` LAS ${pct(all.las)}` : ""} with punctuation, UAS ${pct(noPunct.uas)}${labelled ? ` LAS ${pct(noPunct.las)}` : ""} without`;
    }
  }
  return {
    model: trained.model,
    summary: `trained an L2S parser: ${trained.relations.length} relations${labelled ? "" : " (unlabelled: heads only)"}, ${trainingText(trained.training)}${devText}`,
  };
}

/**
 * The held-out sentences with a gold tree, checked before training (a bad HEAD is reported at its
 * file:line now, not after an hour); sentences without one (every HEAD `_`) are left out.
 */
function goldTrees(dev: Corpus, tagField: "UPOS" | "XPOS"): ConlluSentence[] {
  const sentences = conlluSentences(dev, "evaluating a parser (--dev)");
  const examples = parseExamplesFromConllu(sentences, { tagField });
  const kept = sentences.filter((_, k) => examples[k]!.heads !== undefined);
  if (kept.length > 0 && kept.length < sentences.length) {
    note(
      `--dev ${dev.label}: ${sentences.length - kept.length} of ${sentences.length} sentences have no gold tree (HEAD _), left out of the dev scores`,
    );
  }
  return kept;
}
