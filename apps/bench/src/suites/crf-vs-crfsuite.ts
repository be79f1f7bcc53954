import { evaluateChunks } from "@lagrange/datasets";
import { openDataset } from "@lagrange/datasets/node";
import { median } from "@lagrange/recipes";
import { markdownTable } from "../report.js";
import type { SystemReport } from "../systems/protocol.js";
import { runSystem } from "../systems/spawn.js";

export interface CrfVsCrfsuiteOptions {
  readonly repeats: number;
  readonly threads: number;
  readonly maxTrainSentences?: number;
  readonly maxIterations?: number;
  readonly onStatus?: (message: string) => void;
}

export interface SystemSummary {
  readonly trainSeconds: number;
  readonly trainIterations: number | null;
  readonly tagTokensPerSecond: number;
  readonly f1: number;
  readonly tokenAccuracy: number;
  readonly peakRssMB: number;
  readonly trainSecondsRuns: number[];
}

export interface CrfVsCrfsuiteResult {
  readonly suite: "crf-vs-crfsuite";
  readonly setup: Record<string, unknown>;
  readonly lagrange: SystemSummary;
  readonly crfsuite: SystemSummary;
  readonly ratios: {
    readonly trainTime: number;
    readonly tagThroughput: number;
    readonly peakRss: number;
  };
}

function summarise(reports: readonly SystemReport[], gold: string[][]): SystemSummary {
  const last = reports[reports.length - 1]!;
  const evaluation = evaluateChunks(gold, last.predictions);
  return {
    trainSeconds: median(reports.map((r) => r.trainSeconds)),
    trainIterations: last.trainIterations ?? null,
    tagTokensPerSecond: median(reports.map((r) => r.tagTokensPerSecond)),
    f1: 100 * evaluation.f1,
    tokenAccuracy: 100 * evaluation.tokenAccuracy,
    peakRssMB: Math.max(...reports.map((r) => r.peakRssMB)),
    trainSecondsRuns: reports.map((r) => r.trainSeconds),
  };
}

/**
 * CoNLL-2000 chunking, CRFsuite's chunking attributes for both systems, L-BFGS with c2 = 1 and
 * CRFsuite's stopping rule (delta 1e-5 over 10 iterations). Runs alternate between the systems
 * so that machine noise hits both alike.
 */
export async function crfVsCrfsuite(options: CrfVsCrfsuiteOptions): Promise<CrfVsCrfsuiteResult> {
  const job = {
    dataset: "conll2000",
    trainSplit: "train",
    testSplit: "test",
    preset: "chunking",
    c2: 1,
    threads: options.threads,
    ...(options.maxTrainSentences === undefined
      ? {}
      : { maxTrainSentences: options.maxTrainSentences }),
    ...(options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations }),
  };
  const test = await openDataset("conll2000", "test");
  if (test.status !== "available") throw new Error(test.message);
  const gold = test.sentences.map((s) => s.labels!);
  const lagrange: SystemReport[] = [];
  const crfsuite: SystemReport[] = [];
  for (let r = 0; r < options.repeats; r++) {
    options.onStatus?.(`run ${r + 1}/${options.repeats}: CRFsuite`);
    crfsuite.push(await runSystem("crfsuite", job));
    options.onStatus?.(
      `run ${r + 1}/${options.repeats}: Lagrange (${options.threads} thread${options.threads === 1 ? "" : "s"})`,
    );
    lagrange.push(await runSystem("lagrange", job));
  }
  const l = summarise(lagrange, gold);
  const c = summarise(crfsuite, gold);
  return {
    suite: "crf-vs-crfsuite",
    setup: {
      ...job,
      repeats: options.repeats,
      features: lagrange[0]?.features ?? null,
      node: process.version,
    },
    lagrange: l,
    crfsuite: c,
    ratios: {
      trainTime: l.trainSeconds / c.trainSeconds,
      tagThroughput: l.tagTokensPerSecond / c.tagTokensPerSecond,
      peakRss: l.peakRssMB / c.peakRssMB,
    },
  };
}

export function crfVsCrfsuiteMarkdown(result: CrfVsCrfsuiteResult): string {
  const row = (name: string, s: SystemSummary) => [
    name,
    s.trainSeconds,
    s.trainIterations ?? "",
    Math.round(s.tagTokensPerSecond),
    s.f1,
    s.tokenAccuracy,
    Math.round(s.peakRssMB),
  ];
  return [
    `### crf-vs-crfsuite (CoNLL-2000, chunking attributes, L-BFGS, c2 = 1, ${String(result.setup.threads)} thread(s) for Lagrange)`,
    "",
    markdownTable(
      [
        "system",
        "train s (median)",
        "iterations",
        "tag tokens/s",
        "chunk F1",
        "token acc %",
        "peak RSS MB",
      ],
      [row("Lagrange", result.lagrange), row("CRFsuite", result.crfsuite)],
    ),
    `Ratios (Lagrange / CRFsuite): train time ${result.ratios.trainTime.toFixed(2)}×, tag throughput ${result.ratios.tagThroughput.toFixed(2)}×, peak memory ${result.ratios.peakRss.toFixed(2)}×.`,
    "",
  ].join("\n");
}
