import {
  saveModel,
  TRAINING_ALGORITHMS,
  type TrainCrfOptions,
  type TrainingAlgorithm,
  trainCrf,
} from "@lagrange/chain-crf";
import { evaluateChunks, evaluateSegments, evaluateTokens } from "@lagrange/datasets";
import { loadData, type MalformedPolicy } from "../data-source.ts";
import { CliError, ExitCode } from "../exit-codes.ts";
import { note, progressBar } from "../progress.ts";
import { decodingConstraints, extractAll } from "./model-io.ts";

export interface TrainOptions {
  readonly data: string;
  readonly format?: string;
  readonly preset: string;
  readonly algorithm: string;
  readonly c1?: number;
  readonly c2?: number;
  readonly maxIterations?: number;
  readonly threads?: number;
  readonly minFreq?: number;
  readonly dev?: string;
  readonly patience?: number;
  /** Normalise the likelihood over scheme-valid labellings only (gold must be valid). */
  readonly constrainedTraining?: boolean;
  readonly scheme?: string;
  readonly malformed?: MalformedPolicy;
  readonly out: string;
}

const DEFAULT_SCHEME: Record<string, string> = {
  conll2000: "IOB2",
  conll2003: "IOB1",
  "umass-citations": "hierarchical-BIO",
  "umass-citations-flat": "IOB2",
  wnut16: "IOB2",
  wnut17: "IOB2",
  "cora-references": "IOB2",
  "cora-headers": "IOB2",
  "ud-en-ewt": "none",
};

export async function trainCommand(options: TrainOptions, signal: AbortSignal): Promise<string> {
  if (!TRAINING_ALGORITHMS.includes(options.algorithm as TrainingAlgorithm)) {
    throw new CliError(
      `--algorithm must be one of ${TRAINING_ALGORITHMS.join(", ")}, got "${options.algorithm}"`,
      ExitCode.usage,
    );
  }
  const loadOptions = {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
  };
  const train = await loadData(options.data, loadOptions);
  if (train.report !== undefined && (train.report.skipped > 0 || train.report.repaired > 0)) {
    note(
      `${train.label}: ${train.report.skipped} malformed lines skipped, ${train.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  const scheme =
    options.scheme ??
    (train.dataset === undefined ? "IOB2" : (DEFAULT_SCHEME[train.dataset] ?? "IOB2"));
  const attributes = extractAll(options.preset, train.sentences);
  const sequences = train.sentences.map((s, i) => {
    if (s.labels === undefined)
      throw new CliError(
        `${train.label}: sentence ${i + 1} has no labels to train on`,
        ExitCode.badInput,
      );
    return { attributes: attributes[i]!, labels: s.labels };
  });
  let heldOut: TrainCrfOptions["heldOut"];
  if (options.dev !== undefined) {
    const dev = await loadData(options.dev, { ...loadOptions, defaultSplit: "dev" });
    const devAttributes = extractAll(options.preset, dev.sentences);
    const hierarchical = scheme === "hierarchical-BIO";
    heldOut = {
      sequences: dev.sentences.map((s, i) => ({
        attributes: devAttributes[i]!,
        labels: s.labels ?? [],
      })),
      score: (gold, predicted) => {
        if (scheme === "none") return { tokenAccuracy: evaluateTokens(gold, predicted).accuracy };
        const e = hierarchical
          ? evaluateSegments(gold, predicted)
          : evaluateChunks(gold, predicted);
        return { tokenAccuracy: e.tokenAccuracy, f1: e.f1 };
      },
      ...(options.patience === undefined ? {} : { patience: options.patience }),
    };
  }
  const limit =
    options.maxIterations ??
    (options.algorithm === "lbfgs" || options.algorithm === "owlqn" ? 200 : 10);
  const bar = progressBar("train", limit);
  note(
    `training ${options.algorithm} on ${sequences.length} sequences (${train.label}), preset ${options.preset}, scheme ${scheme}`,
  );
  const result = await trainCrf(sequences, {
    algorithm: options.algorithm as TrainingAlgorithm,
    ...(options.c1 === undefined ? {} : { c1: options.c1 }),
    ...(options.c2 === undefined ? {} : { c2: options.c2 }),
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
    ...(options.threads === undefined ? {} : { threads: options.threads }),
    ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
    ...(heldOut === undefined ? {} : { heldOut }),
    constraintsFor: (labels) => decodingConstraints(labels, scheme) ?? {},
    ...(options.constrainedTraining === true && scheme !== "none"
      ? { constrainedTraining: true }
      : {}),
    preset: options.preset,
    settings: { scheme, data: train.label },
    onProgress: (p) => {
      const held =
        p.heldOut === undefined
          ? ""
          : ` dev acc ${(100 * p.heldOut.tokenAccuracy).toFixed(2)}${p.heldOut.f1 === undefined ? "" : ` F1 ${(100 * p.heldOut.f1).toFixed(2)}`}`;
      bar.update(Math.min(p.iteration, limit), `loss ${p.loss.toFixed(2)}${held}`);
    },
    signal,
  });
  bar.stop();
  await saveModel(result.model, options.out);
  const best =
    result.bestHeldOut === undefined
      ? ""
      : `; best dev: acc ${(100 * result.bestHeldOut.tokenAccuracy).toFixed(2)}%${result.bestHeldOut.f1 === undefined ? "" : `, F1 ${(100 * result.bestHeldOut.f1).toFixed(2)}`} at iteration ${result.bestHeldOut.iteration}`;
  return `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${result.stopReason}), ${result.seconds.toFixed(1)} s${best}; wrote ${options.out}\n`;
}
