import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  type Ad3Options,
  compileBinaryProblem,
  solveBinaryProblem,
} from "@lagrange/core/dual-decomposition";
import {
  type FactorGraphFile,
  parseAd3FactorGraph,
  parseUaiFactorGraph,
} from "@lagrange/factor-graphs";
import { median } from "@lagrange/recipes";
import {
  AD3_MULTI_DEFAULTS,
  type Ad3MultiGraphOutput,
  buildAd3Multi,
  repeatGraph,
  runAd3Multi,
} from "../systems/ad3-multi.js";
import { ANCHORS_DIR } from "../systems/anchor-peer.js";
import { cppSolvedLp } from "./ad3-report.js";
import {
  AD3_SECTIONS,
  type Ad3BenchOptions,
  type Ad3BenchResult,
  type Ad3GraphsSection,
  type Ad3TasksSection,
  type GraphRow,
  type LagrangeRun,
  message,
  type Outcome,
  ok,
  type PeerState,
  type SystemRun,
  type TracePoint,
} from "./ad3-results.js";
import { ad3TaskSection } from "./ad3-tasks.js";

/** AD3's 27 benchmark factor graphs (`.fg` and UAI), beside the repository. */
export const AD3_DATA_DIR = join(ANCHORS_DIR, "ad3", "data");

/**
 * Each timing repeats solves until their sum reaches this, at most {@link MAX_SAMPLES} of them:
 * enough that a graph solved in microseconds is timed warm (at 100, example2's median was the
 * JavaScript engine's warm-up, 3× its steady time), as a caller decoding many graphs sees it.
 */
const DEFAULT_MIN_SAMPLE_MS = 200;
/**
 * Each system is timed this many times per graph, the three in turn, and the median kept: one
 * timing of 200 ms moved a graph's ratio by up to 50 % between runs on this 2-core machine, and
 * the median over the graphs between 1.70× and 2.26× with the same code.
 */
const DEFAULT_ROUNDS = 3;
const MAX_SAMPLES = 1000;
/** ad3_multi processes per timing when a file of copies fails (it should not). */
const FALLBACK_PROCESSES = 20;
/** Trace points kept per system and graph in the JSON (and the curves): evenly thinned. */
const MAX_TRACE_POINTS = 200;

const formatOf = (file: string): "ad3" | "uai" => (file.endsWith(".uai") ? "uai" : "ad3");

function thin<T>(points: readonly T[]): T[] {
  if (points.length <= MAX_TRACE_POINTS) return [...points];
  const step = points.length / MAX_TRACE_POINTS;
  const kept: T[] = [];
  for (let k = 0; k < MAX_TRACE_POINTS - 1; k++) kept.push(points[Math.floor(k * step)]!);
  kept.push(points.at(-1)!);
  return kept;
}

