import {
  getPreset,
  modelToBytes,
  TRAINING_ALGORITHMS,
  type TrainingAlgorithm,
} from "@lagrange/chain-crf";
import { corpusLocator, parseLabelScheme } from "@lagrange/datasets";
import { type TrainedOnCorpus, trainOnCorpus } from "@lagrange/recipes";
import { type Command, Option } from "commander";
import { usageError } from "../exit-codes.ts";
import { openData } from "../inputs.ts";
import { interruptible } from "../interruption.ts";
import { malformedOption, parseInteger, parseNonNegative, threadCount } from "../options.ts";
import { writeOutput } from "../output.ts";
import { note, progressBar, warn } from "../progress.ts";

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
  readonly constrainedTraining?: boolean;
  readonly scheme?: string;
  readonly malformed?: "error" | "repair" | "skip";
  /** Write the model even when training made no progress (0 iterations, a diverged loss). */
  readonly allowNoProgress?: boolean;
  readonly out: string;
}

/** `lagrange train`: returns the summary line; the model is written atomically. */
export async function trainCommand(options: TrainOptions, signal?: AbortSignal): Promise<string> {
  checkTrainOptions(options);
  const threads = options.threads === undefined ? undefined : threadCount(options.threads);
  // The output first: an unwritable path, or one that is the training data, fails now, not after
  // the training.
  const inputs = [options.data, options.dev];
  return writeOutput(options.out, { option: "--out", inputs }, async (output) => {
    const trained = await train(options, threads, signal);
    await output.write(modelToBytes(trained.result.model));
    return trained.summary;
  });
}

