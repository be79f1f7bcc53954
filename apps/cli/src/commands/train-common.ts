import { createHash } from "node:crypto";
import type { TrainingObjectiveName } from "@lagrange/bcrf";
import {
  type CrfModel,
  crfsuiteModelFromBytes,
  loadModelFromBytes,
  type TrainingAlgorithm,
  type TrainingProgress,
} from "@lagrange/chain-crf";
import type { JsonValue } from "@lagrange/core";
import {
  type Corpus,
  type CorpusSubset,
  corpusLocator,
  type LabelScheme,
  type SchemeCheck,
  type SchemeName,
  subsetCorpus,
  subsetItems,
  wordColumnOnly,
} from "@lagrange/datasets";
import { isL2sModelFile } from "@lagrange/l2s";
import { definedFields, type TrainingSpec } from "@lagrange/recipes";
import type { TrainingDataOptions, TrainOptions } from "../define/train-values.js";
import { usageError } from "../exit-codes.js";
import { openData, readModelBytes } from "../inputs.js";
import { note } from "../progress.js";

export type TrainingRead = ReturnType<typeof trainingRead>;

/** How `--data` and `--dev` are read: `--format` (else `format`), malformed lines skipped by default. */
export function trainingRead(
  options: TrainingDataOptions,
  signal: AbortSignal | undefined,
  format?: string,
) {
  return {
    ...definedFields({ format: options.format ?? format, signal }),
    malformed: options.malformed ?? "skip",
  } as const;
}

