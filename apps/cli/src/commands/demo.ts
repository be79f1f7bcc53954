import { type CrfModel, getPreset, trainCrf } from "@lagrange/chain-crf";
import {
  evaluateSegments,
  generateCitationSentences,
  inputRows,
  openDataset,
  type Sentence,
} from "@lagrange/datasets";
import { note, progressBar } from "../progress.ts";
import { decodingConstraints } from "./model-io.ts";

export interface DemoData {
  readonly source: string;
  readonly train: Sentence[];
  readonly dev: Sentence[];
}

/** Real UMass citations when the registry finds them, else the project's citation generator. */
export async function demoData(): Promise<DemoData> {
  try {
    const train = await openDataset("umass-citations", "train", { malformed: "skip" });
    const dev = await openDataset("umass-citations", "dev", { malformed: "skip" });
    if (train.status === "available" && dev.status === "available") {
      return {
        source: `UMass citations (${train.source}: ${train.path})`,
        train: train.sentences,
        dev: dev.sentences,
      };
    }
  } catch (error) {
    note(
      `UMass citations are not reachable (${(error as Error).message.split("\n")[0]}); using generated citations`,
    );
  }
  return {
    source: "generated citations (seeded; no corpus reachable)",
    train: generateCitationSentences(1500, { seed: 2014 }),
    dev: generateCitationSentences(600, { seed: 2015 }),
  };
}

export interface DemoOptions {
  readonly maxIterations: number;
  readonly threads: number;
  readonly signal: AbortSignal;
}

/** The main job: train a citation CRF, decode dev with BIO-valid Viterbi, report field F1. */
export async function demoCommand(options: DemoOptions): Promise<string> {
  const data = await demoData();
  note(`data: ${data.source}; ${data.train.length} train / ${data.dev.length} dev citations`);
  const preset = getPreset("citation");
  const train = data.train.map((s) => ({
    attributes: preset.extract(inputRows(s)),
    labels: s.labels!,
  }));
  const dev = data.dev.map((s) => preset.extract(inputRows(s)));
  const bar = progressBar("train", options.maxIterations);
  const trained = await trainCrf(train, {
    maxIterations: options.maxIterations,
    threads: options.threads,
    preset: "citation",
    constraintsFor: (labels) => decodingConstraints(labels, "hierarchical-BIO") ?? {},
    settings: { scheme: "hierarchical-BIO" },
    onProgress: (p) =>
      bar.update(Math.min(p.iteration, options.maxIterations), `loss ${p.loss.toFixed(1)}`),
    signal: options.signal,
  });
  bar.stop();
  const model: CrfModel = trained.model;
  const started = performance.now();
  const predicted = dev.map((attributes) => model.tag(attributes));
  const decodeSeconds = (performance.now() - started) / 1000;
  const gold = data.dev.map((s) => s.labels!);
  const e = evaluateSegments(gold, predicted);
  const pct = (x: number) => (100 * x).toFixed(2);
  return [
    `data:     ${data.source}`,
    `model:    linear-chain CRF, ${trained.numFeatures} features, ${model.numLabels} labels, ${trained.iterations} L-BFGS iterations (${trained.seconds.toFixed(1)} s)`,
    "",
    "| decoder | field P | field R | field F1 | token acc | decode s |",
    "|---|---|---|---|---|---|",
    `| Viterbi (BIO-valid) | ${pct(e.precision)} | ${pct(e.recall)} | ${pct(e.f1)} | ${pct(e.tokenAccuracy)} | ${decodeSeconds.toFixed(2)} |`,
    "",
  ].join("\n");
}
