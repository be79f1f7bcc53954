import { saveModel, TRAINING_ALGORITHMS, type TrainingAlgorithm } from "@lagrange/chain-crf";
import { openCorpus, parseLabelScheme } from "@lagrange/datasets";
import { trainOnCorpus } from "@lagrange/recipes";
import { type Command, Option } from "commander";
import { malformedOption, parseInteger, parseNumber, withCtrlC } from "../options.ts";
import { note, progressBar } from "../progress.ts";

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
  readonly out: string;
}

/** `lagrange train`: returns the summary line; the model is written atomically. */
export async function trainCommand(options: TrainOptions, signal?: AbortSignal): Promise<string> {
  const read = {
    ...(options.format === undefined ? {} : { format: options.format }),
    malformed: options.malformed ?? "skip",
  };
  const train = await openCorpus(options.data, read);
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
      : await openCorpus(options.dev, { ...read, defaultSplit: "dev" });
  const limit =
    options.maxIterations ??
    (options.algorithm === "lbfgs" || options.algorithm === "owlqn" ? 200 : 10);
  note(
    `training ${options.algorithm} on ${train.sentences.length} sequences (${train.label}), preset ${options.preset}, scheme ${scheme}${options.scheme === undefined ? " (from the data)" : ""}`,
  );
  const bar = progressBar("train", limit);
  let result: Awaited<ReturnType<typeof trainOnCorpus>>;
  try {
    result = await trainOnCorpus(train, {
      preset: options.preset,
      scheme,
      algorithm: options.algorithm as TrainingAlgorithm,
      ...(options.c1 === undefined ? {} : { c1: options.c1 }),
      ...(options.c2 === undefined ? {} : { c2: options.c2 }),
      ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      ...(options.minFreq === undefined ? {} : { minAttributeFrequency: options.minFreq }),
      ...(dev === undefined ? {} : { dev }),
      ...(options.patience === undefined ? {} : { patience: options.patience }),
      ...(options.constrainedTraining === true ? { constrainedTraining: true } : {}),
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
  if (result.schemeCheck.invalid > 0) {
    note(
      `${train.label}: ${result.schemeCheck.invalid} gold sequences are invalid under ${scheme} (trained on as they are; the first: ${result.schemeCheck.first?.message})`,
    );
  }
  await saveModel(result.model, options.out);
  const best = result.bestHeldOut;
  const bestText =
    best === undefined
      ? ""
      : `; best dev: acc ${(100 * best.tokenAccuracy).toFixed(2)}%${best.f1 === undefined ? "" : `, F1 ${(100 * best.f1).toFixed(2)}`} at iteration ${best.iteration}`;
  return `trained ${result.numFeatures} features, ${result.model.numLabels} labels in ${result.iterations} iterations (${result.stopReason}), ${result.seconds.toFixed(1)} s${bestText}; wrote ${options.out}\n`;
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
    .option("--c1 <x>", "L1 coefficient (owlqn)", parseNumber)
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNumber)
    .option("--max-iterations <n>", "iterations (L-BFGS) or epochs (perceptron, SGD)", parseInteger)
    .option("--threads <n>", "worker threads for the L-BFGS objective", parseInteger)
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
    .requiredOption("--out <model>", "model file to write (atomically)")
    .action(async (opts: TrainOptions) => {
      process.stdout.write(await withCtrlC((signal) => trainCommand(opts, signal)));
    });
}
