import { dirname, join } from "node:path";
import {
  type CurvePoint,
  type TwoSlaveNerBenchmark,
  type TwoSlaveNerDataset,
  type TwoSlaveNerOptions,
  twoSlaveNerBenchmark,
} from "@lagrange/experiments";
import {
  markdownTable,
  runCachedSuite,
  type SuiteResult,
  skippedLines,
  writeReport,
} from "../report.js";
import { lineChartSvg } from "../svg.js";

export type TwoSlaveNerResult = SuiteResult<"two-slave-ner", TwoSlaveNerBenchmark>;

/**
 * qian-liu2014's Twitter NER experiment (Table 2 and Figure 2) on WNUT-16, WNUT-17 and Ritter
 * 2011: the recipe of @lagrange/experiments; this suite renders it and draws the curves.
 */
export function twoSlaveNer(options: TwoSlaveNerOptions = {}): Promise<TwoSlaveNerResult> {
  return runCachedSuite("two-slave-ner", twoSlaveNerBenchmark, options);
}

const f2 = (x: number) => x.toFixed(2);
const pct = (x: number | null) => (x === null ? "–" : `${(100 * x).toFixed(1)} %`);

function point(p: CurvePoint): string {
  return `${p.maxIterations} it: ${p.decodeSeconds.toFixed(2)} s, F ${f2(p.fMicro)}, dual ${p.meanDual.toFixed(3)}, ${pct(p.certifiedRate)}`;
}

function datasetMarkdown(d: TwoSlaveNerDataset): string {
  const chain = d.table2[0]!;
  const weights = d.table2
    .filter((r) => r.weights !== null)
    .map(
      (r) =>
        `${r.decoder}: ${Object.entries(r.weights!)
          .map(([n, w]) => `${n} ${w.toFixed(3)}`)
          .join(", ")}`,
    );
  const curveRows = d.curves["two-slave"].map((p, k) => {
    const q = d.curves["naive-dd"][k]!;
    return [
      p.maxIterations,
      p.decodeSeconds.toFixed(2),
      f2(p.fMicro),
      p.meanDual.toFixed(3),
      pct(p.certifiedRate),
      q.decodeSeconds.toFixed(2),
      f2(q.fMicro),
      q.meanDual.toFixed(3),
      pct(q.certifiedRate),
    ];
  });
  return [
    `#### ${d.id}`,
    "",
    `Train ${d.sizes.train} tweets → dev ${d.sizes.dev} tweets (${d.sizes.devTokens} tokens). Groups (size-bounded single linkage, ≥ 5 shared words, ≤ 50 tweets): train ${d.groups.train.groups} (${d.groups.train.linked} with ≥ 2 tweets, ${d.groups.train.withFactors} with consistency factors); dev ${d.groups.dev.groups} (${d.groups.dev.linked} linked, ${d.groups.dev.withFactors} with factors, ${d.groups.dev.factors} factors, largest ${d.groups.dev.largestPositions} positions). Chain CRFs (full + jackknife folds): ${d.crfSeconds.toFixed(1)} s.`,
    "",
    "**Table 2 analogue** (F in %, conlleval chunks; macro = mean per-type F over the gold types; seconds = CRF training + perceptron, and decoding the dev split; Δ = paired bootstrap over tweets against the linear chain)",
    "",
    markdownTable(
      [
        "system",
        "F macro",
        "F micro",
        "P / R",
        "train s",
        "test s",
        "certified (groups with factors)",
        "Δ F micro [95 %] p",
      ],
      d.table2.map((r) => [
        r.system,
        f2(r.scores.fMacro),
        f2(r.scores.fMicro),
        `${f2(r.scores.precision)} / ${f2(r.scores.recall)}`,
        r.trainSeconds.toFixed(1),
        r.testSeconds.toFixed(2),
        r.exactFinished !== null
          ? `${r.exactFinished.finished} / ${r.exactFinished.total} solved in the limit`
          : pct(r.certifiedRate),
        r.significance === null
          ? "–"
          : `${r.significance.delta >= 0 ? "+" : ""}${f2(r.significance.delta)} [${f2(r.significance.interval[0])}, ${f2(r.significance.interval[1])}] p = ${r.significance.pValue.toFixed(3)}`,
      ]),
    ),
    `Learned consistency weights — ${weights.join("; ")}. Linear chain F micro ${f2(chain.scores.fMicro)}.`,
    "",
    `**Figure 2 analogue** (model: ${d.curveModel}; dev groups with factors; dual = mean best dual objective per group, lower is tighter${d.exactMeanOptimum === null ? "" : `; the exact ILP's mean optimum is ${d.exactMeanOptimum.toFixed(3)}`}; exact decoding took ${d.exactOverTwoSlave === null ? "–" : `${d.exactOverTwoSlave.toFixed(1)}×`} the time of 2-slave at 200 iterations)`,
    "",
    markdownTable(
      [
        "iteration cap",
        "2-slave s",
        "2-slave F",
        "2-slave dual",
        "2-slave cert.",
        "naive s",
        "naive F",
        "naive dual",
        "naive cert.",
      ],
      curveRows,
    ),
    `Curves (SVG beside the JSON): ${d.id}-f-micro.svg, ${d.id}-dual.svg, ${d.id}-certificates.svg. Last points — 2-slave ${point(d.curves["two-slave"].at(-1)!)}; naive ${point(d.curves["naive-dd"].at(-1)!)}.`,
    "",
  ].join("\n");
}

