import type { TrainingObjectiveName } from "@lagrange/bcrf";
import { type CrfModel, STOP_REASON_TEXT } from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import {
  type Corpus,
  type CrfsuiteInstance,
  type LabelScheme,
  parseLabelScheme,
  readCrfsuite,
} from "@lagrange/datasets";
import {
  type CrfsuiteCorpus,
  checkFeatureMemory,
  continuedTraining,
  DOCUMENT_JACKKNIFE_FOLDS,
  definedFields,
  documentConstraintsLine,
  documentGroupsOf,
  objectiveIterations,
  openTrainer,
  type SelectedDocumentConstraints,
  standardDecoders,
  stoppingText,
  type TrainedByTrainer,
  type TrainedTwoStage,
  type Trainer,
  type TrainingFeatures,
  TWO_STAGE_FOLDS,
  trainingFeatures,
  tuningCut,
  withDocumentConstraints,
} from "@lagrange/recipes";
import type { TrainOptions } from "../define/train-values.js";
import { readNamedText, requireFile } from "../inputs.js";
import { note, progressBar } from "../progress.js";
import { memoryOptions, trainingMemoryLimit } from "../training-memory.js";
import { lexiconArgument } from "./train-check.js";
import {
  continuedText,
  iterationDetail,
  noteInvalidGold,
  openHeldOut,
  openTrainingData,
  readInitModel,
  scoresText,
  subsetInstances,
  trainingRead,
  trainingSpec,
} from "./train-common.js";
import { trainGeneral } from "./train-general.js";

