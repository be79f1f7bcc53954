import { dirname, join } from "node:path";
import { markdownTable, targetsTable, writeReport } from "../report.js";
import { type LineChart, lineChartSvg, type Series } from "../svg.js";
import { AD3_MULTI_DEFAULTS } from "../systems/ad3-multi.js";
import {
  type Ad3BenchResult,
  type Ad3GraphsSection,
  type Ad3TasksSection,
  type GraphRow,
  isFailure,
  type Outcome,
  ok,
  type SystemRun,
  type TracePoint,
} from "./ad3-results.js";
import { ad3TaskMarkdown, writeAd3TaskFigures } from "./ad3-task-report.js";

/** C++ AD3 reached its residual threshold: its dual is the LP-MAP value to that accuracy. */
export const cppSolvedLp = (r: GraphRow) => {
  const status = ok(r.ad3)?.status;
  return status === "integer" || status === "fractional";
};

const msOf = (seconds: number) => {
  const x = 1000 * seconds;
  return !Number.isFinite(x) ? "—" : x >= 100 ? x.toFixed(0) : x.toPrecision(3);
};
/** Wall / CPU milliseconds. */
export const ms = (run: SystemRun | null) =>
  run === null ? "—" : `${msOf(run.seconds)} / ${msOf(run.cpuSeconds)}`;
const value = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toPrecision(10);
const small = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toExponential(1);
const ns = (x: number | null) => (x === null ? "—" : x >= 100 ? x.toFixed(0) : x.toPrecision(3));
const ratio = (x: number | null) => (x === null ? "—" : `${x.toFixed(2)}×`);
const its = (run: SystemRun | null) =>
  run === null || run.iterations === null ? "—" : String(run.iterations);
const state = (run: SystemRun | null, cell: Outcome<SystemRun> | null) =>
  isFailure(cell) ? "failed" : run === null ? "—" : (run.status ?? "—");

export function ad3GraphsMarkdown(s: Ad3GraphsSection): string {
  const head = "## AD3's graphs: Lagrange's AD3 vs the C++ AD3 and its PSDD";
  if (s.skipped !== null) return `${head}\n\nSkipped: ${s.skipped}.\n`;
  const peer =
    s.peer.kind === "built"
      ? `C++: ad3_multi of AD3 (andre-martins/AD3 at 22131c7) built with its Makefile's -O3 by ${s.peer.compiler}${s.peer.cached ? " (from the bench cache; built" : " (built in this run"} in ${s.peer.buildSeconds.toFixed(1)} s). Its time is its own clock (after reading the graph, through the solve), read to the microsecond; its dual is the best dual on its last trace line (it computes the dual every ${AD3_MULTI_DEFAULTS.dualEvery}th iteration and once the primal residual is small), its primal the value of its posteriors.`
      : `**C++ columns not run**: ${s.peer.reason}.`;
  const set = s.settings;
  const failures = s.rows.flatMap((r) =>
    (
      [
        ["Lagrange", r.lagrange],
        ["C++ AD3", r.ad3],
        ["C++ PSDD", r.psdd],
      ] as const
    )
      .filter(([, cell]) => isFailure(cell))
      .map(
        ([who, cell]) =>
          `${r.graph}, ${who}: ${(cell as { failed: string }).failed.replace(/\.$/, "")}`,
      ),
  );
  return [
    head,
    "",
    `${s.rows.length} graphs of ${s.dataDir}. Every system: at most ${set.maxIterations} iterations${set.exact ? ", exact MAP (branch and bound)" : ""}; AD3s stop when both residuals are below ${set.residualThreshold.toExponential()}; η ${set.etaLagrange === "default" ? `Lagrange's default, ad3_multi's ${set.etaCpp} (AD3's initial η, adapted; PSDD's step η/√t)` : `${set.etaLagrange} for all`}. Times: median of solves repeated until they add up to ${set.minSampleMs} ms, at most ${set.maxSamples} of them, and of ${set.rounds} such timings per system and graph, the three systems in turn (reading excluded, and building the graph: Lagrange solves the problem compiled once — its compile timed apart, in its own column — as ad3_multi's clock starts after it has built its graph; ad3_multi's clock is gettimeofday, so its times under ~10 µs are at the clock's resolution, and a 0 leaves the ratio out). ${peer}`,
    "",
    "### Time and iterations",
    "",
    markdownTable(
      [
        "graph",
        "vars",
        "factors",
        "edges",
        "Lagrange ms wall / CPU",
        "compile ms",
        "it",
        "status",
        "ns / it·edge",
        "AD3 C++ ms wall / CPU",
        "it",
        "status",
        "ns / it·edge",
        "÷ AD3",
        "PSDD ms wall / CPU",
        "it",
        "÷ PSDD",
      ],
      s.rows.map((r) => {
        const L = ok(r.lagrange);
        const A = ok(r.ad3);
        const P = ok(r.psdd);
        return [
          r.graph,
          r.variables ?? "—",
          r.factors ?? "—",
          r.edges ?? "—",
          ms(L),
          L === null ? "—" : msOf(L.compileSeconds),
          its(L),
          L === null ? "failed" : `${L.status}${L.certified ? " ✓" : ""}`,
          ns(r.nsPerIterationEdgeLagrange),
          ms(A),
          its(A),
          state(A, r.ad3),
          ns(r.nsPerIterationEdgeAd3),
          ratio(r.timeRatioAd3),
          ms(P),
          its(P),
          ratio(r.timeRatioPsdd),
        ];
      }),
    ),
    "✓: certified (integral primal within the gap tolerance of the dual). factors: as the file declares them; edges: Σ over the factors of the binary problem both AD3s solve (UAI: its tables over two or more variables and one XOR per variable) of the variables each links. ns / it·edge: CPU time ÷ iterations ÷ edges, the cost of one edge's update in one iteration. ÷: Lagrange's CPU time over C++'s (> 1: Lagrange slower); both run one thread, and CPU time is what a busy machine inflates least.",
    "",
    "### Values",
    "",
    markdownTable(
      [
        "graph",
        "Lagrange dual",
        "relaxed primal",
        "gap",
        "integral primal",
        "AD3 C++ dual",
        "primal",
        "gap",
        "LP rel. diff",
        "PSDD dual",
        "primal",
        "gap",
      ],
      s.rows.map((r) => {
        const L = ok(r.lagrange);
        const A = ok(r.ad3);
        const P = ok(r.psdd);
        return [
          r.graph,
          value(L?.dual),
          value(L?.primal),
          small(L?.gap),
          value(L?.integerPrimal),
          value(A?.dual),
          value(A?.primal),
          small(A?.gap),
          r.lpRelativeDifference === null
            ? "—"
            : `${small(r.lpRelativeDifference)}${cppSolvedLp(r) ? "" : " *"}`,
          value(P?.dual),
          value(P?.primal),
          small(P?.gap),
        ];
      }),
    ),
    "dual: the best (lowest) dual, an upper bound; primal: the objective of the relaxed solution (the posteriors), which need not lie below the dual before convergence; gap = dual − primal. LP rel. diff: |dual − dual of C++ AD3| ÷ max(1, |dual of C++ AD3|); *: C++ AD3 stopped at the iteration cap, so its dual is not yet the LP-MAP value. Curves (ad3-<graph>.svg beside the JSON): each system's dual at each iteration it computes one (Lagrange every iteration, ad3_multi every 50th and near the end), Lagrange's best 0/1 primal, ad3_multi's relaxed primal where it computes one; iteration k of n is drawn at k/n of the system's median CPU time.",
    "",
    ...(failures.length === 0 ? [] : [`Failed: ${failures.join("; ")}.`, ""]),
    "**Targets (graphs)**: CPU times, this run; a multi-factor graph is one whose binary problem has more than one factor (a single factor is one projection, with no master to speak of), counted where neither AD3 failed and C++'s time is above its clock's resolution.",
    "",
    targetsTable(s.targets),
  ].join("\n");
}

