import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { type Ad3Options, solveBinaryProblem } from "@lagrange/core/dual-decomposition";
import {
  type FactorGraphFile,
  parseAd3FactorGraph,
  parseUaiFactorGraph,
} from "@lagrange/factor-graphs";
import { median } from "@lagrange/recipes";
import { markdownTable, targetsTable, writeReport } from "../report.js";
import { type LineChart, lineChartSvg, type Series } from "../svg.js";
import {
  AD3_MULTI_DEFAULTS,
  type Ad3MultiGraphOutput,
  buildAd3Multi,
  repeatGraph,
  runAd3Multi,
} from "../systems/ad3-multi.js";
import { ANCHORS_DIR } from "../systems/anchor-peer.js";
import {
  type Ad3TaskOptions,
  type Ad3TaskResult,
  ad3TaskMarkdown,
  ad3TaskSection,
  writeAd3TaskFigures,
} from "./ad3-tasks.js";

/** AD3's 27 benchmark factor graphs (`.fg` and UAI), beside the repository. */
export const AD3_DATA_DIR = join(ANCHORS_DIR, "ad3", "data");

export const AD3_SECTIONS = ["graphs", "tasks"] as const;
export type Ad3Section = (typeof AD3_SECTIONS)[number];

/** Each timing repeats solves until their sum reaches this, at most {@link MAX_SAMPLES} of them. */
const DEFAULT_MIN_SAMPLE_MS = 200;
const MAX_SAMPLES = 100;
/** ad3_multi processes per timing when a file of copies fails (it should not). */
const FALLBACK_PROCESSES = 20;
/** Trace points kept per system and graph in the JSON (and the curves): evenly thinned. */
const MAX_TRACE_POINTS = 200;

export interface Ad3BenchOptions {
  /** Sections to run (default both). */
  readonly sections?: readonly Ad3Section[];
  /** Folder of the graphs (default {@link AD3_DATA_DIR}). */
  readonly dataDir?: string;
  /** Only these files of the folder (names as listed, e.g. `grid3x3.uai`). */
  readonly graphs?: readonly string[];
  /** Iteration cap of every system (default ad3_multi's, 1000). */
  readonly maxIterations?: number;
  /** η for both AD3s and PSDD (default: each its own; ad3_multi 0.1, Lagrange its default). */
  readonly eta?: number;
  /** Residual threshold of both AD3s (default 1e-6, ad3_multi's). */
  readonly residualThreshold?: number;
  /** Exact MAP (branch and bound) in both AD3s; PSDD is then not run (it has no exact mode). */
  readonly exact?: boolean;
  /** Build and run the C++ peer when g++ is there (default true). */
  readonly peer?: boolean;
  /** Timing: solves repeated until their sum reaches this (default 200 ms); the median is kept. */
  readonly minSampleMs?: number;
  /** The tasks section's own options (ad3-tasks.ts: tasks, sample sizes, caps). */
  readonly tasks?: Ad3TaskOptions;
  readonly onStatus?: (message: string) => void;
}

/** A value over time, for the curves: dual, and primal where the system has one. */
export interface TracePoint {
  /** Iteration k of n at k/n of the median solve CPU time (see the Markdown). */
  readonly seconds: number;
  /** 1-based. */
  readonly iteration: number;
  /** The dual at this iteration (not the best so far). */
  readonly dual: number;
  /** Lagrange: the best 0/1 primal so far; ad3_multi: the relaxed primal at this iterate. */
  readonly primal: number | null;
}

/** One system's run on one graph. */
export interface SystemRun {
  /** Median solve time, wall (reading the file excluded, as ad3_multi's clock excludes it). */
  readonly seconds: number;
  /** Median CPU time of the same solves (NaN where not measured). */
  readonly cpuSeconds: number;
  readonly samples: number;
  readonly iterations: number | null;
  /** Best (lowest) dual: the upper bound; its limit is the LP-MAP value. */
  readonly dual: number | null;
  /** Objective of the relaxed solution (the posteriors): ad3_multi's "Solution value". */
  readonly primal: number | null;
  /** dual − primal. */
  readonly gap: number | null;
  /** How the run ended, in the system's words. */
  readonly status: string | null;
  readonly trace: readonly TracePoint[];
}

export interface LagrangeRun extends SystemRun {
  /** The best 0/1 assignment's objective (ad3_multi has none outside exact mode). */
  readonly integerPrimal: number;
  readonly certified: boolean;
}

export type Outcome<T> = T | { readonly failed: string };

