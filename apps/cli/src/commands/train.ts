import { NoStateAttributesError } from "@lagrange/chain-crf";
import type { DecoderRegistry } from "@lagrange/core";
import { standardDecoders } from "@lagrange/recipes";
import type { Command } from "commander";
import { GENERAL_DEFAULTS, type TrainOptions } from "../define/train-values.js";
import { badInputError, usageError } from "../exit-codes.js";
import { interruptible } from "../interruption.js";
import { givenOptions, threadCount } from "../options.js";
import { writeOutput } from "../output.js";
import { trainingRefusal } from "../training-memory.js";
import {
  checkCrfsuiteTrainOptions,
  checkFlagScopes,
  checkInitOptions,
  checkLearnerOptions,
  checkTrainOptions,
} from "./train-check.js";
import { subsetSettings } from "./train-common.js";
import { trainCrfModel, trainCrfsuiteModel } from "./train-crf.js";
import { trainL2sCommand } from "./train-l2s.js";

import { checkedCrfModelBytes } from "./train-output.js";

/**
 * `lagrange train`: returns the summary line; the model is written atomically. `given` holds the
 * options the command line set (defaults not counted), to refuse those of the other learner.
 */
export async function trainCommand(
  options: TrainOptions,
  signal?: AbortSignal,
  given: ReadonlySet<string> = new Set(),
): Promise<string> {
  const learner = options.learner ?? "crf";
  checkLearnerOptions(learner, options.task, given);
  if (learner === "l2s") {
    checkFlagScopes(options, given);
    return trainL2sCommand(options, signal);
  }
  // CRFsuite's data carries its attributes: no preset, template or resources apply.
  const crfsuite = options.format === "crfsuite";
  if (crfsuite) checkCrfsuiteTrainOptions(options);
  else checkTrainOptions(options);
  checkInitOptions(options);
  checkFlagScopes(options, given);
  const threads = options.threads === undefined ? undefined : threadCount(options.threads);
  // The perceptron's decoder before anything is read: an unknown one is a usage error now, and
  // HiGHS (exact) loads asynchronously.
  const registry = options.model === "general" ? await perceptronDecoder(options) : undefined;
  // The output first: an unwritable path, or one that is the training data, fails now, not after
  // the training.
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const trained = await (crfsuite
      ? trainCrfsuiteModel(options, threads, signal)
      : trainCrfModel(options, threads, registry, signal)
    ).catch((error: unknown) => {
      throw trainingRefusal(noFeaturesRefusal(error, options));
    });
    const subset = subsetSettings(options);
    const model = subset === undefined ? trained.model : trained.model.withSettings({ subset });
    await output.write(checkedCrfModelBytes(model, options));
    return trained.summary;
  });
}

/**
 * Features that give no token a state attribute (an empty template, one of B lines only, CRFsuite
 * data without attributes) are refused naming where the features come from.
 */
function noFeaturesRefusal(error: unknown, options: TrainOptions): unknown {
  if (!(error instanceof NoStateAttributesError)) return error;
  const source =
    options.format === "crfsuite"
      ? `--data ${options.data}: no item has an attribute`
      : options.template !== undefined
        ? `--template ${options.template}: no U line (state template) gives a token an attribute`
        : `--preset ${options.preset ?? "(the initial model's)"}: no token of --data ${options.data} gets an attribute`;
  return badInputError(
    `${source}, so the model would hold label transitions only and tag every sentence alike`,
  );
}

/** `--train-decoder`: a registered decoder that takes higher-order patterns, prepared. */
async function perceptronDecoder(options: TrainOptions): Promise<DecoderRegistry> {
  const registry = standardDecoders();
  const name = options.trainDecoder ?? GENERAL_DEFAULTS.trainDecoder;
  const definition = registry.decoder(name); // an unknown name is a usage error listing the known
  if (definition.accepts.patterns !== true) {
    const fit = registry
      .decoders()
      .filter((d) => d.accepts.patterns === true)
      .map((d) => d.name);
    throw usageError(
      `--train-decoder ${name} does not decode a general CRF's higher-order patterns; choose one of ${fit.join(", ")}`,
    );
  }
  await registry.prepare(name);
  return registry;
}

/** What `lagrange train` does (its options are declared in ../define/train.ts). */
export async function trainAction(opts: TrainOptions, command: Command): Promise<void> {
  const given = givenOptions(command);
  process.stdout.write(await interruptible((signal) => trainCommand(opts, signal, given)));
}
