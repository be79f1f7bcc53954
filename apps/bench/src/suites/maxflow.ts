import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  buildMaxflowGraph,
  cutCapacity,
  MaxflowGraph,
  type MaxflowInstance,
  type MaxflowUpdateRound,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  terminalCapacities,
} from "@lagrange/mincut";
import { median } from "@lagrange/recipes";
import { BENCH_CACHE_DIR, markdownTable, REPO_ROOT, targetsTable } from "../report.js";

const run = promisify(execFile);

type MaxflowKernel = MaxflowGraph["kernel"];

const DRIVER_SOURCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../native/maxflow-driver.cpp",
);
const DEFAULT_FIXTURES = join(REPO_ROOT, "..", "shared", "fixtures", "maxflow");
const CXX_FLAGS = ["-O3", "-DNDEBUG"];
const HEADER_DIR = "/usr/include/maxflow-3.0";

/** The instances of `--quick`: small, every family, both update sequences, bigcap and frac64. */
export const QUICK_INSTANCES = [
  "tiny_diamond",
  "grid_5x5_seg",
  "grid_64x64_seg",
  "rand_n1000_m5000_bigcap",
  "rand_n1000_m5000_frac64",
  "seq_n40_L13",
  "seq_n400_L21",
] as const;

export interface MaxflowBenchOptions {
  /** A smoke run: {@link QUICK_INSTANCES}, 3 samples of ≥ 10 ms (seconds in all). */
  readonly quick?: boolean;
  /** Folder of the fixtures (default `<repo>/../shared/fixtures/maxflow`). */
  readonly fixtureDir?: string;
  /** Run only these instances (names from `expected.json`). */
  readonly instances?: readonly string[];
  /** Samples per measurement; medians are reported (default 5, quick 3). */
  readonly samples?: number;
  /** Each sample repeats its loop until it lasts this long (default 50 ms, quick 10 ms). */
  readonly minSampleMs?: number;
  /** `"auto"` builds and runs the C++ driver when g++ and the header are there; `"off"` never. */
  readonly native?: "auto" | "off";
  /** Where the compiled driver is cached (default `<repo>/.lagrange-cache/bench`). */
  readonly cacheDir?: string;
  readonly onStatus?: (message: string) => void;
}

/** Times of one system on one instance, in milliseconds per solve. */
export interface PhaseTimes {
  readonly buildMs: number;
  readonly maxflowMs: number;
  readonly totalMs: number;
}

export interface UpdateTimes {
  /** A fresh build of the round's graph + maxflow(), per round. */
  readonly freshMs: number;
  /** Terminal changes + maxflow(reuse trees) on the previous round's graph, per round. */
  readonly reuseMs: number;
}

export interface InstanceResult {
  readonly name: string;
  readonly n: number;
  readonly m: number;
  readonly flow: number;
  /** Flow = expected, both cuts = the `.cut.txt` lines, their capacity = the flow. */
  readonly exact: boolean;
  /** The WebAssembly kernel (the default). */
  readonly lagrange: PhaseTimes & { readonly repetitions: number };
  /** The same algorithm in TypeScript (the fallback kernel). */
  readonly lagrangeJs: PhaseTimes & { readonly repetitions: number };
  readonly cpp: PhaseTimes | null;
  /** Lagrange ÷ C++ (> 1: slower). */
  readonly ratioTotal: number | null;
  readonly ratioMaxflow: number | null;
  /** The TypeScript kernel's maxflow() ÷ C++'s. */
  readonly ratioMaxflowJs: number | null;
  readonly updates: {
    readonly rounds: number;
    /** Every round's flow = `update_flows`, with reuse and from scratch. */
    readonly exact: boolean;
    readonly lagrange: UpdateTimes;
    readonly lagrangeJs: UpdateTimes;
    readonly cpp: UpdateTimes | null;
  } | null;
}

export interface Target {
  readonly name: string;
  readonly value: string;
  readonly met: boolean | null;
}