export interface GraphRow {
  readonly graph: string;
  readonly format: "ad3" | "uai";
  readonly variables: number | null;
  readonly factors: number | null;
  readonly lagrange: Outcome<LagrangeRun>;
  /** Null: the peer was not run (the reason in the section's `peer`). */
  readonly ad3: Outcome<SystemRun> | null;
  readonly psdd: Outcome<SystemRun> | null;
  /** Lagrange ÷ C++ (> 1: Lagrange slower), CPU times where both have them. */
  readonly timeRatioAd3: number | null;
  readonly timeRatioPsdd: number | null;
  /** |dual_Lagrange − dual_C++AD3| ÷ max(1, |dual_C++AD3|): the certificate's own scale. */
  readonly lpRelativeDifference: number | null;
}

export type PeerState =
  | {
      readonly kind: "built";
      readonly compiler: string;
      readonly buildSeconds: number;
      readonly cached: boolean;
    }
  | { readonly kind: "skipped"; readonly reason: string };

export interface Ad3GraphsSection {
  /** Why the section did not run (no graphs), or null. */
  readonly skipped: string | null;
  readonly dataDir: string;
  readonly settings: {
    readonly maxIterations: number;
    readonly residualThreshold: number;
    readonly etaLagrange: number | "default";
    readonly etaCpp: number;
    readonly exact: boolean;
    readonly minSampleMs: number;
  };
  readonly peer: PeerState;
  readonly rows: readonly GraphRow[];
  readonly targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[];
}

/** The project's tasks with the AD3 step against the subgradient one (ad3-tasks.ts). */
export type Ad3TasksSection = Ad3TaskResult;

export interface Ad3BenchResult {
  readonly suite: "ad3";
  readonly node: string;
  readonly cpu: string;
  /** The machine's 1-minute load average at the start and the end (it inflates wall times). */
  readonly loadAverage: readonly [number, number];
  readonly graphs: Ad3GraphsSection | null;
  readonly tasks: Ad3TasksSection | null;
}

const isFailure = <T extends object>(x: Outcome<T> | null): x is { readonly failed: string } =>
  x !== null && "failed" in x;
const ok = <T extends object>(x: Outcome<T> | null): T | null =>
  x === null || isFailure(x) ? null : x;

const formatOf = (file: string): "ad3" | "uai" => (file.endsWith(".uai") ? "uai" : "ad3");

function thin<T>(points: readonly T[]): T[] {
  if (points.length <= MAX_TRACE_POINTS) return [...points];
  const step = points.length / MAX_TRACE_POINTS;
  const kept: T[] = [];
  for (let k = 0; k < MAX_TRACE_POINTS - 1; k++) kept.push(points[Math.floor(k * step)]!);
  kept.push(points.at(-1)!);
  return kept;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function parseGraph(text: string, file: string): FactorGraphFile {
  return formatOf(file) === "uai"
    ? parseUaiFactorGraph(text, file)
    : parseAd3FactorGraph(text, file);
}

/**
 * Trace points placed on the timed runs' clock: iteration k of n at k/n of the median CPU time
 * (wall time where there is none), the time the ratios compare. The traced runs' own clocks are
 * slowed by the tracing (ad3_multi prints, to the millisecond), and Lagrange's traced run is also
 * its warm-up.
 */
function onClock(
  points: readonly { iteration: number; dual: number; primal: number | null }[],
  iterations: number | null,
  wallSeconds: number,
  cpuSeconds: number,
): TracePoint[] {
  const seconds = Number.isFinite(cpuSeconds) ? cpuSeconds : wallSeconds;
  const n = Math.max(1, iterations ?? points.at(-1)?.iteration ?? 1);
  return points.map((p) => ({ ...p, seconds: (p.iteration / n) * seconds }));
}

/** Lagrange's AD3 on one parsed graph: a traced run for values and curves, then timed runs. */
function runLagrange(
  parsed: FactorGraphFile,
  options: Ad3Options,
  minSampleMs: number,
): LagrangeRun {
  const trace: { iteration: number; dual: number; primal: number | null }[] = [];
  const traced = solveBinaryProblem(parsed.problem, {
    ...options,
    onIteration: (s) => {
      trace.push({
        iteration: s.iteration,
        dual: s.dual,
        primal: Number.isFinite(s.primal) ? s.primal : null,
      });
    },
  });
  // The traced run doubles as the warm-up; the timed ones run without a callback.
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let total = 0;
  while (times.length === 0 || (total < minSampleMs && times.length < MAX_SAMPLES)) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    solveBinaryProblem(parsed.problem, options);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    times.push(ms);
    cpuTimes.push((used.user + used.system) / 1e6);
    total += ms;
  }
  const seconds = median(times) / 1000;
  const cpuSeconds = median(cpuTimes);
  // The objective of the posteriors, where the engine reports one (its factors' relaxed scores).
  const relaxed = (traced as { readonly relaxedPrimal?: number }).relaxedPrimal;
  const primal = relaxed !== undefined && Number.isFinite(relaxed) ? relaxed : null;
  return {
    seconds,
    cpuSeconds,
    samples: times.length,
    iterations: traced.iterations,
    dual: traced.dual,
    primal,
    gap: primal === null ? null : traced.dual - primal,
    status: traced.status,
    trace: thin(onClock(trace, traced.iterations, seconds, cpuSeconds)),
    integerPrimal: traced.primal,
    certified: traced.certified,
  };
}

