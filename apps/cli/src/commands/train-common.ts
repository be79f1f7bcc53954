import type { TrainingProgress } from "@lagrange/chain-crf";
import { type Corpus, corpusLocator, type LabelScheme, type SchemeCheck } from "@lagrange/datasets";
import { openData } from "../inputs.js";
import { note } from "../progress.js";

/** What every learner of `lagrange train` reads of the data options. */
export interface TrainingDataOptions {
  readonly data: string;
  readonly format?: string;
  readonly dev?: string;
  readonly malformed?: "error" | "repair" | "skip";
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
  return train;
}

/** `--dev` (a registry name's default split: dev), when given. */
export async function openHeldOut(
  options: TrainingDataOptions,
  read: TrainingRead,
): Promise<Corpus | undefined> {
  if (options.dev === undefined) return undefined;
  return openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
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