async function train(
  options: TrainOptions,
  threads: number | undefined,
  signal: AbortSignal | undefined,
): Promise<{ result: TrainedOnCorpus; summary: string }> {
  const read = {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
    ...(signal === undefined ? {} : { signal }),
  };
  const train = await openData("--data", options.data, read);
  if (train.report !== undefined && (train.report.skipped > 0 || train.report.repaired > 0)) {
    note(
      `${train.label}: ${train.report.skipped} malformed lines skipped, ${train.report.repaired} repaired (--malformed error to stop on them)`,
    );
  }
  const scheme =
    options.scheme === undefined ? train.scheme : parseLabelScheme(options.scheme, "--scheme");
  const dev =
    options.dev === undefined
      ? undefined
      : await openData("--dev", options.dev, { ...read, defaultSplit: "dev" });
  const limit =
    options.maxIterations ??
    (options.algorithm === "lbfgs" || options.algorithm === "owlqn" ? 200 : 10);
  note(
    `training ${options.algorithm} on ${train.sentences.length} sequences (${train.label}), preset ${options.preset}, scheme ${scheme}${options.scheme === undefined ? " (from the data)" : ""}`,
  );
  const bar = progressBar("train", limit);
  let result: TrainedOnCorpus;
  try {
    result = await trainOnCorpus(train, {
      preset: options.preset,
      scheme,
      algorithm: options.algorithm as TrainingAlgorithm,
      ...(options.c1 === undefined ? {} : { c1: options.c1 }),
      ...(options.c2 === undefined ? {} : { c2: options.c2 }),
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      ...(threads === undefined ? {} : { threads }),
      ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
      ...(dev === undefined ? {} : { dev }),
      ...(options.patience === undefined ? {} : { patience: options.patience }),
      ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
      ...(options.allowNoProgress === true ? { allowNoProgress: true } : {}),
      onProgress: (p) => {
        const held =
          p.heldOut === undefined
            ? ""
            : ` dev acc ${(100 * p.heldOut.tokenAccuracy).toFixed(2)}${p.heldOut.f1 === undefined ? "" : ` F1 ${(100 * p.heldOut.f1).toFixed(2)}`}`;
        bar.update(Math.min(p.iteration, limit), `loss ${p.loss.toFixed(2)}${held}`);
      },
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    bar.stop();
  }
  const first = result.schemeCheck.first;
  if (first !== undefined) {
    note(
      `${train.label}: ${result.schemeCheck.invalid} gold sequences are invalid under ${scheme} (trained on as they are; the first, at ${corpusLocator(train)(first.index, first.position)}: ${first.message})`,
    );
  }
  const best = result.bestHeldOut;
  const bestText =
    best === undefined
      ? ""
      : `; best dev: acc ${(100 * best.tokenAccuracy).toFixed(2)}%${best.f1 === undefined ? "" : `, F1 ${(100 * best.f1).toFixed(2)}`} at iteration ${best.iteration}`;
  return {
    result,
    summary: `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${result.stopReason}), ${result.seconds.toFixed(1)} s${bestText}; wrote ${options.out}\n`,
  };
}

/** Options that would be ignored are said so (the run goes on); impossible ones stop it. */
function checkTrainOptions(options: TrainOptions): void {
  getPreset(options.preset); // an unknown name is a usage error before anything is read
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  const { algorithm } = options;
  const quasiNewton = algorithm === "lbfgs" || algorithm === "owlqn";
  if (options.c1 !== undefined && !quasiNewton) {
    warn(
      `--c1 is used by --algorithm lbfgs and owlqn (L1 by OWL-QN) only; ignored with ${algorithm}`,
    );
  }
  if (algorithm === "sgd" && options.c2 === 0) {
    throw usageError(
      "--c2 0 with --algorithm sgd: its step size 1/(λ(t0+t)), λ = 2·c2/N, needs c2 > 0",
    );
  }
  if (options.c2 !== undefined && algorithm === "ap") {
    warn("--c2 is not used by the averaged perceptron (ap); ignored");
  }
  if (options.threads !== undefined && !quasiNewton) {
    warn(`--threads parallelises the L-BFGS objective only; ignored with ${algorithm}`);
  }
  if (options.patience !== undefined && options.dev === undefined) {
    warn("--patience needs --dev (early stopping watches held-out data); ignored");
  }
}

export function registerTrain(program: Command): void {
  program
    .command("train")
    .description("Train a linear-chain CRF and write a model file")
    .requiredOption(
      "--data <spec>",
      "training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline (default from the extension)",
    )
    .requiredOption("--preset <name>", "feature preset: chunking, ner, citation, pos")
    .addOption(
      new Option("--algorithm <name>", "trainer")
        .choices([...TRAINING_ALGORITHMS])
        .default("lbfgs"),
    )
    .option(
      "--c1 <x>",
      "L1 coefficient c1·‖w‖₁ (lbfgs, owlqn: optimised by OWL-QN; default 1 for owlqn, else 0)",
      parseNonNegative,
    )
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNonNegative)
    .option("--max-iterations <n>", "iterations (L-BFGS) or epochs (perceptron, SGD)", parseInteger)
    .option(
      "--threads <n>",
      "worker threads for the L-BFGS objective (at most the number of cores)",
      parseInteger,
    )
    .option("--min-freq <n>", "keep attributes seen at least n times", parseInteger)
    .option(
      "--dev <spec>",
      "held-out data evaluated during training (registry name[:split] or path)",
    )
    .option("--patience <n>", "early stopping: evaluations without dev improvement", parseInteger)
    .option(
      "--constrained-training",
      "train under the scheme's transition mask (likelihood over valid labellings only)",
    )
    .option(
      "--scheme <name>",
      "label scheme for decoding and evaluation: IOB2, IOB1, IOE1, IOE2, BIOES, BILOU, hierarchical-BIO, none (default: the data's — the registry's, UMass ⇒ hierarchical-BIO, or read off the labels)",
    )
    .addOption(malformedOption())
    .option(
      "--allow-no-progress",
      "write the model even when training made no progress (0 iterations or a diverged loss); by default that is an error (exit 1)",
    )
    .requiredOption(
      "--out <model>",
      "model file to write (atomically; checked before training; never one of the inputs)",
    )
    .action(async (opts: TrainOptions) => {
      process.stdout.write(await interruptible((signal) => trainCommand(opts, signal)));
    });
}
