import { join } from "node:path";
import { markdownTable, targetsTable, timingTable, writeReport } from "../report.js";
import { lineChartSvg } from "../svg.js";
import type {
  Ad3TaskResult,
  CitationTaskResult,
  GroupTaskResult,
  StepRun,
  TracePoint,
} from "./ad3-task-options.js";

// Report.

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const f2 = (x: number) => x.toFixed(2);

function stepRow(label: string, r: StepRun): (string | number)[] {
  return [
    label,
    r.maxIterations,
    f2(r.f),
    pct(r.certifiedRate),
    r.meanIterations.toFixed(2),
    r.iterationsPerToken.toFixed(2),
    r.meanDual.toFixed(3),
    r.seconds.toFixed(3),
    `${r.overViterbi.toFixed(2)}×`,
    r.msPerIteration.toFixed(3),
    r.uncertified === 0 ? "0" : `${r.uncertified} (${r.uncertifiedMeanIterations.toFixed(0)} it.)`,
  ];
}

const STEP_HEADER = [
  "decoder, step",
  "cap",
  "F",
  "certified",
  "mean it.",
  "it. / token",
  "mean dual",
  "decode s",
  "× Viterbi",
  "ms / it.",
  "uncertified (mean it.)",
];

function citationMarkdown(t: CitationTaskResult): string {
  return [
    `### UMass citations, Soft-DD (${t.generated ? "GENERATED citations — not UMass" : t.data})`,
    "",
    `${t.testCitations} test citations, ${t.constraints} learned constraints (the soft-dd-citations pipeline: all families, segment unit, imp ≥ 2.75, averaged perceptron). Viterbi (the chain alone): field F1 ${f2(t.viterbiF1)}, ${t.viterbiSeconds.toFixed(3)} s. Rates over every citation; F = field F1; it. / token = iterations weighted by citation length (for the subgradient step, with its one chain slave, its chain work in Viterbi passes per token); decode s = the traced pass, cold (each new citation length instantiates and compiles its constraints; a timestamp per iteration); × Viterbi = decode s over Viterbi's on the same citations.`,
    "",
    markdownTable(STEP_HEADER, [
      stepRow("Soft-DD, subgradient", t.subgradient),
      stepRow("Soft-DD, AD3", t.ad3),
    ]),
    "Decode time (the timing harness: warm, alternating runs, medians; decoding = scores → labels):",
    "",
    timingTable(t.timing),
  ].join("\n");
}

function groupMarkdown(t: GroupTaskResult): string {
  const s = t.sizes;
  const m = t.model;
  const rows = t.decompositions.flatMap((d) => [
    stepRow(`${d.decoder}, subgradient`, d.subgradient),
    stepRow(`${d.decoder}, AD3`, d.ad3),
  ]);
  const budget = t.decompositions.map(
    (d) =>
      `${d.decoder}: AD3 certifies ${pct(d.ad3CertifiedAtSubgradientTime)} of groups within the ${d.subgradient.seconds.toFixed(2)} s the subgradient pass took (which certified ${pct(d.subgradient.certifiedRate)}); AD3 reaches that rate after ${d.ad3SecondsToSubgradientRate === null ? "— (never)" : `${d.ad3SecondsToSubgradientRate.toFixed(2)} s`}`,
  );
  return [
    `### ${t.id}: general-CRF ${t.grouping === "tweets" ? "tweet groups" : "documents"}`,
    "",
    `Train ${s.train} sentences → dev ${s.dev} (${s.devTokens} tokens), ${s.groups} groups, ${s.withFactors} with consistency factors (largest ${s.largestPositions} positions). Model: chain CRF (ner-words, ${m.crfIterations} L-BFGS iterations, ${m.folds} jackknife folds, ${m.crfSeconds.toFixed(0)} s) + consistency weights by averaged perceptron through ${m.trainDecoder} (${m.epochs} epochs, ${m.perceptronSeconds.toFixed(0)} s). Viterbi (the chain alone, no consistency factors): F micro ${f2(t.viterbi.f)}, ${t.viterbi.seconds.toFixed(3)} s. Rates and duals over the groups with factors; × Viterbi = decode s over Viterbi's on the same groups.`,
    "",
    markdownTable(STEP_HEADER, rows),
    `${budget.join(". ")}.`,
    "",
    ...(t.exact.length === 0
      ? []
      : [
          "Exact decoding:",
          "",
          markdownTable(
            ["decoder", "decode s", "F micro", "solved", "× two-slave AD3"],
            t.exact.map((e) => [
              e.decoder,
              e.seconds.toFixed(2),
              f2(e.f),
              pct(e.solvedRate),
              `${e.overAd3.toFixed(1)}×`,
            ]),
          ),
        ]),
    `Curves (SVG beside the JSON): ${t.id}-ad3-certified.svg, ${t.id}-ad3-dual.svg.`,
    "",
  ].join("\n");
}

export function ad3TaskMarkdown(r: Ad3TaskResult): string {
  const s = r.settings;
  return [
    "## The project's tasks: AD3 step vs subgradient step",
    "",
    `Same decoders, same models, same run; only the master's step differs (and with it two-slave's slaves: naive-dd's under AD3). Caps: subgradient ${s.subgradientIterations} iterations (today's), AD3 ${s.ad3Iterations}; the decoders' own stall rules apply to both.${s.limit === null ? "" : ` Smoke sample: the first ${s.limit} test citations / dev sentences.`}`,
    "",
    ...(r.skipped.length === 0
      ? []
      : [`Skipped: ${r.skipped.map((x) => `${x.id} (${x.reason})`).join("; ")}.`, ""]),
    ...r.tasks.map((t) => (t.kind === "citations" ? citationMarkdown(t) : groupMarkdown(t))),
    "**Targets (tasks)**",
    "",
    targetsTable(r.targets),
  ].join("\n");
}

/** Certified share and mean dual against decoding time, per task, as SVG files in `folder`. */
export async function writeAd3TaskFigures(r: Ad3TaskResult, folder: string): Promise<string[]> {
  const written: string[] = [];
  for (const t of r.tasks) {
    const runs: [string, StepRun][] =
      t.kind === "citations"
        ? [
            ["Soft-DD subgradient", t.subgradient],
            ["Soft-DD AD3", t.ad3],
          ]
        : t.decompositions.flatMap((d): [string, StepRun][] => [
            [`${d.decoder} subgradient`, d.subgradient],
            [`${d.decoder} AD3`, d.ad3],
          ]);
    const figures = [
      {
        file: `${t.id}-ad3-certified.svg`,
        title: `${t.id}: certificates against decoding time`,
        y: "% certified",
        v: (p: TracePoint) => 100 * p.certifiedRate,
      },
      {
        file: `${t.id}-ad3-dual.svg`,
        title: `${t.id}: mean best dual against decoding time`,
        y: "mean dual (lower is tighter)",
        v: (p: TracePoint) => p.meanDual,
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
          series: runs.map(([name, run]) => ({
            name,
            points: run.curve.map((p) => [p.seconds, f.v(p)] as const),
          })),
        }),
      );
      written.push(path);
    }
  }
  return written;
}