export interface MaxflowBenchResult {
  readonly suite: "maxflow";
  readonly node: string;
  readonly cpu: string;
  readonly setup: {
    readonly quick: boolean;
    readonly samples: number;
    readonly minSampleMs: number;
    readonly fixtureDir: string;
    /** What one `performance.now()` read costs here (it sits inside the maxflow() loop). */
    readonly clockReadNs: number;
  };
  readonly reference: {
    /** `measured`: the C++ driver ran in this invocation; `recorded`: timings.json's figures. */
    readonly kind: "measured" | "recorded";
    readonly description: string;
    /** Why the driver did not run (kind `recorded`). */
    readonly reason?: string;
  };
  readonly instances: readonly InstanceResult[];
  readonly targets: readonly Target[];
}

interface Expected {
  readonly n: number;
  readonly m: number;
  readonly flow: number;
  readonly update_flows?: readonly number[];
}

interface CppReport {
  readonly flow: number;
  readonly build_ms: number;
  readonly maxflow_ms: number;
  readonly total_ms: number;
  readonly update_round_ms_fresh?: number;
  readonly update_round_ms_reuse?: number;
  readonly update_flows_fresh?: readonly number[];
  readonly update_flows_reuse?: readonly number[];
}

interface RecordedTimings {
  readonly instances: Record<
    string,
    {
      readonly bk_double?: {
        readonly build_ms: number;
        readonly maxflow_ms: number;
        readonly total_ms: number;
        readonly update_round_ms_fresh?: number;
        readonly update_round_ms_reuse?: number;
      };
    }
  >;
}

type Native =
  | { readonly kind: "measured"; readonly driver: string; readonly description: string }
  | { readonly kind: "recorded"; readonly reason: string };

/**
 * BK max-flow of `@lagrange/mincut` against Kolmogorov's MAXFLOW (the C++ library, Debian's
 * libmaxflow-dev) on the fixture instances, in the same run: per instance the time of building
 * the graph, of `maxflow()` alone and of both, the median of several samples; on the update
 * sequences the time per round of a fresh solve and of a solve that reuses the search trees.
 * Every solve is checked against the fixtures' flows and cuts. Without a compiler or the header,
 * the C++ column comes from the fixtures' recorded `timings.json` (another machine), and says so.
 */
