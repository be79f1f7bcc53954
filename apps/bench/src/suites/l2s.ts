import { dirname, join } from "node:path";
import {
  type L2sBenchmarkOptions,
  type L2sBenchmarkResult,
  type L2sDatasetResult,
  l2sBenchmark,
  type TradeoffPoint,
} from "@lagrange/experiments";
import { markdownTable, writeReport } from "../report.js";
import { lineChartSvg } from "../svg.js";

export interface L2sSuiteResult extends L2sBenchmarkResult {
  readonly suite: "l2s";
  readonly node: string;
  readonly cpus: number;
}

/**
 * chang2016's Figure 6 (accuracy against training time, L2S and CRF trainers on the same
 * features) and its parsing table, on UD English EWT and CoNLL-2003: the recipe of
 * @lagrange/experiments; this suite renders it.
 */
export async function l2sSuite(options: L2sBenchmarkOptions): Promise<L2sSuiteResult> {
  const { availableParallelism } = await import("node:os");
  const result = await l2sBenchmark(options);
  return { suite: "l2s", node: process.version, cpus: availableParallelism(), ...result };
}

const fmt = (x: number, digits = 2) => x.toFixed(digits);

const BUDGET: Record<string, string> = {
  "l2s-csoaa": "passes",
  "l2s-perceptron": "passes",
  "l2s-csoaa-no-bridge": "passes",
  "crf-lbfgs": "iterations",
  "crf-ap": "epochs",
  "crf-sgd": "epochs",
};

/** The best CRF L-BFGS point and the cheapest L2S point (either base learner) within 0.5 of it: the target. */
export function l2sTarget(d: L2sDatasetResult): {
  readonly crf: TradeoffPoint;
  readonly l2s: TradeoffPoint | undefined;
  readonly bestL2s: TradeoffPoint;
} {
  const lbfgs = d.points.filter((p) => p.system === "crf-lbfgs");
  const crf = lbfgs.reduce((a, b) => (b.budget > a.budget ? b : a));
  const l2s = d.points.filter((p) => p.system.startsWith("l2s-"));
  const within = l2s
    .filter((p) => p.score >= crf.score - 0.5)
    .sort((a, b) => a.trainingSeconds - b.trainingSeconds)[0];
  const bestL2s = l2s.reduce((a, b) => (b.score > a.score ? b : a));
  return { crf, l2s: within, bestL2s };
}

function datasetMarkdown(d: L2sDatasetResult): string {
  const metric = d.metric === "accuracy" ? "UPOS accuracy (%)" : "conlleval F1 (%)";
  const { crf, l2s, bestL2s } = l2sTarget(d);
  const rows = d.points.map((p) => [
    p.system,
    `${p.budget} ${BUDGET[p.system] ?? ""}`,
    fmt(p.trainingSeconds, 1),
    `×${fmt(p.trainingSeconds / crf.trainingSeconds)}`,
    fmt(p.score),
    String(p.invalid),
  ]);
  if (d.withoutBridge !== undefined) {
    const p = d.withoutBridge;
    rows.push([
      "l2s-csoaa, bridge off",
      `${p.budget} passes`,
      fmt(p.trainingSeconds, 1),
      `×${fmt(p.trainingSeconds / crf.trainingSeconds)}`,
      fmt(p.score),
      String(p.invalid),
    ]);
  }
  const verdict =
    l2s === undefined
      ? `No L2S point comes within 0.5 of the CRF (L-BFGS ${crf.budget} iterations, ${fmt(crf.score)}); the best L2S point is ${fmt(bestL2s.score)} (${bestL2s.budget} passes, ×${fmt(bestL2s.trainingSeconds / crf.trainingSeconds)} the CRF's time).`
      : `L2S (${l2s.system.slice(4)}) reaches ${fmt(l2s.score)} (within 0.5 of the CRF's ${fmt(crf.score)}) after ${l2s.budget} passes, in ×${fmt(l2s.trainingSeconds / crf.trainingSeconds)} the CRF's L-BFGS time; the best L2S point is ${fmt(bestL2s.score)} (${bestL2s.system.slice(4)}, ${bestL2s.budget} passes).`;
  return [
    `#### ${d.dataset} (${d.trainSentences} training, ${d.devSentences} evaluation sentences, ${d.labels} labels)`,
    "",
    `${metric} against training time, every system on one thread and on the same attributes; × = training time over the CRF's L-BFGS (${crf.budget} iterations); invalid = output sequences that break the scheme:`,
    "",
    markdownTable(["system", "budget", "training s", "× CRF L-BFGS", metric, "invalid"], rows),
    "",
    verdict,
    "",
  ].join("\n");
}