export function twoSlaveNerMarkdown(r: TwoSlaveNerResult): string {
  const s = r.setup;
  return [
    "### two-slave-ner (qian-liu2014 Table 2 and Figure 2 on Twitter NER)",
    "",
    `Chain CRF: ${s.preset} preset, L-BFGS ${s.crfIterations} iterations, c2 = 1. General CRF: the chain CRF + skip-chain and phrase-consistency patterns (phrases of 1–3 words) over tweet groups; consistency weights by averaged perceptron (${s.epochs} epochs, step ${s.learningRate}, kept ≥ 0) on ${s.folds}-fold jackknifed CRF scores, decoded in training and test by the row's decoder. DD: at most 200 iterations, step halved on a dual increase; the ILP (HiGHS) stops at ${s.exactTimeLimitMs / 1000} s per group. Node ${r.node}.`,
    "",
    ...skippedLines(r.unavailable.map((u) => `${u.id} (${u.reason})`)),
    ...r.datasets.map(datasetMarkdown),
    "Paper (MSM2013, Table 2): linear chain 0.657 / 0.815 (macro / micro), 2-slave 0.680 / 0.827, naive DD 0.672 / 0.824, ILP 0.680 / 0.828; 98 / 214 / 490 / 8,640 s.",
    "",
  ].join("\n");
}

/** Writes Figure 2's three curves per dataset as SVG files beside `out`. */
export async function writeTwoSlaveNerFigures(
  r: TwoSlaveNerResult,
  out: string,
): Promise<string[]> {
  const folder = dirname(out);
  const written: string[] = [];
  for (const d of r.datasets) {
    const series = (value: (p: CurvePoint) => number) =>
      (["two-slave", "naive-dd"] as const).map((name) => ({
        name: name === "two-slave" ? "2-slave DD" : "naive DD",
        points: d.curves[name].map((p) => [p.decodeSeconds, value(p)] as const),
      }));
    const figures = [
      {
        file: `${d.id}-f-micro.svg`,
        title: `${d.id}: F micro`,
        y: "F micro (%)",
        v: (p: CurvePoint) => p.fMicro,
      },
      {
        file: `${d.id}-dual.svg`,
        title: `${d.id}: mean dual objective`,
        y: "dual per group",
        v: (p: CurvePoint) => p.meanDual,
      },
      {
        file: `${d.id}-certificates.svg`,
        title: `${d.id}: certificates`,
        y: "% of groups certified",
        v: (p: CurvePoint) => 100 * p.certifiedRate,
      },
    ];
    for (const f of figures) {
      const path = join(folder, f.file);
      await writeReport(
        path,
        lineChartSvg({
          title: f.title,
          xLabel: "decoding time (s)",
          yLabel: f.y,
          series: series(f.v),
        }),
      );
      written.push(path);
    }
  }
  return written;
}