export async function maxflowBench(options: MaxflowBenchOptions = {}): Promise<MaxflowBenchResult> {
  const quick = options.quick === true;
  const samples = options.samples ?? (quick ? 3 : 5);
  const minSampleMs = options.minSampleMs ?? (quick ? 10 : 50);
  const fixtureDir = options.fixtureDir ?? DEFAULT_FIXTURES;
  const status = options.onStatus ?? (() => {});
  if (!existsSync(join(fixtureDir, "expected.json"))) {
    throw new Error(
      `the max-flow fixtures are missing: ${join(fixtureDir, "expected.json")} does not exist (pass fixtureDir)`,
    );
  }
  const expected = (
    JSON.parse(await readFile(join(fixtureDir, "expected.json"), "utf8")) as {
      instances: Record<string, Expected>;
    }
  ).instances;
  const names = options.instances ?? (quick ? QUICK_INSTANCES : Object.keys(expected));
  for (const name of names) {
    if (expected[name] === undefined) {
      throw new Error(
        `unknown instance "${name}"; expected.json has ${Object.keys(expected).join(", ")}`,
      );
    }
  }

  const native: Native =
    options.native === "off"
      ? { kind: "recorded", reason: "the C++ driver was turned off (--no-native)" }
      : await prepareDriver(options.cacheDir ?? BENCH_CACHE_DIR, status);
  const recorded =
    native.kind === "recorded"
      ? (JSON.parse(await readFile(join(fixtureDir, "timings.json"), "utf8")) as RecordedTimings)
      : null;
  if (native.kind === "recorded")
    status(`C++ driver unavailable (${native.reason}); using timings.json`);

  const clockReadNs = clockCost();
  const instances: InstanceResult[] = [];
  for (const name of names) {
    const want = expected[name]!;
    const graphFile = join(fixtureDir, `${name}.graph.txt`);
    const updatesFile = join(fixtureDir, `${name}.updates.txt`);
    const hasUpdates = want.update_flows !== undefined && existsSync(updatesFile);
    const instance = parseMaxflowGraph(await readFile(graphFile, "utf8"), graphFile);
    const cut = parseMaxflowCut(
      await readFile(join(fixtureDir, `${name}.cut.txt`), "utf8"),
      instance.n,
      join(fixtureDir, `${name}.cut.txt`),
    );
    const rounds = hasUpdates
      ? parseMaxflowUpdates(await readFile(updatesFile, "utf8"), instance.n, updatesFile)
      : [];

    status(`${name}: checking and calibrating`);
    let exact = true;
    const phases = (kernel: MaxflowKernel) => {
      const graph = new MaxflowGraph({ nodes: instance.n, edges: instance.m, kernel });
      const flow = buildMaxflowGraph(instance, graph).maxflow();
      const smallest = graph.minCut("smallest");
      const largest = graph.minCut("largest");
      exact &&=
        flow === want.flow &&
        same(smallest, cut.smallest) &&
        same(largest, cut.largest) &&
        cutCapacity(instance, smallest) === flow &&
        cutCapacity(instance, largest) === flow;
      return { flow, sampler: phaseSampler(instance, graph, minSampleMs) };
    };
    const { flow, sampler: wasmPhases } = phases("wasm");
    const jsPhases = phases("js").sampler;
    const wasmUpdates = hasUpdates
      ? updateSampler(instance, rounds, want.update_flows!, minSampleMs, "wasm")
      : null;
    const jsUpdates = hasUpdates
      ? updateSampler(instance, rounds, want.update_flows!, minSampleMs, "js")
      : null;

    // Samples alternate between the systems, so that machine noise hits all of them alike.
    const lagrangeSamples: PhaseTimes[] = [];
    const jsSamples: PhaseTimes[] = [];
    const updateSamples: UpdateTimes[] = [];
    const jsUpdateSamples: UpdateTimes[] = [];
    const cppReports: CppReport[] = [];
    for (let s = 0; s < samples; s++) {
      status(`${name}: sample ${s + 1} of ${samples}`);
      lagrangeSamples.push(wasmPhases());
      jsSamples.push(jsPhases());
      if (wasmUpdates !== null && jsUpdates !== null) {
        updateSamples.push(wasmUpdates.sample());
        jsUpdateSamples.push(jsUpdates.sample());
      }
      if (native.kind === "measured") {
        const args = ["--samples", "1", "--min-ms", String(minSampleMs), graphFile];
        if (hasUpdates) args.push(updatesFile);
        const { stdout } = await run(native.driver, args, { maxBuffer: 1 << 20 });
        cppReports.push(JSON.parse(stdout) as CppReport);
      }
    }
    const lagrange = { ...medianPhases(lagrangeSamples), repetitions: wasmPhases.repetitions };
    const lagrangeJs = { ...medianPhases(jsSamples), repetitions: jsPhases.repetitions };
    const updates =
      wasmUpdates === null
        ? null
        : { exact: wasmUpdates.exact, times: medianUpdates(updateSamples) };
    const updatesJs =
      jsUpdates === null ? null : { exact: jsUpdates.exact, times: medianUpdates(jsUpdateSamples) };

    let cpp: PhaseTimes | null = null;
    let cppUpdates: UpdateTimes | null = null;
    if (native.kind === "measured") {
      cpp = medianPhases(
        cppReports.map((r) => ({
          buildMs: r.build_ms,
          maxflowMs: r.maxflow_ms,
          totalMs: r.total_ms,
        })),
      );
      let cppExact = cppReports.every((r) => r.flow === want.flow);
      if (hasUpdates) {
        cppUpdates = medianUpdates(
          cppReports.map((r) => ({
            freshMs: r.update_round_ms_fresh!,
            reuseMs: r.update_round_ms_reuse!,
          })),
        );
        cppExact &&= cppReports.every(
          (r) =>
            sameNumbers(r.update_flows_fresh ?? [], want.update_flows!) &&
            sameNumbers(r.update_flows_reuse ?? [], want.update_flows!),
        );
      }
      if (!cppExact) status(`${name}: the C++ driver's flows differ from expected.json`);
    } else {
      const r = recorded?.instances[name]?.bk_double;
      if (r !== undefined) {
        cpp = { buildMs: r.build_ms, maxflowMs: r.maxflow_ms, totalMs: r.total_ms };
        if (r.update_round_ms_fresh !== undefined && r.update_round_ms_reuse !== undefined) {
          cppUpdates = { freshMs: r.update_round_ms_fresh, reuseMs: r.update_round_ms_reuse };
        }
      }
    }
    instances.push({
      name,
      n: instance.n,
      m: instance.m,
      flow,
      exact,
      lagrange,
      lagrangeJs,
      cpp,
      ratioTotal: cpp === null ? null : lagrange.totalMs / cpp.totalMs,
      ratioMaxflow: cpp === null ? null : lagrange.maxflowMs / cpp.maxflowMs,
      ratioMaxflowJs: cpp === null ? null : lagrangeJs.maxflowMs / cpp.maxflowMs,
      updates:
        updates === null || updatesJs === null
          ? null
          : {
              rounds: rounds.length,
              exact: updates.exact && updatesJs.exact,
              lagrange: updates.times,
              lagrangeJs: updatesJs.times,
              cpp: cppUpdates,
            },
    });
  }

  return {
    suite: "maxflow",
    node: process.version,
    cpu: `${cpus()[0]?.model ?? "unknown"} × ${cpus().length}`,
    setup: { quick, samples, minSampleMs, fixtureDir, clockReadNs },
    reference:
      native.kind === "measured"
        ? { kind: "measured", description: native.description }
        : {
            kind: "recorded",
            description:
              "Kolmogorov's MAXFLOW v3.04, Graph<double,double,double>, as recorded in the fixtures' timings.json (g++ 12.2 -O3, another machine: a 2-vCPU AMD EPYC VM)",
            reason: native.reason,
          },
    instances,
    targets: targets(instances, native.kind),
  };
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** What one performance.now() costs, in nanoseconds. */
function clockCost(): number {
  const k = 200_000;
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < k; i++) sink += performance.now();
  const t1 = performance.now();
  return sink === 0 ? 0 : ((t1 - t0) * 1e6) / k;
}

