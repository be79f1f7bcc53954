/** Lagrange's side of `crf-vs-crfsuite`, in its own process so that its peak memory is its own. */

import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { saveModel, trainCrf } from "@lagrange/chain-crf";
import { peakRssMB, type SystemJob, type SystemReport } from "./protocol.js";
import { extractSplit } from "./shared-data.js";

export async function runLagrange(job: SystemJob): Promise<SystemReport> {
  const train = await extractSplit(job, job.trainSplit, job.maxTrainSentences);
  const test = await extractSplit(job, job.testSplit);
  const sequences = train.attributes.map((attributes, i) => ({
    attributes,
    labels: train.sentences[i]!.labels!,
  }));
  // Same clock as the CRFsuite child: from handing over the extracted attributes to a trained model.
  const started = performance.now();
  const result = await trainCrf(sequences, {
    algorithm: "lbfgs",
    c2: job.c2,
    threads: job.threads ?? 1,
    ...(job.maxIterations === undefined ? {} : { maxIterations: job.maxIterations }),
    preset: job.preset,
  });
  // CRFsuite's train() writes its model file too.
  await saveModel(result.model, join(job.workDir, "lagrange.model"));
  const trainSeconds = (performance.now() - started) / 1000;

  const model = result.model;
  const predictions: string[][] = new Array(test.sentences.length);
  let tokens = 0;
  const tagStarted = performance.now();
  for (let i = 0; i < test.attributes.length; i++) {
    predictions[i] = model.tag(test.attributes[i]!);
    tokens += predictions[i]!.length;
  }
  const tagSeconds = (performance.now() - tagStarted) / 1000;
  return {
    system: "lagrange",
    trainSeconds,
    trainIterations: result.iterations,
    tagSeconds,
    tagTokens: tokens,
    tagTokensPerSecond: tokens / tagSeconds,
    peakRssMB: peakRssMB(),
    predictions,
    features: result.numFeatures,
  };
}
