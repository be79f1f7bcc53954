/**
 * The CRFsuite peer, run in its own process so that its peak memory is its own. The npm binding
 * always trains with L-BFGS (crf1d) and takes attribute names as they are.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadCrfsuiteBinding } from "./crfsuite-binding.js";
import { peakRssMB, type SystemJob, type SystemReport } from "./protocol.js";
import { attributeNamesPerToken, extractSplit } from "./shared-data.js";

export async function runCrfsuite(job: SystemJob): Promise<SystemReport> {
  const crfsuite = loadCrfsuiteBinding();
  if (crfsuite === null)
    throw new Error("the crfsuite npm binding is not built (pnpm install builds it)");
  const trainSplit = await extractSplit(job, job.trainSplit, job.maxTrainSentences);
  const testSplit = await extractSplit(job, job.testSplit);
  const train = {
    sentences: trainSplit.sentences,
    attributes: trainSplit.attributes.map(attributeNamesPerToken),
  };
  const test = {
    sentences: testSplit.sentences,
    attributes: testSplit.attributes.map(attributeNamesPerToken),
  };
  const modelPath = join(job.workDir, "crfsuite.model");

  // The binding has no log callback: with debug on, CRFsuite's log goes to this process's stdout,
  // where the parent counts the iterations.
  const trainer = new crfsuite.Trainer({ debug: true });
  const params: Record<string, string> = { c2: String(job.c2) };
  if (job.maxIterations !== undefined) params.max_iterations = String(job.maxIterations);
  trainer.set_params(params);
  const started = performance.now();
  for (let i = 0; i < train.sentences.length; i++) {
    trainer.append(train.attributes[i]!, train.sentences[i]!.labels!);
  }
  trainer.train(modelPath);
  const trainSeconds = (performance.now() - started) / 1000;

  const tagger = new crfsuite.Tagger();
  if (!tagger.open(modelPath)) throw new Error(`CRFsuite could not open ${modelPath}`);
  const predictions: string[][] = new Array(test.sentences.length);
  let tokens = 0;
  const tagStarted = performance.now();
  for (let i = 0; i < test.sentences.length; i++) {
    predictions[i] = tagger.tag(test.attributes[i]!);
    tokens += test.attributes[i]!.length;
  }
  const tagSeconds = (performance.now() - tagStarted) / 1000;
  return {
    system: "crfsuite",
    trainSeconds,
    tagSeconds,
    tagTokens: tokens,
    tagTokensPerSecond: tokens / tagSeconds,
    peakRssMB: peakRssMB(),
    predictions,
  };
}
