/**
 * The CRFsuite peer, run in its own process so that its peak memory is its own. The npm binding
 * always trains with L-BFGS (crf1d) and takes attribute names as they are; it has no masks, so it
 * trains and decodes densely over every label.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadCrfsuiteBinding } from "./crfsuite-binding.js";
import { peakRssMB, type SystemJob, type SystemReport, timedPasses } from "./protocol.js";
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
  // Decoding from attribute strings (the tagger's input), as Lagrange's from extracted attributes.
  let predictions: string[][] | undefined;
  const { seconds, tokens } = timedPasses(
    test.attributes.length,
    job.minTagSeconds ?? 1,
    (limit) => {
      const out: string[][] = new Array(limit);
      let n = 0;
      for (let i = 0; i < limit; i++) {
        out[i] = tagger.tag(test.attributes[i]!);
        n += test.attributes[i]!.length;
      }
      if (predictions === undefined && limit === test.attributes.length) predictions = out;
      return n;
    },
  );
  return {
    system: "crfsuite",
    trainSeconds,
    trainSequences: train.sentences.length,
    decodings: [
      {
        decoding: "plain",
        tagSeconds: seconds,
        tagTokens: tokens,
        tagTokensPerSecond: tokens / seconds,
        predictions: predictions ?? [],
      },
    ],
    peakRssMB: peakRssMB(),
  };
}