/** `lagrange train` with the CRF learner: a chain CRF, or a general one (`--model general`). */
export async function trainCrfModel(
  options: TrainOptions,
  threads: number | undefined,
  registry: DecoderRegistry | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const read = trainingRead(options, signal);
  const train = await openTrainingData(options, read);
  const init = options.init === undefined ? undefined : await readInitModel(options.init, signal);
  const givenScheme =
    options.scheme === undefined ? undefined : parseLabelScheme(options.scheme, "--scheme");
  // Continued training takes the features and the scheme the initial model records.
  const continued =
    init === undefined
      ? undefined
      : continuedTraining(
          init.model,
          `--init ${init.file}`,
          train,
          definedFields({ preset: options.preset, scheme: givenScheme }),
        );
  const scheme = continued?.scheme ?? givenScheme ?? train.scheme;
  const dev = await openHeldOut(options, read);
  const features: TrainingFeatures =
    continued === undefined
      ? await resolveFeatures(options, train, scheme, signal)
      : { preset: continued.preset, ...definedFields({ features: continued.features }), notes: [] };
  // Before a single attribute of the corpus exists: a template's expansion, lexicon and cluster
  // features can pass the bound long before the layout's estimate can be made.
  checkFeatureMemory(
    train,
    features,
    featureSource(options, features.preset),
    trainingMemoryLimit(options.maxMemory),
  );
  const objectiveName = (options.objective ?? "crf") as TrainingObjectiveName;
  note(
    `training ${options.algorithm} on ${train.sentences.length} sequences (${train.label}), ${init !== undefined ? `continuing ${init.file} (preset ${features.preset})` : options.template === undefined ? `preset ${options.preset}` : `template ${options.template}`}, ${objectiveText(objectiveName, options.bcrfIterations)}, scheme ${scheme}${options.scheme === undefined && continued?.scheme === undefined ? " (from the data)" : ""}`,
  );
  const trainer = openTrainer(trainingSpec(options, threads, scheme), {
    features,
    ...definedFields({
      dev,
      init:
        init === undefined || continued === undefined
          ? undefined
          : { model: init.model, settings: { ...continued.settings, initModel: init.identity } },
      signal,
    }),
    ...memoryOptions(options.maxMemory, options.model === "general"),
  });
  // A jackknife fold's chain CRF trains on a subset: its features (lexicons mined from its own
  // sentences) are resolved again, never the whole corpus's, whose mined entries would leak.
  const featuresOf = (corpus: Corpus) =>
    corpus === train || features.jackknife === undefined
      ? Promise.resolve(features)
      : resolveFeatures(options, corpus, scheme, signal, true);
  if (options.model === "general") {
    return trainGeneral(
      options,
      train,
      scheme,
      trainer,
      featuresOf,
      registry ?? standardDecoders(),
    );
  }
  let result: TrainedByTrainer;
  let twoStageText = "";
  if (options.twoStage === true) {
    const trained = await trainTwoStageModel(options, train, features, trainer);
    result = trained.result;
    twoStageText = trained.text;
  } else {
    const rule = trainer.heldOut;
    const cut = rule === undefined ? null : tuningCut(train, rule);
    if (rule !== undefined) {
      note(
        cut === null
          ? `task preset ${trainer.task?.name}: ${train.label} has too few documents for its held-out stopping rule (${rule.minUnits} or more); the loss rule instead`
          : `task preset ${trainer.task?.name}: stopping on a tuning fold of ${cut.tuning.sentences.length} sentences (whole documents of ${train.label}; lexicons mined from the other ${cut.rest.sentences.length}), scored every ${rule.every} iterations, patience ${rule.patience}, at most ${rule.maxIterations} (--max-iterations, --delta or --dev replace this rule)`,
      );
    }
    const bar = progressBar("train", cut === null ? trainer.limit : rule?.maxIterations);
    const held = cut === null ? "dev" : "tuning";
    try {
      result = await trainer.train(train, (p) => bar.update(p.iteration, iterationDetail(p, held)));
    } finally {
      bar.stop();
    }
  }
  noteInvalidGold(train, scheme, result.schemeCheck);
  if (options.partial === true) {
    note(
      `${train.label}: ${result.partialSentences} of ${train.sentences.length} sequences partially annotated (unknown labels or label sets; training marginalises over the labellings they allow)`,
    );
  }
  if (dev !== undefined && result.heldOutExcluded > 0) {
    note(
      `${dev.label}: ${result.heldOutExcluded} of ${dev.sentences.length} sequences partially annotated, left out of the dev evaluation${result.heldOutExcluded === dev.sentences.length ? " (none is left: no dev scores)" : ""}`,
    );
  }
  const documents =
    trainer.documentConstraints && options.twoStage !== true && init === undefined
      ? await learnDocumentConstraintsOf(train, result.model, trainer, featuresOf)
      : undefined;
  const best = result.bestHeldOut;
  const excluded =
    result.heldOutExcluded > 0 ? `, ${result.heldOutExcluded} partially annotated left out` : "";
  const bestText =
    best === undefined || result.tuning !== undefined
      ? ""
      : `; best dev: ${scoresText(best)} at iteration ${best.iteration}${excluded}`;
  return {
    model: documents?.model ?? result.model,
    summary: `trained ${featuresText(result)}, ${result.model.numLabels} labels in ${result.iterations} iterations (${stoppingText(result)}), ${result.seconds.toFixed(1)} s${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${twoStageText}${init === undefined ? "" : continuedText(init, result.model)}${bestText}${documents === undefined ? "" : `; ${documents.line}`}; wrote ${options.out}\n`,
  };
}

/**
 * A NER task preset's document constraints: jackknifed folds of train trained as the model was,
 * penalties learned on all but one, kept when that held-out fold gains; recorded in the model
 * (with decoder soft-dd) only then. A corpus without enough documents keeps the chain alone.
 */
async function learnDocumentConstraintsOf(
  train: Corpus,
  model: CrfModel,
  trainer: Trainer,
  featuresOf: (corpus: Corpus) => Promise<TrainingFeatures>,
): Promise<{ model: CrfModel; line: string }> {
  const folds = DOCUMENT_JACKKNIFE_FOLDS;
  // Without document marks the learner groups tweets as the general CRF does.
  const { grouping, groups } = documentGroupsOf(train.sentences);
  if (groups.length < 2 * folds) {
    return {
      model,
      line: `document constraints: none learned (${train.label} has ${groups.length} ${grouping === "documents" ? "document(s)" : "tweet group(s)"}; the jackknife needs ${2 * folds} or more)`,
    };
  }
  note(
    `document constraints: training ${folds} jackknife folds of ${train.label} as the model was, then learning penalties on ${folds - 1} of them and checking on the last`,
  );
  const bar = progressBar("folds", folds);
  let selected: SelectedDocumentConstraints;
  try {
    selected = await trainer.learnDocumentConstraints(train, model, {
      folds,
      featuresOf,
      onProgress: (p) => {
        if (p.stage === "crf") bar.update(p.fold, "chain CRFs");
        else if (p.stage === "penalties") {
          note(
            `  epoch ${p.epoch.epoch}: ${p.epoch.mistakes} documents wrong, ${p.epoch.nonZero} penalties > 0, ${(100 * p.epoch.certifiedRate).toFixed(1)}% certified`,
          );
        }
      },
    });
  } finally {
    bar.stop();
  }
  return {
    model: withDocumentConstraints(model, selected, { data: train.label }),
    line: documentConstraintsLine(selected),
  };
}

