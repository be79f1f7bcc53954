/** Lagrange's side of `crf-vs-crfsuite`, in its own process so that its peak memory is its own. */

import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type AttributeSequence, type CrfModel, saveModel, trainCrf } from "@lagrange/chain-crf";
import { decodingMask } from "@lagrange/datasets";
import {
  type Decoding,
  type DecodingReport,
  peakRssMB,
  type SystemJob,
  type SystemReport,
  timedPasses,
} from "./protocol.js";
import { extractionThroughput, extractSplit } from "./shared-data.js";

export async function runLagrange(job: SystemJob): Promise<SystemReport> {
  const train = await extractSplit(job, job.trainSplit, job.maxTrainSentences);
  const test = await extractSplit(job, job.testSplit);
  const sequences = train.attributes.map((attributes, i) => ({
    attributes,
    labels: train.sentences[i]!.labels!,
  }));
  const scheme = job.scheme;
  const decodings: readonly Decoding[] = job.decodings ?? ["plain"];
  if (scheme === undefined && decodings.some((d) => d !== "plain")) {
    throw new Error(`decodings ${decodings.join(", ")} need a label scheme`);
  }
  // Same clock as the CRFsuite child: from handing over the extracted attributes to a trained model.
  const started = performance.now();
  const result = await trainCrf(sequences, {
    algorithm: "lbfgs",
    c2: job.c2,
    threads: job.threads ?? 1,
    ...(job.maxIterations === undefined ? {} : { maxIterations: job.maxIterations }),
    // The citation recipe's configuration (trainOnCorpus): the model decodes under the scheme's
    // mask; the objective is unconstrained, as CRFsuite's is.
    ...(scheme === undefined
      ? {}
      : { constraintsFor: (labels: readonly string[]) => decodingMask(labels, scheme) ?? {} }),
    preset: job.preset,
    ...(scheme === undefined ? {} : { settings: { scheme } }),
  });
  // CRFsuite's train() writes its model file too.
  await saveModel(result.model, join(job.workDir, "lagrange.model"));
  const trainSeconds = (performance.now() - started) / 1000;

  const extractTokensPerSecond = extractionThroughput(job, test.sentences);
  const reports: DecodingReport[] = decodings.map((decoding) =>
    decode(
      decoding === "no mask" ? result.model.withConstraints({}) : result.model,
      decoding,
      test.attributes,
      job.minTagSeconds ?? 1,
    ),
  );
  return {
    system: "lagrange",
    trainSeconds,
    trainIterations: result.iterations,
    trainSequences: sequences.length,
    extractTokensPerSecond,
    decodings: reports,
    peakRssMB: peakRssMB(),
    features: result.numFeatures,
    labels: result.model.labels.size,
  };
}

/** `model.tag` over attributes extracted beforehand: decoding throughput alone. */
function decode(
  model: CrfModel,
  decoding: Decoding,
  attributes: readonly AttributeSequence[],
  minSeconds: number,
): DecodingReport {
  let predictions: string[][] | undefined;
  const { seconds, tokens } = timedPasses(attributes.length, minSeconds, (limit) => {
    const out: string[][] = new Array(limit);
    let n = 0;
    for (let i = 0; i < limit; i++) {
      out[i] = model.tag(attributes[i]!);
      n += out[i]!.length;
    }
    if (predictions === undefined && limit === attributes.length) predictions = out;
    return n;
  });
  return {
    decoding,
    tagSeconds: seconds,
    tagTokens: tokens,
    tagTokensPerSecond: tokens / seconds,
    predictions: predictions ?? [],
  };
}