export interface CppSettings {
  readonly binary: string;
  readonly maxIterations: number;
  readonly eta: number;
  readonly residualThreshold: number;
  readonly exact: boolean;
  readonly minSampleMs: number;
  readonly work: string;
}

/**
 * ad3_multi on one graph: a traced run (verbosity 2) for values and curves, then runs with the
 * solve-time hook only; where one solve is short, the graph is repeated in one file so that the
 * samples add up to the minimum, and the first copy (a warm-up) is dropped.
 */
export async function runCpp(
  file: string,
  text: string,
  algorithm: "ad3" | "psdd",
  s: CppSettings,
): Promise<Outcome<SystemRun>> {
  const base = {
    binary: s.binary,
    format: formatOf(file),
    algorithm,
    maxIterations: s.maxIterations,
    eta: s.eta,
    residualThreshold: s.residualThreshold,
    exact: s.exact,
  } as const;
  const traced = await runAd3Multi({ ...base, file, trace: true });
  if (traced.kind === "failed") return { failed: traced.reason };
  const g: Ad3MultiGraphOutput = traced.output.graphs[0]!;
  const first = await runAd3Multi({ ...base, file, solveTime: true });
  if (first.kind === "failed") return { failed: first.reason };
  const wall = (x: Ad3MultiGraphOutput) => x.solveSeconds ?? Number.NaN;
  const cpu = (x: Ad3MultiGraphOutput) => x.solveCpuSeconds ?? Number.NaN;
  let times = first.output.graphs.map(wall);
  let cpuTimes = first.output.graphs.map(cpu);
  const once = times[0] ?? Number.NaN;
  const copies = Math.min(MAX_SAMPLES, Math.ceil(s.minSampleMs / 1000 / Math.max(once, 1e-6)));
  if (copies > 1) {
    const repeated = join(s.work, `repeated-${basename(file)}`);
    await writeFile(repeated, repeatGraph(text, copies + 1, formatOf(file)));
    const run = await runAd3Multi({ ...base, file: repeated, solveTime: true });
    if (run.kind === "ok") {
      times = run.output.graphs.slice(1).map(wall);
      cpuTimes = run.output.graphs.slice(1).map(cpu);
    } else {
      // Should a file of copies trip ad3_multi up, one process per sample (fewer of them).
      for (let k = 1; k < Math.min(copies, FALLBACK_PROCESSES); k++) {
        const again = await runAd3Multi({ ...base, file, solveTime: true });
        if (again.kind === "failed") return { failed: again.reason };
        times.push(wall(again.output.graphs[0]!));
        cpuTimes.push(cpu(again.output.graphs[0]!));
      }
    }
  }
  const dual = g.bestDual;
  const seconds = median(times);
  const cpuSeconds = median(cpuTimes);
  return {
    seconds,
    cpuSeconds,
    samples: times.length,
    iterations: g.iterations,
    dual,
    primal: g.value,
    gap: dual === null || g.value === null ? null : dual - g.value,
    status: g.status,
    trace: thin(
      onClock(
        g.trace.map((p) => ({ iteration: p.iteration + 1, dual: p.dual, primal: p.primal })),
        g.iterations,
        seconds,
        cpuSeconds,
      ),
    ),
  };
}

/**
 * Section 1, AD3's own graphs: Lagrange's AD3 (`solveBinaryProblem` on the graph read by
 * `parseAd3FactorGraph` / `parseUaiFactorGraph`) against ad3_multi's AD3 and PSDD on the same
 * files, in the same run.
 */