/** The objective as the training note names it: `objective bcrf (10 IBP half-steps)`. */
function objectiveText(name: TrainingObjectiveName, iterations: number | undefined): string {
  if (name === "crf") return "objective crf (likelihood)";
  const k = objectiveIterations(name, iterations);
  return `objective ${name} (${k} ${name === "bcrf" ? "IBP half-steps" : "unrolled mean-field updates"})`;
}

const onOff = (mode: "on" | "off" | undefined): boolean | undefined =>
  mode === undefined ? undefined : mode === "on";

/** The features the options ask for: a preset, a task preset's bundle, a template, resources. */
async function resolveFeatures(
  options: TrainOptions,
  train: Corpus,
  scheme: LabelScheme,
  signal: AbortSignal | undefined,
  quiet = false,
): Promise<TrainingFeatures> {
  const template =
    options.template === undefined
      ? undefined
      : {
          text: await readNamedText("--template", options.template, signal),
          source: options.template,
        };
  let bar: ReturnType<typeof progressBar> | undefined;
  let barStage = "";
  try {
    const resolved = await trainingFeatures(
      {
        ...definedFields({
          preset: options.preset,
          template,
          columns: options.columns,
          clusterFiles: options.clusters,
          denseColumns: options.denseColumns,
          // A two-stage model's first stage is jackknifed over the mined lexicons' folds.
          folds: options.twoStage === true ? (options.folds ?? TWO_STAGE_FOLDS) : undefined,
        }),
        lexiconFiles: (options.lexicon ?? []).map(lexiconArgument),
        use: definedFields({
          context: onOff(options.documentContext),
          largeGazetteers: onOff(options.largeGazetteers),
          wideClusters: onOff(options.wideClusters),
          embeddings: onOff(options.embeddings),
        }),
      },
      train,
      scheme,
      {
        ...definedFields({ resourcesDir: options.resources, signal }),
        onProgress: (stage, done, total) => {
          // One bar per stage: each Brown clustering, the word vectors, k-means at each k.
          if (stage !== barStage) {
            bar?.stop();
            const what = /^embeddings-[a-z]+$/.test(stage)
              ? "PPMI-SVD word vectors of the raw text"
              : stage.startsWith("embeddings-")
                ? "k-means of the word vectors"
                : "Brown clustering of the raw text";
            note(`${stage}: ${what} (once; the result is cached)`);
            bar = progressBar(stage, total);
            barStage = stage;
          }
          bar?.update(done, stage.startsWith("embeddings-") ? "passes" : "merges");
        },
      },
    );
    if (!quiet) for (const line of resolved.notes) note(line);
    return resolved;
  } finally {
    bar?.stop();
  }
}

/** What generates a run's attributes, in the flags that set it: `--template x.tpl, --lexicon org`. */
function featureSource(options: TrainOptions, preset: string): string {
  const parts = [
    options.init !== undefined
      ? `--init ${options.init}`
      : options.template !== undefined
        ? `--template ${options.template}`
        : `--preset ${options.preset ?? preset}`,
    ...(options.lexicon ?? []).map((l) => `--lexicon ${l}`),
    ...(options.clusters ?? []).map((c) => `--clusters ${c}`),
  ];
  return parts.join(", ");
}

/**
 * `--two-stage`: the jackknifed first stages, the full one and the second stage under one
 * progress bar; returns the result and the summary's two-stage part.
 */