/** `--data`, with a note of the malformed lines skipped or repaired. */
export async function openTrainingData(
  options: TrainingDataOptions,
  read: TrainingRead,
): Promise<Corpus> {
  const train = await openData("--data", options.data, read);
  if (train.report !== undefined && (train.report.skipped > 0 || train.report.repaired > 0)) {
    note(
      `${train.label}: ${train.report.skipped} malformed lines skipped, ${train.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  return wordsAsAsked(trainingSubset(train, options), options);
}

/** `--words-only`: the corpus through its word column alone. */
function wordsAsAsked(corpus: Corpus, options: TrainingDataOptions): Corpus {
  return options.wordsOnly === true ? wordColumnOnly(corpus) : corpus;
}

/** `--limit`, `--sample`: the training sentences kept (all of them without either). */
export function trainingSubset(train: Corpus, options: TrainingDataOptions): Corpus {
  return subsetCorpus(train, subsetOf(options.limit, options.sample, options.seed));
}

/**
 * CRFsuite instances cut as `--limit`/`--sample` say (`--dev-limit`/`--dev-sample` for `dev`),
 * the label saying what was kept, as {@link trainingSubset} does for sentences.
 */
export function subsetInstances<T>(
  corpus: { readonly label: string; readonly instances: readonly T[] },
  options: TrainingDataOptions,
  of: "data" | "dev",
): { label: string; instances: T[] } {
  const subset =
    of === "data"
      ? subsetOf(options.limit, options.sample, options.seed)
      : subsetOf(options.devLimit, options.devSample, options.seed);
  const { items, kept } = subsetItems(corpus.instances, subset);
  return { label: kept === "" ? corpus.label : `${corpus.label}[${kept}]`, instances: items };
}

/** A subset as the options give it: also a model setting, hence JSON (no undefined values). */
function subsetOf(
  limit?: number,
  sample?: number,
  seed?: number,
): CorpusSubset & { readonly [key: string]: number } {
  return definedFields({ limit, sample, seed: sample === undefined ? undefined : (seed ?? 1) });
}

/**
 * The subsets a model was trained and scored on, for its settings (a model says what it saw):
 * `{ data: { limit: 1000 }, dev: { sample: 500, seed: 1 } }`; undefined when the data was whole.
 */
export function subsetSettings(
  options: TrainingDataOptions,
): { readonly [key: string]: JsonValue } | undefined {
  const data = subsetOf(options.limit, options.sample, options.seed);
  const dev = subsetOf(options.devLimit, options.devSample, options.seed);
  const settings = {
    ...(Object.keys(data).length === 0 ? {} : { data }),
    ...(options.dev === undefined || Object.keys(dev).length === 0 ? {} : { dev }),
  };
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** `--dev` (a registry name's default split: dev), when given. */
export async function openHeldOut(
  options: TrainingDataOptions,
  read: TrainingRead,
): Promise<Corpus | undefined> {
  if (options.dev === undefined) return undefined;
  const dev = await openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
  return wordsAsAsked(
    subsetCorpus(dev, subsetOf(options.devLimit, options.devSample, options.seed)),
    options,
  );
}

export const pct = (x: number) => (100 * x).toFixed(2);

/** Held-out scores as the summary line gives them: `acc 95.10%, F1 88.20` (no F1 for plain tags). */
export function scoresText(scores: {
  readonly tokenAccuracy: number;
  readonly f1?: number;
}): string {
  return `acc ${pct(scores.tokenAccuracy)}%${scores.f1 === undefined ? "" : `, F1 ${pct(scores.f1)}`}`;
}

/**
 * The progress bar's detail of one CRF iteration: its loss, and the held-out scores when
 * evaluated (`split`: `dev`, or a task preset's `tuning` fold).
 */
export function iterationDetail(p: TrainingProgress, split = "dev"): string {
  const held =
    p.heldOut === undefined
      ? ""
      : ` ${split} acc ${(100 * p.heldOut.tokenAccuracy).toFixed(2)}${p.heldOut.f1 === undefined ? "" : ` F1 ${(100 * p.heldOut.f1).toFixed(2)}`}`;
  return `loss ${p.loss.toFixed(2)}${held}`;
}

/** The gold sequences the scheme rejects, trained on as they are: how many, and the first. */
export function noteInvalidGold(train: Corpus, scheme: LabelScheme, check: SchemeCheck): void {
  const first = check.first;
  if (first === undefined) return;
  note(
    `${train.label}: ${check.invalid} gold sequences are invalid under ${scheme} (trained on as they are; the first, at ${corpusLocator(train)(first.index, first.position)}: ${first.message})`,
  );
}

/** `--internal-scheme`: `keep`, or a flat chunk scheme (checked by commander's choices). */
function internalSchemeOption(given: string | undefined): SchemeName | "keep" | undefined {
  return given as SchemeName | "keep" | undefined;
}

/** What the CRF learner's flags ask of the trainer (`threads`: `--threads`, resolved). */
export function trainingSpec(
  options: TrainOptions,
  threads: number | undefined,
  scheme?: LabelScheme,
): TrainingSpec {
  return {
    algorithm: options.algorithm as TrainingAlgorithm,
    ...definedFields({
      c1: options.c1,
      c2: options.c2,
      maxIterations: options.maxIterations,
      delta: options.delta,
      threads,
      minAttributeFrequency: options.minFreq,
      patience: options.patience,
      constrainedTraining: options.constrainedTraining,
      classWeights: options.classWeight,
      allowNoProgress: options.allowNoProgress,
      objective: options.objective as TrainingObjectiveName | undefined,
      objectiveIterations: options.bcrfIterations,
      partialLabels: options.partial,
      scheme,
      model: options.model,
      groups: options.groups,
      twoStage: options.twoStage,
      folds: options.folds,
      documentConstraints: options.documentConstraints,
      internalScheme: internalSchemeOption(options.internalScheme),
    }),
    ...(options.order === "2"
      ? { order: 2, trigrams: options.trigrams === "all" ? "all" : "observed" }
      : {}),
  };
}

/** The model `--init` names: read, and identified by its bytes. */
export interface InitModel {
  readonly model: CrfModel;
  readonly file: string;
  /** What the continued model records of it: the file, its SHA-256, its kind. */
  readonly identity: { readonly [key: string]: JsonValue };
}

/**
 * `--init`: a Lagrange CRF model file, or a CRFsuite one (read as `lagrange import` reads it).
 * A missing or unreadable file is a usage error naming it; a malformed one is bad input naming it.
 */
export async function readInitModel(path: string, signal?: AbortSignal): Promise<InitModel> {
  const bytes = await readModelBytes(path, "--init", signal);
  if (isL2sModelFile(bytes)) {
    throw usageError(
      `--init ${path}: a learning-to-search model; --init continues a CRF model (from lagrange train, or a CRFsuite model)`,
    );
  }
  const crfsuite = bytes.length >= 4 && new TextDecoder().decode(bytes.subarray(0, 4)) === "lCRF";
  const model = crfsuite ? crfsuiteModelFromBytes(bytes, path) : loadModelFromBytes(bytes, path);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return {
    model,
    file: path,
    identity: { file: path, sha256, kind: crfsuite ? "crfsuite" : "lagrange" },
  };
}

/** The summary's words for what continued training added: "continued from m.lgm (+1 label, +20 attributes)". */
export function continuedText(init: InitModel, model: CrfModel): string {
  const labels = model.labels.size - init.model.labels.size;
  const attributes = model.attributes.size - init.model.attributes.size;
  const plural = (n: number, word: string) => `+${n} ${word}${n === 1 ? "" : "s"}`;
  return `; continued from ${init.file} (${plural(labels, "label")}, ${plural(attributes, "attribute")})`;
}
