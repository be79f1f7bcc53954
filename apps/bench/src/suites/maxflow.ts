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
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
} from "@lagrange/mincut";
import { BENCH_CACHE_DIR, REPO_ROOT } from "../report.js";
import { targets } from "./maxflow-report.js";
import {
  type InstanceResult,
  type MaxflowBenchOptions,
  type MaxflowBenchResult,
  type PhaseTimes,
  QUICK_INSTANCES,
  type UpdateTimes,
} from "./maxflow-results.js";
import {
  clockCost,
  type MaxflowKernel,
  medianPhases,
  medianUpdates,
  phaseSampler,
  updateSampler,
} from "./maxflow-samplers.js";

const run = promisify(execFile);

const DRIVER_SOURCE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../native/maxflow-driver.cpp",
);
const DEFAULT_FIXTURES = join(REPO_ROOT, "..", "shared", "fixtures", "maxflow");
const CXX_FLAGS = ["-O3", "-DNDEBUG"];
const HEADER_DIR = "/usr/include/maxflow-3.0";

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