/** Repetitions so that one sample lasts ≥ minSampleMs, from a warmed-up trial. */
function repetitions(trial: () => void, minSampleMs: number): number {
  // Warm-up: a few untimed solves, so that samples time optimised code (C++ needs none).
  const warmUntil = performance.now() + Math.max(20, 2 * minSampleMs);
  let warm = 0;
  do {
    trial();
    warm++;
  } while (warm < 3 || (warm < 1000 && performance.now() < warmUntil));
  const t0 = performance.now();
  trial();
  const ms = performance.now() - t0;
  return Math.max(1, Math.ceil(minSampleMs / Math.max(ms, 1e-6)));
}

function medianPhases(samples: readonly PhaseTimes[]): PhaseTimes {
  return {
    buildMs: median(samples.map((x) => x.buildMs)),
    maxflowMs: median(samples.map((x) => x.maxflowMs)),
    totalMs: median(samples.map((x) => x.totalMs)),
  };
}

function medianUpdates(samples: readonly UpdateTimes[]): UpdateTimes {
  return {
    freshMs: median(samples.map((x) => x.freshMs)),
    reuseMs: median(samples.map((x) => x.reuseMs)),
  };
}

/**
 * One sample per call: build, maxflow() and total, each from its own loop as the C++ driver
 * does, repeated to last ≥ minSampleMs. Building reuses one graph (reset() keeps its memory);
 * C++ allocates and deletes its Graph per build.
 */
function phaseSampler(
  instance: MaxflowInstance,
  graph: MaxflowGraph,
  minSampleMs: number,
): (() => PhaseTimes) & { repetitions: number } {
  const reps = repetitions(() => buildMaxflowGraph(instance, graph).maxflow(), minSampleMs);
  const sample = () => {
    let t0 = performance.now();
    for (let r = 0; r < reps; r++) buildMaxflowGraph(instance, graph);
    const buildMs = (performance.now() - t0) / reps;

    let inside = 0;
    for (let r = 0; r < reps; r++) {
      buildMaxflowGraph(instance, graph);
      const a = performance.now();
      graph.maxflow();
      inside += performance.now() - a;
    }
    const maxflowMs = inside / reps;

    t0 = performance.now();
    for (let r = 0; r < reps; r++) buildMaxflowGraph(instance, graph).maxflow();
    return { buildMs, maxflowMs, totalMs: (performance.now() - t0) / reps };
  };
  return Object.assign(sample, { repetitions: reps });
}