export function parseGraph(text: string, file: string): FactorGraphFile {
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

/**
 * Lagrange's AD3 on one parsed graph: the problem compiled once (its flat arrays and dense tables,
 * what ad3_multi builds as it reads a graph, outside its clock); a traced run for values and
 * curves, then timed solves of the compiled problem; then the compile timed on its own.
 */
export function runLagrange(
  parsed: FactorGraphFile,
  options: Ad3Options,
  minSampleMs: number,
): LagrangeRun {
  const problem = compileBinaryProblem(parsed.problem);
  const trace: { iteration: number; dual: number; primal: number | null }[] = [];
  const traced = solveBinaryProblem(problem, {
    ...options,
    onIteration: (s) => {
      trace.push({
        iteration: s.iteration,
        dual: s.dual,
        primal: Number.isFinite(s.primal) ? s.primal : null,
      });
    },
  });
  // Then untimed solves for as long as the timed ones may take: in a fresh process V8's compiler
  // threads are still at work after one solve, and their time would count in the process's CPU
  // time; and a graph solved in microseconds needs more solves than the timed ones' 1,000 to be
  // compiled (example2 after 1,000: 9–13 µs a solve; after 200 ms: ~4 µs).
  const warm = performance.now();
  while (performance.now() - warm < minSampleMs) solveBinaryProblem(problem, options);
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let total = 0;
  while (times.length === 0 || (total < minSampleMs && times.length < MAX_SAMPLES)) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    solveBinaryProblem(problem, options);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    times.push(ms);
    cpuTimes.push((used.user + used.system) / 1e6);
    total += ms;
  }
  const seconds = median(times) / 1000;
  const cpuSeconds = median(cpuTimes);
  // The compile's time: a first round warms it, as the solves were warmed.
  const compileTimes: number[] = [];
  for (let round = 0; round < 2; round++) {
    compileTimes.length = 0;
    let spent = 0;
    while (
      compileTimes.length < 3 ||
      (spent < minSampleMs / 4 && compileTimes.length < MAX_SAMPLES)
    ) {
      const t0 = performance.now();
      compileBinaryProblem(parsed.problem);
      const ms = performance.now() - t0;
      compileTimes.push(ms);
      spent += ms;
    }
  }
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
    compileSeconds: median(compileTimes) / 1000,
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

const CHILD = new URL("./ad3-lagrange-child.ts", import.meta.url);

/** A run as JSON, its non-finite numbers (NaN CPU time, an infinite dual) kept. */
export function encodeRun(run: LagrangeRun): string {
  return JSON.stringify(run, (_, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? { nonFinite: String(v) } : v,
  );
}

export function decodeRun(text: string): LagrangeRun {
  return JSON.parse(text, (_, v: unknown) =>
    typeof v === "object" && v !== null && "nonFinite" in v ? Number(v.nonFinite) : v,
  ) as LagrangeRun;
}

/**
 * {@link runLagrange} in a fresh Node process. V8 compiles the same code differently from one
 * process to the next: on this machine a graph's solve took one of two times, ~1.5× apart
 * (Family2Dominant: 28–29 or 39–51 ms over ten processes), and stayed there for the process's
 * life. Rounds in one process would all draw the same one; each round in its own samples both.
 */
async function runLagrangeIsolated(
  file: string,
  options: Ad3Options,
  minSampleMs: number,
): Promise<Outcome<LagrangeRun>> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=lagrange-source",
      "--import",
      "tsx",
      CHILD.pathname,
      file,
      JSON.stringify({ options, minSampleMs }),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.on("data", (chunk: string) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  if (code !== 0) {
    return {
      failed: `Lagrange's run failed (exit code ${code}): ${err.trim().split("\n").at(-1)}`,
    };
  }
  try {
    return decodeRun(out);
  } catch {
    return { failed: `Lagrange's run printed no run: ${out.trim().slice(0, 200)}` };
  }
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
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  if (!(Number.isInteger(rounds) && rounds >= 1)) {
    throw new Error(`bench ad3: --rounds expected an integer ≥ 1, got ${rounds}`);
  }
  const settings = {
    maxIterations,
    residualThreshold,
    etaLagrange: options.eta ?? ("default" as const),
    etaCpp: options.eta ?? AD3_MULTI_DEFAULTS.eta,
    exact,
    minSampleMs,
    maxSamples: MAX_SAMPLES,
    rounds,
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
      const lagrangeRounds: Outcome<LagrangeRun>[] = [];
      const ad3Rounds: Outcome<SystemRun>[] = [];
      const psddRounds: Outcome<SystemRun>[] = [];
      let counts: { variables: number; factors: number } | null = null;
      let shape: { factors: number; edges: number } | null = null;
      let parsed: FactorGraphFile | null = null;
      try {
        parsed = parseGraph(text, file);
        counts = parsed.counts;
        shape = problemShape(parsed);
      } catch (error) {
        lagrangeRounds.push({ failed: message(error) });
      }
      for (let round = 0; round < rounds; round++) {
        if (parsed !== null) {
          lagrangeRounds.push(await runLagrangeIsolated(file, lagrangeOptions, minSampleMs));
        }
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
          ad3Rounds.push(await runCpp(file, text, "ad3", cpp));
          psddRounds.push(
            exact
              ? { failed: "PSDD has no exact mode" }
              : await runCpp(file, text, "psdd", { ...cpp, exact: false }),
          );
        }
      }
      const merged = acrossRounds(lagrangeRounds);
      const lagrange =
        "failed" in merged
          ? merged
          : {
              ...merged,
              compileSeconds: median(
                (lagrangeRounds as LagrangeRun[]).map((r) => r.compileSeconds),
              ),
            };
      const ad3 = binary === undefined ? null : acrossRounds(ad3Rounds);
      const psdd = binary === undefined ? null : acrossRounds(psddRounds);
      const L = ok(lagrange);
      const A = ok(ad3);
      const P = ok(psdd);
      rows.push({
        graph,
        format: formatOf(graph),
        variables: counts?.variables ?? null,
        factors: counts?.factors ?? null,
        problemFactors: shape?.factors ?? null,
        edges: shape?.edges ?? null,
        lagrange,
        ad3,
        psdd,
        timeRatioAd3: timeRatio(L, A),
        timeRatioPsdd: timeRatio(L, P),
        nsPerIterationEdgeLagrange: nsPerIterationEdge(L, shape?.edges),
        nsPerIterationEdgeAd3: nsPerIterationEdge(A, shape?.edges),
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
 * One system's rounds on a graph as one run: the first round's values and curve, the median of
 * the rounds' times (the curve's clock rescaled to it), their samples summed. A failed round
 * fails the whole.
 */
function acrossRounds<T extends SystemRun>(runs: readonly Outcome<T>[]): Outcome<T> {
  const failed = runs.find((r) => "failed" in r);
  if (failed !== undefined || runs.length === 0) return failed ?? { failed: "not run" };
  const done = runs as readonly T[];
  const first = done[0]!;
  const seconds = median(done.map((r) => r.seconds));
  const cpuSeconds = median(done.map((r) => r.cpuSeconds));
  const clock = (r: SystemRun) => (Number.isFinite(r.cpuSeconds) ? r.cpuSeconds : r.seconds);
  const scale = clock(first) > 0 ? clock({ ...first, seconds, cpuSeconds }) / clock(first) : 1;
  return {
    ...first,
    seconds,
    cpuSeconds,
    samples: done.reduce((sum, r) => sum + r.samples, 0),
    trace: first.trace.map((p) => ({ ...p, seconds: p.seconds * scale })),
  };
}

/** The problem's factors and edges (a factor's edges: the variables it links). */
function problemShape(parsed: FactorGraphFile): { factors: number; edges: number } {
  let edges = 0;
  for (const f of parsed.problem.factors) edges += f.variables.length;
  return { factors: parsed.problem.factors.length, edges };
}

/** CPU time (else wall) ÷ iterations ÷ edges, ns; null where any is missing or 0. */
function nsPerIterationEdge(run: SystemRun | null, edges: number | undefined): number | null {
  if (run === null || edges === undefined || edges === 0 || !run.iterations) return null;
  const seconds = Number.isFinite(run.cpuSeconds) ? run.cpuSeconds : run.seconds;
  if (!(seconds > 0)) return null;
  return (1e9 * seconds) / run.iterations / edges;
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

/** The targets on the graphs (issue 41), against what was measured. */
export function graphTargets(rows: readonly GraphRow[]): Ad3GraphsSection["targets"] {
  const compared = rows.filter((r) => r.lpRelativeDifference !== null && cppSolvedLp(r));
  const same = compared.filter((r) => r.lpRelativeDifference! <= 1e-6);
  // Multi-factor graphs both AD3s ran to an answer on (a single factor is one projection, no master).
  const multi = rows.filter((r) => (r.problemFactors ?? 0) > 1 && r.timeRatioAd3 !== null);
  const ratios = multi.map((r) => r.timeRatioAd3!);
  const worst = multi.reduce<GraphRow | null>(
    (w, r) => (w === null || r.timeRatioAd3! > w.timeRatioAd3! ? r : w),
    null,
  );
  const above = multi.filter((r) => r.timeRatioAd3! > 3);
  const vsPsdd = rows.filter((r) => r.timeRatioPsdd !== null);
  const faster = vsPsdd.filter((r) => r.timeRatioPsdd! < 1);
  const count = (hit: readonly GraphRow[], all: readonly GraphRow[]) =>
    all.length === 0 ? "—" : `${hit.length} of ${all.length} graphs`;
  const times = (x: number) => `${x.toFixed(2)}×`;
  const mid = ratios.length === 0 ? null : median(ratios);
  return [
    {
      name: "the same LP-MAP value as C++ AD3 where it solved the LP (best duals within 1e-6 relative)",
      value: count(same, compared),
      met: compared.length === 0 ? null : same.length === compared.length,
    },
    {
      name: `median of Lagrange CPU ÷ C++ AD3 CPU over the multi-factor graphs both ran (${multi.length}): ≤ 1.5× (moonshot ≤ 1.0×)`,
      value: mid === null ? "—" : times(mid),
      met: mid === null ? null : mid <= 1.5,
    },
    {
      name: "none of those above 3× (the worst named)",
      value:
        worst === null
          ? "—"
          : `max ${times(worst.timeRatioAd3!)} (${worst.graph}); ${above.length} of ${multi.length} above 3×`,
      met: worst === null ? null : above.length === 0,
    },
    {
      name: "faster than C++ PSDD (CPU) on at least half of the graphs PSDD ran",
      value: count(faster, vsPsdd),
      met: vsPsdd.length === 0 ? null : 2 * faster.length >= vsPsdd.length,
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
