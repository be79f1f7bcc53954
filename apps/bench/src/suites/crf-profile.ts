import {
  type CrfPassProfile,
  getPreset,
  prepareTrainingData,
  profileCrfPass,
} from "@lagrange/chain-crf";
import { inputRows } from "@lagrange/datasets";
import { openDataset } from "@lagrange/datasets/node";
import { markdownTable } from "../report.js";

/** The corpora profiled: CoNLL-2000 (22 labels) and UMass citations (hierarchical BIO labels). */
export const CRF_PROFILE_DATASETS = {
  conll2000: { dataset: "conll2000", preset: "chunking", title: "CoNLL-2000 train, chunking" },
  umass: {
    dataset: "umass-citations",
    preset: "citation",
    title: "UMass citations train, citation",
  },
} as const;
export type CrfProfileDataset = keyof typeof CRF_PROFILE_DATASETS;

export interface CrfProfileOptions {
  readonly dataset: CrfProfileDataset;
  readonly passes: number;
  readonly threads: number;
  readonly maxTrainSentences?: number;
  readonly onStatus?: (message: string) => void;
}

export interface CrfProfileResult {
  readonly suite: "crf-profile";
  readonly setup: Record<string, unknown>;
  readonly profile: CrfPassProfile;
}

/**
 * One L-BFGS objective-and-gradient pass (the batch path the trainer runs) on CoNLL-2000 with
 * CRFsuite's chunking attributes, or on UMass citations with the citation preset, timed phase by phase, each phase's rate set against the same
 * code's rate on a cache-resident sample measured in the same run.
 */
export async function crfProfile(options: CrfProfileOptions): Promise<CrfProfileResult> {
  const corpus = CRF_PROFILE_DATASETS[options.dataset];
  const opened = await openDataset(corpus.dataset, "train", { malformed: "skip" });
  if (opened.status !== "available") throw new Error(opened.message);
  const sentences =
    options.maxTrainSentences === undefined
      ? opened.sentences
      : opened.sentences.slice(0, options.maxTrainSentences);
  const preset = getPreset(corpus.preset);
  options.onStatus?.(`extracting ${sentences.length} sentences`);
  const data = prepareTrainingData(
    sentences.map((s) => ({ attributes: preset.extract(inputRows(s)), labels: s.labels! })),
  );
  const profile = await profileCrfPass(data.encoder, {
    passes: options.passes,
    threads: options.threads,
    ...(options.onStatus === undefined ? {} : { onStatus: options.onStatus }),
  });
  return {
    suite: "crf-profile",
    setup: {
      dataset: corpus.dataset,
      split: "train",
      preset: corpus.preset,
      title: corpus.title,
      passes: options.passes,
      threads: options.threads,
      node: process.version,
    },
    profile,
  };
}

const ms = (seconds: number) => (1000 * seconds).toFixed(1);
const giga = (rate: number) => (rate / 1e9).toFixed(3);

export function crfProfileMarkdown(result: CrfProfileResult): string {
  const p = result.profile;
  const rows = p.phases.map((phase) => [
    phase.name,
    ms(phase.seconds),
    `${(100 * phase.share).toFixed(1)} %`,
    `${(phase.operations / 1e6).toFixed(1)} M ${phase.unit}`,
    giga(phase.ratePerSecond),
    giga(phase.peakRatePerSecond),
    `${(100 * phase.ofPeak).toFixed(0)} %`,
  ]);
  const lines = [
    `### crf-profile (${String(result.setup.title)} attributes, one objective + gradient pass)`,
    "",
    `${p.sentences} sentences, ${p.tokens} tokens, ${p.labels} labels, ${p.weights} weights; ${p.attributeOccurrences} attribute occurrences carrying ${p.featureOccurrences} feature occurrences. Medians of ${p.passes} passes.`,
    "",
    markdownTable(
      [
        "phase",
        "ms / pass",
        "share",
        "operations / pass",
        "G ops/s",
        "peak G ops/s (same code, data in cache)",
        "of peak",
      ],
      rows,
    ),
    `One pass, one thread: ${ms(p.secondsPerPass)} ms plain, ${ms(p.instrumentedSecondsPerPass)} ms with the phase timers.`,
  ];
  if (p.threaded !== null) {
    const t = p.threaded;
    lines.push(
      `${t.threads} threads: ${ms(t.secondsPerPass)} ms per pass (${(p.secondsPerPass / t.secondsPerPass).toFixed(2)}× one thread); reduction across threads ${ms(t.reduceSeconds)} ms per pass (${giga(t.reduceAddsPerSecond)} G adds/s), the main thread waiting ${ms(t.waitSeconds)} ms for the workers.`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