export function ad3TasksMarkdown(s: Ad3TasksSection): string {
  return ad3TaskMarkdown(s);
}

export function ad3Markdown(r: Ad3BenchResult): string {
  return [
    "# ad3: AD3 in the dual-decomposition master",
    "",
    `Node ${r.node}, ${r.cpu}; load average ${r.loadAverage[0].toFixed(1)} at the start, ${r.loadAverage[1].toFixed(1)} at the end (a load above the core count inflates wall times).`,
    "",
    ...(r.graphs === null ? [] : [ad3GraphsMarkdown(r.graphs)]),
    ...(r.tasks === null ? [] : [ad3TasksMarkdown(r.tasks)]),
  ].join("\n");
}

/** Dual and primal against time on one graph, Lagrange's AD3 and the C++ one; null when no trace. */
export function ad3CurveChart(row: GraphRow): LineChart | null {
  const series: Series[] = [];
  const add = (name: string, run: SystemRun | null, pick: (p: TracePoint) => number | null) => {
    if (run === null) return;
    const points = run.trace.flatMap((p) => {
      const y = pick(p);
      return y === null || !Number.isFinite(y) ? [] : [[1000 * p.seconds, y] as const];
    });
    if (points.length > 0) series.push({ name, points });
  };
  const L = ok(row.lagrange);
  const A = ok(row.ad3);
  add("Lagrange dual", L, (p) => p.dual);
  add("Lagrange 0/1 primal", L, (p) => p.primal);
  add("C++ AD3 dual", A, (p) => p.dual);
  add("C++ relaxed primal", A, (p) => p.primal);
  if (series.length === 0) return null;
  return {
    title: `${row.graph}: dual and primal against time`,
    xLabel: "CPU time (ms)",
    yLabel: "objective",
    series,
  };
}

/** The curves as SVG files beside the JSON report (`ad3-<graph>.svg`); the paths written. */
export async function writeAd3Figures(r: Ad3BenchResult, out: string): Promise<string[]> {
  const written: string[] = [];
  for (const row of r.graphs?.rows ?? []) {
    const chart = ad3CurveChart(row);
    if (chart === null) continue;
    const path = join(dirname(out), `ad3-${row.graph.replace(/[^\w.-]/g, "_")}.svg`);
    await writeReport(path, lineChartSvg(chart));
    written.push(path);
  }
  if (r.tasks !== null) written.push(...(await writeAd3TaskFigures(r.tasks, dirname(out))));
  return written;
}