/**
 * The update rounds, one sample per call: a fresh build + maxflow per round, and
 * setTerminalWeights + maxflow(true) on the previous round's graph; both checked once against
 * `flows` (`exact`).
 */
function updateSampler(
  instance: MaxflowInstance,
  rounds: readonly MaxflowUpdateRound[],
  flows: readonly number[],
  minSampleMs: number,
  kernel: MaxflowKernel,
): { exact: boolean; sample: () => UpdateTimes } {
  // Each round's instance, from arrays (terminal lines for the nodes with capacity).
  const terminals = terminalCapacities(instance);
  const perRound: MaxflowInstance[] = rounds.map((round) => {
    for (let k = 0; k < round.node.length; k++) {
      terminals.source[round.node[k]!] = round.capSource[k]!;
      terminals.sink[round.node[k]!] = round.capSink[k]!;
    }
    const nodes: number[] = [];
    for (let i = 0; i < instance.n; i++) {
      if (terminals.source[i] !== 0 || terminals.sink[i] !== 0) nodes.push(i);
    }
    return {
      ...instance,
      terminalNode: Int32Array.from(nodes),
      terminalSource: Float64Array.from(nodes, (i) => terminals.source[i]!),
      terminalSink: Float64Array.from(nodes, (i) => terminals.sink[i]!),
    };
  });
  const fresh = new MaxflowGraph({ nodes: instance.n, edges: instance.m, kernel });
  const reused = new MaxflowGraph({ nodes: instance.n, edges: instance.m, kernel });
  let exact = true;
  const freshPass = (check: boolean) => {
    for (let r = 0; r < perRound.length; r++) {
      const f = buildMaxflowGraph(perRound[r]!, fresh).maxflow();
      if (check && f !== flows[r]) exact = false;
    }
  };
  // One pass: the base graph is built and solved untimed; returns the rounds' time.
  const reusePass = (check: boolean) => {
    buildMaxflowGraph(instance, reused).maxflow();
    const t0 = performance.now();
    for (let r = 0; r < rounds.length; r++) {
      const round = rounds[r]!;
      for (let k = 0; k < round.node.length; k++) {
        reused.setTerminalWeights(round.node[k]!, round.capSource[k]!, round.capSink[k]!);
      }
      const f = reused.maxflow(true);
      if (check && f !== flows[r]) exact = false;
    }
    return performance.now() - t0;
  };
  freshPass(true);
  reusePass(true);
  const freshReps = repetitions(() => freshPass(false), minSampleMs);
  repetitions(() => reusePass(false), 0); // warm-up only
  const reuseReps = Math.max(1, Math.ceil(minSampleMs / Math.max(reusePass(false), 1e-6)));
  const R = rounds.length;
  const sample = () => {
    const t0 = performance.now();
    for (let r = 0; r < freshReps; r++) freshPass(false);
    const freshMs = (performance.now() - t0) / freshReps / R;
    let ms = 0;
    for (let r = 0; r < reuseReps; r++) ms += reusePass(false);
    return { freshMs, reuseMs: ms / reuseReps / R };
  };
  return {
    get exact() {
      return exact;
    },
    sample,
  };
}

/**
 * Compiles apps/bench/native/maxflow-driver.cpp against Debian's libmaxflow-dev when g++ and the
 * header are present (cached by source hash), or says why not.
 */
