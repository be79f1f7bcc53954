/**
 * The CRFsuite peer, run in its own process so that its peak memory is its own. The npm binding
 * always trains with L-BFGS (crf1d) and takes attribute names as they are.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { peakRssMB, type SystemJob, type SystemReport } from "./protocol.ts";
import { loadSplit } from "./shared-data.ts";

interface CrfsuiteBinding {
  Trainer: new (options?: { debug?: boolean }) => {
    set_params(options: Record<string, string>): void;
    append(xseq: string[][], yseq: string[]): void;
    train(modelPath: string): number;
    set_callback(callback: (line: string) => void): void;
  };
  Tagger: new () => {
    open(modelPath: string): boolean;
    tag(xseq: string[][]): { probability: number; result: string[] };
  };
}

export async function runCrfsuite(job: SystemJob): Promise<SystemReport> {
  const require = createRequire(import.meta.url);
  const crfsuite = require("crfsuite") as CrfsuiteBinding;
  const train = await loadSplit(job, job.trainSplit, job.maxTrainSentences);
  const test = await loadSplit(job, job.testSplit);
  const modelPath = join(job.workDir, "crfsuite.model");

  const trainer = new crfsuite.Trainer({ debug: false });
  let iterations = 0;
  trainer.set_callback((line) => {
    if (/^\*\*\*\*\* Iteration #/.test(line)) iterations++;
  });
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
    predictions[i] = tagger.tag(test.attributes[i]!).result;
    tokens += test.attributes[i]!.length;
  }
  const tagSeconds = (performance.now() - tagStarted) / 1000;
  return {
    system: "crfsuite",
    trainSeconds,
    trainIterations: iterations,
    tagSeconds,
    tagTokens: tokens,
    tagTokensPerSecond: tokens / tagSeconds,
    peakRssMB: peakRssMB(),
    predictions,
  };
}