export function l2sMarkdown(r: L2sSuiteResult): string {
  const parts = [
    "### l2s: learning to search (chang2016) against the chain CRF",
    "",
    `Node ${r.node}, ${r.cpus} CPUs. L2S: learned roll-in, one-step costs (roll-out none, which equals the reference roll-out under the Hamming loss), first order (conditioned on the previous label), greedy decoding through the registry's \`greedy\` decoder, the scheme's mask as the constraint bridge's allowed set; base learner csoaa (VW's: squared-loss regression, AdaGrad + normalized + invariant updates, 2^20 hash slots) or the cost-sensitive averaged perceptron (2^22 slots). CRF: chain-crf on the same preset attributes, one thread, Viterbi under the scheme's mask.`,
    "",
    ...r.datasets.map(datasetMarkdown),
  ];
  if (r.parsing !== null) {
    const p = r.parsing;
    parts.push(
      `#### Dependency parsing, UD English EWT (${p.trainSentences} training, ${p.devSentences} dev sentences)`,
      "",
      `Arc-hybrid parser (labelled), learned roll-in with the dynamic oracle's costs (one-step, exact), reference roll-in with the static one; one core; predicted UPOS from an L2S perceptron tagger (${fmt(p.taggerAccuracy)} % on dev). UAS/LAS with punctuation, and without it (UPOS PUNCT):`,
      "",
      markdownTable(
        [
          "learner",
          "oracle",
          "passes",
          "training s",
          "UPOS",
          "UAS",
          "LAS",
          "UAS −punct",
          "LAS −punct",
          "sentences/s",
        ],
        p.rows.map((row) => [
          row.learner,
          row.oracle,
          String(row.passes),
          fmt(row.trainingSeconds, 1),
          row.tags,
          fmt(row.uas),
          fmt(row.las),
          fmt(row.uasNoPunct),
          fmt(row.lasNoPunct),
          fmt(row.sentencesPerSecond, 0),
        ]),
      ),
      "",
    );
  }
  for (const u of r.unavailable) parts.push(`- ${u.dataset}: unavailable (${u.reason})`);
  return `${parts.join("\n")}\n`;
}

/** Figure 6 analogue per dataset: score against log10 training seconds, one line per trainer. */
export async function writeL2sFigures(r: L2sSuiteResult, out: string): Promise<string[]> {
  const written: string[] = [];
  for (const d of r.datasets) {
    const systems = [...new Set(d.points.map((p) => p.system))];
    const path = join(dirname(out), `l2s-${d.dataset}-tradeoff.svg`);
    await writeReport(
      path,
      lineChartSvg({
        title: `${d.dataset}: ${d.metric === "accuracy" ? "UPOS accuracy" : "NER F1"} vs training time`,
        xLabel: "log10 training seconds (1 thread)",
        yLabel: d.metric === "accuracy" ? "accuracy (%)" : "F1 (%)",
        series: systems.map((system) => ({
          name: system,
          points: d.points
            .filter((p) => p.system === system)
            .map((p) => [Math.log10(p.trainingSeconds), p.score] as const),
        })),
      }),
    );
    written.push(path);
  }
  return written;
}