async function prepareDriver(cacheDir: string, status: (m: string) => void): Promise<Native> {
  if (!existsSync(join(HEADER_DIR, "maxflow.h"))) {
    return {
      kind: "recorded",
      reason: `${join(HEADER_DIR, "maxflow.h")} is missing (apt-get install libmaxflow-dev)`,
    };
  }
  let compiler: string;
  try {
    compiler = (await run("g++", ["--version"])).stdout.split("\n")[0]!.trim();
  } catch {
    return { kind: "recorded", reason: "g++ is not installed (apt-get install g++)" };
  }
  const source = await readFile(DRIVER_SOURCE);
  const hash = createHash("sha256")
    .update(source)
    .update(CXX_FLAGS.join(" "))
    .update(compiler)
    .digest("hex")
    .slice(0, 12);
  const driver = join(cacheDir, `maxflow-driver-${hash}`);
  if (!existsSync(driver)) {
    status(`compiling ${DRIVER_SOURCE}`);
    await mkdir(cacheDir, { recursive: true });
    const partial = `${driver}.${process.pid}.tmp`;
    try {
      await run("g++", [
        ...CXX_FLAGS,
        `-I${HEADER_DIR}`,
        DRIVER_SOURCE,
        "-lmaxflow",
        "-o",
        partial,
      ]);
      await rename(partial, driver);
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      return {
        kind: "recorded",
        reason: `g++ failed: ${stderr.trim().split("\n").slice(0, 3).join(" ")}`,
      };
    }
  }
  let library = "libmaxflow-dev";
  try {
    // dpkg-query's own field syntax, not a template placeholder.
    const format = ["-f=$", "{Version}"].join("");
    const { stdout } = await run("dpkg-query", ["-W", format, "libmaxflow-dev"]);
    library = `Debian libmaxflow-dev ${stdout.trim()}`;
  } catch {
    // Not a Debian system: the header was found anyway.
  }
  return {
    kind: "measured",
    driver,
    description: `Kolmogorov's MAXFLOW v3.04 (${library}), Graph<double,double,double>, driver built here with ${compiler}, ${CXX_FLAGS.join(" ")}; measured in this run`,
  };
}

function targets(instances: readonly InstanceResult[], kind: "measured" | "recorded"): Target[] {
  const find = (name: string) => instances.find((i) => i.name === name);
  const ratio = (name: string, label: string, cppRecorded: string): Target => {
    const r = find(name);
    if (r === undefined || r.ratioTotal === null) {
      return { name: label, value: "not run", met: null };
    }
    return {
      name: label,
      value: `${r.ratioTotal.toFixed(2)}× (${time(r.lagrange.totalMs)} vs ${time(r.cpp!.totalMs)}${kind === "recorded" ? `; recorded on another machine: ${cppRecorded}` : ""}; TS kernel ${(r.lagrangeJs.totalMs / r.cpp!.totalMs).toFixed(2)}×)`,
      met: r.ratioTotal <= 1.5,
    };
  };
  const seq = find("seq_n400_L21");
  const exactAll = instances.every((i) => i.exact && (i.updates?.exact ?? true));
  return [
    {
      name: "exact on every instance run (flows, both cuts, cut capacity = flow, every update round)",
      value: `${instances.filter((i) => i.exact && (i.updates?.exact ?? true)).length} of ${instances.length}`,
      met: exactAll,
    },
    ratio("grid_512x512_seg", "grid 512²: build + maxflow within 1.5× of C++", "11.0 ms (int)"),
    ratio(
      "seq_n400_L21",
      "seq n = 400, L = 21: build + maxflow within 1.5× of C++",
      "327 µs (int)",
    ),
    seq?.updates == null
      ? { name: "seq_n400_L21: reuse ≥ 3× faster than from scratch", value: "not run", met: null }
      : {
          name: "seq_n400_L21: reuse ≥ 3× faster than from scratch",
          value: `${(seq.updates.lagrange.freshMs / seq.updates.lagrange.reuseMs).toFixed(2)}× (${time(seq.updates.lagrange.freshMs)} vs ${time(seq.updates.lagrange.reuseMs)} per round; TS kernel ${(seq.updates.lagrangeJs.freshMs / seq.updates.lagrangeJs.reuseMs).toFixed(2)}×; C++ ${seq.updates.cpp === null ? "–" : `${(seq.updates.cpp.freshMs / seq.updates.cpp.reuseMs).toFixed(2)}×`})`,
          met: seq.updates.lagrange.freshMs / seq.updates.lagrange.reuseMs >= 3,
        },
  ];
}