async function trainTwoStageModel(
  options: TrainOptions,
  train: Corpus,
  features: TrainingFeatures,
  trainer: Trainer,
): Promise<{ result: TrainedTwoStage; text: string }> {
  // A task preset's mined lexicons were jackknifed over these very folds (resolveFeatures).
  const folds = features.jackknife?.specs.length ?? options.folds ?? TWO_STAGE_FOLDS;
  const byDocument = train.sentences.some((s) => s.document !== undefined);
  note(
    `two-stage: ${folds} first-stage CRFs jackknifed by ${byDocument ? "documents" : "blocks of 20 sentences (the data marks no documents)"}, a first stage on all the data, then the second stage on their votes`,
  );
  const limit = trainer.limit;
  let step = "";
  // Without a cap the bar counts the iterations of every stage so far.
  let base = 0;
  let current = 0;
  const bar = progressBar("train", limit === undefined ? undefined : (folds + 2) * limit);
  try {
    const result = await trainer.trainTwoStage(train, {
      folds,
      onProgress: (p) => {
        current = p.iteration;
        bar.update(base + current, `${step}: ${iterationDetail(p)}`);
      },
      onStage: (stage) => {
        const done =
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

/** CRFsuite's data (`label TAB name[:value] …`), a file named by `option`. */
async function readInstances(
  option: string,
  path: string,
  signal: AbortSignal | undefined,
): Promise<CrfsuiteCorpus> {
  requireFile(option, path);
  const instances: CrfsuiteInstance[] = [];
  for await (const instance of readCrfsuite(path, definedFields({ signal }))) {
    instances.push(instance);
  }
  return { label: path, instances };
}

/** `lagrange train --format crfsuite`: a chain CRF on the data's own (real-valued) attributes. */
export async function trainCrfsuiteModel(
  options: TrainOptions,
  threads: number | undefined,
  signal: AbortSignal | undefined,
): Promise<{ model: CrfModel; summary: string }> {
  const train = subsetInstances(
    await readInstances("--data", options.data, signal),
    options,
    "data",
  );
  const dev =
    options.dev === undefined
      ? undefined
      : subsetInstances(await readInstances("--dev", options.dev, signal), options, "dev");
  const scheme =
    options.scheme === undefined ? undefined : parseLabelScheme(options.scheme, "--scheme");
  // No --init here: checkCrfsuiteTrainOptions refuses it.
  const trainer = openTrainer(trainingSpec(options, threads, scheme), {
    ...definedFields({ signal }),
    ...memoryOptions(options.maxMemory, false),
  });
  const objectiveName = options.objective ?? "crf";
  const tokens = train.instances.reduce((sum, i) => sum + i.labels.length, 0);
  note(
    `training ${options.algorithm} on ${train.instances.length} sequences, ${tokens} items (${train.label}, CRFsuite format: attributes as given, values scaling their weights), objective ${objectiveName}`,
  );
  const bar = progressBar("train", trainer.limit);
  let result: Awaited<ReturnType<typeof trainer.trainCrfsuite>>;
  try {
    result = await trainer.trainCrfsuite(train, dev, (p) =>
      bar.update(p.iteration, iterationDetail(p)),
    );
  } finally {
    bar.stop();
  }
  const best = result.bestHeldOut;
  return {
    model: result.model,
    summary: `trained ${featuresText(result)}, ${result.model.numLabels} labels in ${result.iterations} iterations (${STOP_REASON_TEXT[result.stopReason]}), ${result.seconds.toFixed(1)} s, scheme ${result.scheme}${objectiveName === "crf" ? "" : ` (objective ${objectiveName})`}${best === undefined ? "" : `; best dev: ${scoresText(best)} at iteration ${best.iteration}`}; wrote ${options.out}\n`,
  };
}

/** The features trained, and where L1 zeroed some, how many the model file keeps. */
function featuresText(result: { readonly numFeatures: number; readonly model: CrfModel }): string {
  const kept = result.model.layout.numWeights;
  return kept < result.numFeatures
    ? `${result.numFeatures} features (${kept} non-zero kept: L1)`
    : `${result.numFeatures} features`;
}