export async function ad3GraphsSection(
  options: Ad3BenchOptions,
  status: (message: string) => void,
): Promise<Ad3GraphsSection> {
  const dataDir = options.dataDir ?? AD3_DATA_DIR;
  const maxIterations = options.maxIterations ?? AD3_MULTI_DEFAULTS.maxIterations;
  const residualThreshold = options.residualThreshold ?? AD3_MULTI_DEFAULTS.residualThreshold;
  const exact = options.exact === true;
  const minSampleMs = options.minSampleMs ?? DEFAULT_MIN_SAMPLE_MS;
  const settings = {
    maxIterations,
    residualThreshold,
    etaLagrange: options.eta ?? ("default" as const),
    etaCpp: options.eta ?? AD3_MULTI_DEFAULTS.eta,
    exact,
    minSampleMs,
  };
  const absent = (reason: string): Ad3GraphsSection => ({
    skipped: reason,
    dataDir,
    settings,
    peer: { kind: "skipped", reason },
    rows: [],
    targets: [],
  });
  if (!existsSync(dataDir)) {
    return absent(
      `AD3's graphs are not at ${dataDir} (../shared/anchors/ad3 is not beside this checkout)`,
    );
  }
  let files = (await readdir(dataDir)).filter((f) => f.endsWith(".fg") || f.endsWith(".uai"));
  if (options.graphs !== undefined) {
    const missing = options.graphs.filter((g) => !files.includes(g));
    if (missing.length > 0) {
      throw new Error(
        `no graph ${missing.join(", ")} in ${dataDir}; there are ${files.join(", ")}`,
      );
    }
    files = files.filter((f) => options.graphs!.includes(f));
  }
  files.sort();

  let peer: PeerState;
  let binary: string | undefined;
  if (options.peer === false) {
    peer = { kind: "skipped", reason: "turned off (--no-peer)" };
  } else {
    const built = await buildAd3Multi(status);
    if (built.kind === "built") {
      binary = built.binaries.ad3_multi;
      peer = {
        kind: "built",
        compiler: built.compiler,
        buildSeconds: built.buildSeconds,
        cached: built.cached,
      };
    } else {
      peer = built;
      status(`C++ AD3 skipped: ${built.reason}`);
    }
  }

  const lagrangeOptions: Ad3Options = {
    maxIterations,
    residualThreshold,
    exact,
    ...(options.eta === undefined ? {} : { eta: options.eta }),
  };
  const work = await mkdtemp(join(tmpdir(), "lagrange-bench-ad3-"));
  const rows: GraphRow[] = [];
  try {
    for (const graph of files) {
      const file = join(dataDir, graph);
      const text = await readFile(file, "utf8");
      status(`${graph}`);
      let lagrange: Outcome<LagrangeRun>;
      let counts: { variables: number; factors: number } | null = null;
      try {
        const parsed = parseGraph(text, file);
        counts = parsed.counts;
        lagrange = runLagrange(parsed, lagrangeOptions, minSampleMs);
      } catch (error) {
        lagrange = { failed: message(error) };
      }
      let ad3: Outcome<SystemRun> | null = null;
      let psdd: Outcome<SystemRun> | null = null;
      if (binary !== undefined) {
        const cpp: CppSettings = {
          binary,
          maxIterations,
          eta: settings.etaCpp,
          residualThreshold,
          exact,
          minSampleMs,
          work,
        };
        ad3 = await runCpp(file, text, "ad3", cpp);
        psdd = exact
          ? { failed: "PSDD has no exact mode" }
          : await runCpp(file, text, "psdd", { ...cpp, exact: false });
      }
      const L = ok(lagrange);
      const A = ok(ad3);
      const P = ok(psdd);
      rows.push({
        graph,
        format: formatOf(graph),
        variables: counts?.variables ?? null,
        factors: counts?.factors ?? null,
        lagrange,
        ad3,
        psdd,
        timeRatioAd3: timeRatio(L, A),
        timeRatioPsdd: timeRatio(L, P),
        lpRelativeDifference:
          L?.dual != null && A?.dual != null
            ? Math.abs(L.dual - A.dual) / Math.max(1, Math.abs(A.dual))
            : null,
      });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { skipped: null, dataDir, settings, peer, rows, targets: graphTargets(rows) };
}

/**
 * Lagrange's time over a peer's: CPU times, which a busy machine inflates least (both are one
 * thread), else wall times; null where the peer's time is 0 (below its clock's resolution).
 */
function timeRatio(L: SystemRun | null, peer: SystemRun | null): number | null {
  if (L === null || peer === null) return null;
  if (Number.isFinite(L.cpuSeconds) && Number.isFinite(peer.cpuSeconds)) {
    return peer.cpuSeconds > 0 ? L.cpuSeconds / peer.cpuSeconds : null;
  }
  return peer.seconds > 0 ? L.seconds / peer.seconds : null;
}

/** C++ AD3 reached its residual threshold: its dual is the LP-MAP value to that accuracy. */
const cppSolvedLp = (r: GraphRow) => {
  const status = ok(r.ad3)?.status;
  return status === "integer" || status === "fractional";
};

function graphTargets(rows: readonly GraphRow[]): Ad3GraphsSection["targets"] {
  const compared = rows.filter((r) => r.lpRelativeDifference !== null && cppSolvedLp(r));
  const same = compared.filter((r) => r.lpRelativeDifference! <= 1e-6);
  const timed = rows.filter((r) => r.timeRatioAd3 !== null);
  const within = timed.filter((r) => r.timeRatioAd3! <= 1.5);
  const vsPsdd = rows.filter((r) => r.timeRatioPsdd !== null);
  const faster = vsPsdd.filter((r) => r.timeRatioPsdd! < 1);
  const count = (hit: readonly GraphRow[], all: readonly GraphRow[]) =>
    all.length === 0 ? "—" : `${hit.length} of ${all.length} graphs`;
  return [
    {
      name: "the same LP-MAP value as C++ AD3 where it solved the LP (best duals within 1e-6 relative)",
      value: count(same, compared),
      met: compared.length === 0 ? null : same.length === compared.length,
    },
    {
      name: "within 1.5× C++ AD3's time (CPU)",
      value: count(within, timed),
      met: timed.length === 0 ? null : within.length === timed.length,
    },
    {
      name: "faster than C++ PSDD (CPU)",
      value: count(faster, vsPsdd),
      met: vsPsdd.length === 0 ? null : faster.length === vsPsdd.length,
    },
  ];
}

/**
 * Section 2, the project's tasks (UMass Soft-DD, WNUT-16/17 general-CRF groups, CoNLL-2003
 * documents: AD3 step vs subgradient), written in ad3-tasks.ts.
 */
export async function ad3TasksSection(
  options: Ad3BenchOptions,
  status: (message: string) => void,
): Promise<Ad3TasksSection> {
  return ad3TaskSection({ ...options.tasks, onStatus: status });
}

export async function ad3Bench(options: Ad3BenchOptions = {}): Promise<Ad3BenchResult> {
  const status = options.onStatus ?? (() => undefined);
  const sections = options.sections ?? AD3_SECTIONS;
  const loadBefore = loadavg()[0] ?? 0;
  const graphs = sections.includes("graphs") ? await ad3GraphsSection(options, status) : null;
  const tasks = sections.includes("tasks") ? await ad3TasksSection(options, status) : null;
  return {
    suite: "ad3",
    node: process.version,
    cpu: `${cpus()[0]?.model ?? "unknown"} × ${cpus().length}`,
    loadAverage: [loadBefore, loadavg()[0] ?? 0],
    graphs,
    tasks,
  };
}

const msOf = (seconds: number) => {
  const x = 1000 * seconds;
  return !Number.isFinite(x) ? "—" : x >= 100 ? x.toFixed(0) : x.toPrecision(3);
};
/** Wall / CPU milliseconds. */
const ms = (run: SystemRun | null) =>
  run === null ? "—" : `${msOf(run.seconds)} / ${msOf(run.cpuSeconds)}`;
const value = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toPrecision(10);
const small = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toExponential(1);
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
    `${s.rows.length} graphs of ${s.dataDir}. Every system: at most ${set.maxIterations} iterations${set.exact ? ", exact MAP (branch and bound)" : ""}; AD3s stop when both residuals are below ${set.residualThreshold.toExponential()}; η ${set.etaLagrange === "default" ? `Lagrange's default, ad3_multi's ${set.etaCpp} (AD3's initial η, adapted; PSDD's step η/√t)` : `${set.etaLagrange} for all`}. Times: median of solves repeated until they add up to ${set.minSampleMs} ms (reading excluded; ad3_multi's clock is gettimeofday, so its times under ~10 µs are at the clock's resolution, and a 0 leaves the ratio out). ${peer}`,
    "",
    "### Time and iterations",
    "",
    markdownTable(
      [
        "graph",
        "vars",
        "factors",
        "Lagrange ms wall / CPU",
        "it",
        "status",
        "AD3 C++ ms wall / CPU",
        "it",
        "status",
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
          ms(L),
          its(L),
          L === null ? "failed" : `${L.status}${L.certified ? " ✓" : ""}`,
          ms(A),
          its(A),
          state(A, r.ad3),
          ratio(r.timeRatioAd3),
          ms(P),
          its(P),
          ratio(r.timeRatioPsdd),
        ];
      }),
    ),
    "✓: certified (integral primal within the gap tolerance of the dual). ÷: Lagrange's CPU time over C++'s (> 1: Lagrange slower); both run one thread, and CPU time is what a busy machine inflates least.",
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