/** A duration in ms, with a unit that keeps 3 significant digits. */
export function time(ms: number): string {
  const [value, unit] = ms >= 1 ? [ms, "ms"] : ms >= 1e-3 ? [ms * 1e3, "µs"] : [ms * 1e6, "ns"];
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit}`;
}

const ratioText = (x: number | null) => (x === null ? "–" : `${x.toFixed(2)}×`);

export function maxflowMarkdown(r: MaxflowBenchResult): string {
  const withUpdates = r.instances.filter((i) => i.updates !== null);
  const cpp = r.reference.kind === "measured" ? "C++" : "C++ (recorded)";
  return [
    `### maxflow (Boykov–Kolmogorov: @lagrange/mincut vs Kolmogorov's MAXFLOW${r.setup.quick ? " — quick smoke run" : ""})`,
    "",
    `Reference: ${r.reference.description}.${r.reference.kind === "recorded" ? ` **Not measured in this run** (${r.reference.reason}): the C++ columns are the fixtures' recorded figures from another machine, so the ratios compare machines as well as implementations.` : ""}`,
    "",
    `Lagrange runs its default kernel (the algorithm as WebAssembly emitted by TypeScript); "TS kernel" is the same algorithm in TypeScript on the same typed arrays (the fallback where WebAssembly is missing). Per instance: the median of ${r.setup.samples} samples, each repeating its loop for ≥ ${r.setup.minSampleMs} ms after a warm-up. build = addNodes + addEdges (all edge lines) + addTerminalWeightsMany (all t lines) into one graph reused through reset() (C++: new Graph, add_node, one add_edge per edge line, one add_tweights per t line, delete); maxflow() alone has a clock read around each call (${r.setup.clockReadNs.toFixed(0)} ns here for performance.now()); total = build + maxflow() in one loop. Ratios are Lagrange ÷ C++ (> 1: Lagrange slower). "exact": with both kernels, flow = expected.json, both cuts = the .cut.txt lines character for character, their capacity = the flow. Node ${r.node}, ${r.cpu}.`,
    "",
    markdownTable(
      [
        "instance",
        "n",
        "m",
        "exact",
        "build",
        "maxflow()",
        "total",
        "TS kernel maxflow()",
        `${cpp} build`,
        `${cpp} maxflow()`,
        `${cpp} total`,
        "total ratio",
        "maxflow() ratio",
        "TS kernel maxflow() ratio",
      ],
      r.instances.map((i) => [
        `\`${i.name}\``,
        i.n,
        i.m,
        i.exact ? "yes" : "**no**",
        time(i.lagrange.buildMs),
        time(i.lagrange.maxflowMs),
        time(i.lagrange.totalMs),
        time(i.lagrangeJs.maxflowMs),
        i.cpp === null ? "–" : time(i.cpp.buildMs),
        i.cpp === null ? "–" : time(i.cpp.maxflowMs),
        i.cpp === null ? "–" : time(i.cpp.totalMs),
        ratioText(i.ratioTotal),
        ratioText(i.ratioMaxflow),
        ratioText(i.ratioMaxflowJs),
      ]),
    ),
    ...(withUpdates.length === 0
      ? []
      : [
          "**Update rounds** (terminal capacities change, edges stay: the min-cut slave between DD iterations), time per round: fresh = build the round's graph + maxflow(); reuse = setTerminalWeights on the changed nodes + maxflow(true) on the previous round's graph (C++: add_tweights + mark_node + maxflow(true)).",
          "",
          markdownTable(
            [
              "instance",
              "rounds",
              "exact",
              "fresh",
              "reuse",
              "reuse speed-up",
              "TS kernel fresh",
              "TS kernel reuse",
              `${cpp} fresh`,
              `${cpp} reuse`,
              "C++ speed-up",
              "reuse ratio",
            ],
            withUpdates.map((i) => {
              const u = i.updates!;
              return [
                `\`${i.name}\``,
                u.rounds,
                u.exact ? "yes" : "**no**",
                time(u.lagrange.freshMs),
                time(u.lagrange.reuseMs),
                `${(u.lagrange.freshMs / u.lagrange.reuseMs).toFixed(2)}×`,
                time(u.lagrangeJs.freshMs),
                time(u.lagrangeJs.reuseMs),
                u.cpp === null ? "–" : time(u.cpp.freshMs),
                u.cpp === null ? "–" : time(u.cpp.reuseMs),
                u.cpp === null ? "–" : `${(u.cpp.freshMs / u.cpp.reuseMs).toFixed(2)}×`,
                u.cpp === null ? "–" : `${(u.lagrange.reuseMs / u.cpp.reuseMs).toFixed(2)}×`,
              ];
            }),
          ),
        ]),
    "**Targets**",
    "",
    targetsTable(r.targets),
  ].join("\n");
}
