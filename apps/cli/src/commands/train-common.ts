import type { TrainingProgress } from "@lagrange/chain-crf";
import type { JsonValue } from "@lagrange/core";
import {
  type Corpus,
  type CorpusSubset,
  corpusLocator,
  type LabelScheme,
  type SchemeCheck,
  subsetCorpus,
  subsetItems,
} from "@lagrange/datasets";
import { openData } from "../inputs.js";
import { note } from "../progress.js";

/** What every learner of `lagrange train` reads of the data options. */
export interface TrainingDataOptions {
  readonly data: string;
  readonly format?: string;
  readonly dev?: string;
  readonly malformed?: "error" | "repair" | "skip";
  /** `--limit`, `--sample`: train on the first n sentences, or on n drawn with `seed`. */
  readonly limit?: number;
  readonly sample?: number;
  /** `--dev-limit`, `--dev-sample`: the same for the held-out data. */
  readonly devLimit?: number;
  readonly devSample?: number;
  readonly seed?: number;
}

export type TrainingRead = ReturnType<typeof trainingRead>;

/** How `--data` and `--dev` are read: `--format` (else `format`), malformed lines skipped by default. */
export function trainingRead(
  options: TrainingDataOptions,
  signal: AbortSignal | undefined,
  format?: string,
) {
  const chosen = options.format ?? format;
  return {
    ...(chosen === undefined ? {} : { format: chosen }),
    malformed: options.malformed ?? "skip",
    ...(signal === undefined ? {} : { signal }),
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
  return trainingSubset(train, options);
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
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(sample === undefined ? {} : { sample, seed: seed ?? 1 }),
  };
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
  return subsetCorpus(dev, subsetOf(options.devLimit, options.devSample, options.seed));
}

export const pct = (x: number) => (100 * x).toFixed(2);

/** Held-out scores as the summary line gives them: `acc 95.10%, F1 88.20` (no F1 for plain tags). */
export function scoresText(scores: {
  readonly tokenAccuracy: number;
  readonly f1?: number;
}): string {
  return `acc ${pct(scores.tokenAccuracy)}%${scores.f1 === undefined ? "" : `, F1 ${pct(scores.f1)}`}`;
}

/** The progress bar's detail of one CRF iteration: its loss, and the dev scores when evaluated. */
export function iterationDetail(p: TrainingProgress): string {
  const held =
    p.heldOut === undefined
      ? ""
      : ` dev acc ${(100 * p.heldOut.tokenAccuracy).toFixed(2)}${p.heldOut.f1 === undefined ? "" : ` F1 ${(100 * p.heldOut.f1).toFixed(2)}`}`;
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
